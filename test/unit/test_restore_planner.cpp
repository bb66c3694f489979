// test_restore_planner.cpp — the chunks that load a relation of a snapshot
// back: remapping by share, chunking, and the order and OS-copy marks of a
// relation's plan.
#include "core_errors.hpp"
#include "restore_planner.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace pg_cachectl {
namespace {

TEST_CASE("runs are remapped by their share of the fork") {
    CHECK(remap_runs({{0, 10}, {50, 50}}, 100, 50) == RunList{{0, 5}, {25, 25}});
    // [10, 20) of 30 blocks in 7: floor(70 / 30) = 2, ceil(140 / 30) = 5
    CHECK(remap_runs({{10, 10}}, 30, 7) == RunList{{2, 3}});
    // growing: neighbours that touch after rounding merge
    CHECK(remap_runs({{0, 1}, {1, 1}}, 2, 10) == RunList{{0, 10}});
    CHECK(remap_runs({{0, 10}}, 0, 10).empty());
    CHECK(remap_runs({{0, 10}}, 10, 0).empty());
    // no overflow where a block number times a length passes 2^63
    const std::int64_t huge = std::int64_t{1} << 40;
    CHECK(remap_runs({{huge / 2, huge / 2}}, huge, huge) == RunList{{huge / 2, huge / 2}});
    CHECK_THROWS_AS(remap_runs({}, -1, 1), InvalidArgument);
}

TEST_CASE("runs are cut into chunks by the running total of their blocks") {
    // a long run is cut from its own start
    CHECK(cut_into_chunks({{0, 10}, {20, 3}}, 4) ==
          std::vector<RunList>{{{0, 4}}, {{4, 4}}, {{8, 2}}, {{20, 3}}});
    // short runs share a chunk while their total stays in the same multiple
    CHECK(cut_into_chunks({{0, 2}, {5, 1}, {9, 1}}, 4) == std::vector<RunList>{{{0, 2}, {5, 1}, {9, 1}}});
    CHECK(cut_into_chunks({{0, 3}, {10, 4}, {20, 1}}, 4) ==
          std::vector<RunList>{{{0, 3}}, {{10, 4}, {20, 1}}});
    CHECK(cut_into_chunks({}, 4).empty());
    CHECK_THROWS_AS(cut_into_chunks({{0, 1}}, 0), InvalidArgument);
}

RecordedFork row(int fork, SnapshotLayer layer, std::int64_t recorded, std::int64_t now, RunList runs) {
    RecordedFork made;
    made.fork = fork;
    made.layer = layer;
    made.recorded_blocks = recorded;
    made.now_blocks = now;
    made.runs = std::move(runs);
    return made;
}

TEST_CASE("a relation's plan loads the OS rows first and marks the shared blocks without an OS copy") {
    const std::vector<RecordedFork> rows{
        row(0, SnapshotLayer::shared, 100, 100, {{0, 20}}),
        row(0, SnapshotLayer::os, 100, 100, {{10, 30}}),
        row(1, SnapshotLayer::os, 3, 3, {{0, 3}}),
    };
    const std::vector<PlannedChunk> plan = plan_relation(rows, RelationPlanOptions{true, false, 1000});
    REQUIRE(plan.size() == 4);
    CHECK((plan[0].layer == SnapshotLayer::os && plan[0].fork == 0 && plan[0].runs == RunList{{10, 30}}));
    CHECK((plan[1].layer == SnapshotLayer::os && plan[1].fork == 1 && plan[1].runs == RunList{{0, 3}}));
    // the shared blocks that had an OS copy, then those that had none
    CHECK((plan[2].layer == SnapshotLayer::shared && !plan[2].drop_os_copy && plan[2].runs == RunList{{10, 10}}));
    CHECK((plan[3].layer == SnapshotLayer::shared && plan[3].drop_os_copy && plan[3].runs == RunList{{0, 10}}));

    // one layer as the target: nothing is split or marked
    const std::vector<RecordedFork> shared_only{rows[0]};
    const std::vector<PlannedChunk> one_layer = plan_relation(shared_only, RelationPlanOptions{false, false, 1000});
    REQUIRE(one_layer.size() == 1);
    CHECK((!one_layer[0].drop_os_copy && one_layer[0].runs == RunList{{0, 20}}));
}

TEST_CASE("a relation's plan clips to the fork now, remaps a rewritten one and leaves out what is resident") {
    // the fork shrank to 15 blocks: what lay past it is not loaded
    std::vector<RecordedFork> rows{row(0, SnapshotLayer::os, 100, 15, {{10, 30}, {50, 5}})};
    std::vector<PlannedChunk> plan = plan_relation(rows, RelationPlanOptions{true, false, 1000});
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].runs == RunList{{10, 5}});

    // rewritten at half its length: the same share, and no OS-copy split
    rows = {row(0, SnapshotLayer::shared, 100, 50, {{0, 20}}), row(0, SnapshotLayer::os, 100, 50, {{0, 10}})};
    plan = plan_relation(rows, RelationPlanOptions{true, true, 1000});
    REQUIRE(plan.size() == 2);
    CHECK(plan[0].runs == RunList{{0, 5}});
    CHECK((plan[1].layer == SnapshotLayer::shared && !plan[1].drop_os_copy && plan[1].runs == RunList{{0, 10}}));

    // missing only: the resident blocks are left out; a row with nothing left plans nothing
    rows = {row(0, SnapshotLayer::os, 100, 100, {{0, 20}}), row(2, SnapshotLayer::os, 4, 4, {{0, 4}})};
    rows[0].resident = RunList{{5, 10}};
    rows[1].resident = RunList{{0, 4}};
    plan = plan_relation(rows, RelationPlanOptions{true, false, 4});
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].runs == RunList{{0, 4}});
    // [0, 5) and [15, 20) left; totals 4 | 5 | 9, 10: pieces of one run merge back
    CHECK(plan[1].runs == RunList{{4, 1}});
    CHECK(plan[2].runs == RunList{{15, 5}});
    for (const PlannedChunk &chunk : plan)
        CHECK(chunk.fork == 0);
}

} // namespace
} // namespace pg_cachectl
