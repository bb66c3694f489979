// test_run_lists.cpp — block runs normalized, intersected and subtracted.
#include "run_lists.hpp"

#include <catch2/catch.hpp>

namespace pg_cachectl {
namespace {

TEST_CASE("run lists are kept sorted, merged and without empty runs") {
    CHECK(normalized_runs({{10, 2}, {0, 3}, {3, 1}, {5, 0}, {11, 4}}) == RunList{{0, 4}, {10, 5}});
    CHECK(normalized_runs({{-2, 5}, {7, 1}}) == RunList{{7, 1}}); // no block before 0
    CHECK(normalized_runs({}).empty());
}

TEST_CASE("run lists intersect and subtract") {
    const RunList runs{{0, 10}, {20, 5}};
    CHECK(intersect_runs(runs, {{5, 20}}) == RunList{{5, 5}, {20, 5}});
    CHECK(intersect_runs(runs, {{0, 10}, {20, 5}}) == runs);
    CHECK(intersect_runs(runs, {}).empty());
    CHECK(subtract_runs(runs, {{2, 2}, {8, 14}}) == RunList{{0, 2}, {4, 4}, {22, 3}});
    CHECK(subtract_runs(runs, {}) == runs);
    CHECK(subtract_runs(runs, {{0, 100}}).empty());
    // one cut across two runs
    CHECK(subtract_runs({{0, 4}, {6, 4}}, {{3, 4}}) == RunList{{0, 3}, {7, 3}});
}

} // namespace
} // namespace pg_cachectl
