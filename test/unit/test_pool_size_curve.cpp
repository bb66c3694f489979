// test_pool_size_curve.cpp — the hit ratio other pool sizes would give,
// from a sample of blocks, against full simulations of every size; and the
// anchoring to what the server measured.
#include "block_sample.hpp"
#include "clock_simulation.hpp"
#include "core_errors.hpp"
#include "pool_size_curve.hpp"
#include "synthetic_pool.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace pg_cachectl {
namespace {

const std::vector<double> quarter_to_four{0.25, 0.5, 1, 2, 4};

// The sampled curve, anchored at 1x to the full pool's hit ratio there (as
// the server anchors it to what it measured), against full-size pools fed
// every access.
void check_against_full_pools(double skew, double rate, double bound, int accesses = 100000) {
    constexpr std::int64_t pool = 4000;
    constexpr std::uint32_t data_blocks = 16000; // 4x the pool
    ZipfianBlocks load(data_blocks, skew, 41, true);
    PoolSizeCurve curve(pool, quarter_to_four, rate, 1 << 20);
    std::vector<ClockSimulation> full;
    for (const double ratio : quarter_to_four)
        full.emplace_back(static_cast<std::size_t>(ratio * pool));
    std::vector<double> full_hits(quarter_to_four.size());
    for (int step = 0; step < accesses; ++step) {
        const std::uint64_t block = load.next();
        curve.access(block);
        for (std::size_t size = 0; size < full.size(); ++size)
            full_hits[size] += full[size].access(block);
    }
    const std::vector<PoolSizePoint> points = curve.points();
    REQUIRE(points.size() == quarter_to_four.size());
    const std::vector<double> predicted = anchored_hit_ratios(points, full_hits[2], accesses);
    for (std::size_t size = 0; size < points.size(); ++size) {
        const double exact = full_hits[size] / accesses;
        CAPTURE(skew, rate, points[size].size_ratio, exact, predicted[size], points[size].hit_ratio());
        CHECK(points[size].buffers == static_cast<std::int64_t>(quarter_to_four[size] * pool));
        CHECK(std::abs(predicted[size] - exact) <= bound);
    }
}

TEST_CASE("a 20 % sample predicts the hit ratio of pools from a quarter to four times as large") {
    check_against_full_pools(0.9, 0.2, 0.02);
    check_against_full_pools(0.6, 0.2, 0.02);
    check_against_full_pools(0.0, 0.2, 0.02);
}

TEST_CASE("a full sample is the full simulation") {
    check_against_full_pools(0.9, 1.0, 0.0, 50000);
}

TEST_CASE("restarted counts start from zero over pools that keep their blocks") {
    PoolSizeCurve curve(100, quarter_to_four, 1.0, 1 << 20);
    for (std::uint64_t block = 0; block < 50; ++block)
        curve.access(block, 7); // 50 blocks: every size from 1/2x (50 buffers) holds them all
    for (const PoolSizePoint &point : curve.points())
        CHECK(point.hits == 0);
    curve.restart_counts();
    for (const PoolSizePoint &point : curve.points())
        CHECK(point.accesses == 0);
    CHECK(curve.groups().empty());
    for (std::uint64_t block = 0; block < 50; ++block)
        curve.access(block, 8);
    // the window after the restart sees the blocks still cached: hits
    // wherever they fit, never the first access's miss of an empty pool
    for (const PoolSizePoint &point : curve.points()) {
        CAPTURE(point.size_ratio);
        CHECK(point.accesses == 50);
        if (point.size_ratio >= 0.5)
            CHECK(point.hits == 50);
        else
            CHECK(point.hits < 50); // 25 buffers cannot have kept 50 blocks
    }
    CHECK(curve.groups() == std::vector<std::uint64_t>{8});
}

TEST_CASE("a bounded sample lowers its rate and keeps predicting") {
    constexpr std::int64_t pool = 8000;
    ZipfianBlocks load(32000, 0.9, 43, true);
    PoolSizeCurve curve(pool, quarter_to_four, 1.0, 1600); // at most 5 % of the blocks
    ClockSimulation full(pool);
    double full_hits = 0;
    constexpr int accesses = 400000;
    for (int step = 0; step < accesses; ++step) {
        const std::uint64_t block = load.next();
        curve.access(block);
        full_hits += full.access(block);
    }
    CHECK(curve.sampled_blocks() <= 1600);
    CHECK(curve.sample_rate() < 0.06);
    // the early accesses counted at rate 1 are a small part of the window:
    // unanchored, the sample's own 1x ratio is near the full pool's
    const std::vector<PoolSizePoint> points = curve.points();
    CHECK(std::abs(points[2].hit_ratio() - full_hits / accesses) <= 0.03);
}

TEST_CASE("1x is always simulated and sizes come out in order") {
    const PoolSizeCurve curve(1000, {4, 0.5, 2, 0.5}, 1.0, 100);
    const std::vector<PoolSizePoint> points = curve.points();
    REQUIRE(points.size() == 4);
    CHECK(points[0].size_ratio == 0.5);
    CHECK(points[1].size_ratio == 1.0);
    CHECK(points[2].size_ratio == 2.0);
    CHECK(points[3].size_ratio == 4.0);
    CHECK(points[3].buffers == 4000);
    CHECK(points[1].hit_ratio() == 0); // nothing seen yet
}

TEST_CASE("no miniature holds more buffers than the sample has blocks") {
    // a 2^40-buffer pool at rate 1/2 would ask for 2^41 buffers at 4x
    PoolSizeCurve huge(std::int64_t{1} << 40, {4}, 0.5, 1000);
    for (std::uint64_t block = 0; block < 5000; ++block)
        huge.access(block_identity_hash(BlockIdentity{1663, 5, 16384, 0, static_cast<std::uint32_t>(block)}));
    CHECK(huge.sampled_blocks() <= 1000);
    CHECK(huge.points().back().buffers == std::int64_t{1} << 42);
}

TEST_CASE("a curve's arguments are checked") {
    CHECK_THROWS_AS(PoolSizeCurve(0, {1}, 1.0, 10), InvalidArgument);
    CHECK_THROWS_AS(PoolSizeCurve(100, {0}, 1.0, 10), InvalidArgument);
    CHECK_THROWS_AS(PoolSizeCurve(100, {-2}, 1.0, 10), InvalidArgument);
    CHECK_THROWS_AS(PoolSizeCurve(100, {INFINITY}, 1.0, 10), InvalidArgument);
    CHECK_THROWS_AS(PoolSizeCurve(100, {1}, 0.0, 10), InvalidArgument);
}

TEST_CASE("anchored at 1x the prediction is the measured ratio there, the model's differences elsewhere") {
    const std::vector<PoolSizePoint> points{{0.5, 50, 1000, 500}, {1, 100, 1000, 700}, {2, 200, 1000, 900}};
    // the server measured 750 hits of 1,000 accesses
    const std::vector<double> ratios = anchored_hit_ratios(points, 750, 1000);
    CHECK(ratios[1] == 0.75);
    CHECK(ratios[0] == Approx(0.55));
    CHECK(ratios[2] == Approx(0.95));
    // a scale from the model's counts to the server's
    const std::vector<double> scaled = anchored_hit_ratios(points, 7500, 10000, 10);
    CHECK(scaled[0] == Approx(0.55));
    // never below 0 or above 1
    const std::vector<double> clamped = anchored_hit_ratios(points, 990, 1000);
    CHECK(clamped[2] == 1.0);
    const std::vector<double> floor = anchored_hit_ratios(points, 100, 1000);
    CHECK(floor[0] == 0.0);
    // no accesses measured: no ratio
    CHECK(std::isnan(anchored_hit_ratios(points, 0, 0)[1]));
}

TEST_CASE("anchoring needs a 1x point and sane measurements") {
    const std::vector<PoolSizePoint> without_today{{0.5, 50, 10, 5}, {2, 200, 10, 9}};
    CHECK_THROWS_AS(anchored_hit_ratios(without_today, 5, 10), InvalidArgument);
    const std::vector<PoolSizePoint> points{{1, 100, 10, 7}};
    CHECK_THROWS_AS(anchored_hit_ratios(points, 11, 10), InvalidArgument);
    CHECK_THROWS_AS(anchored_hit_ratios(points, -1, 10), InvalidArgument);
    CHECK_THROWS_AS(anchored_hit_ratios(points, 5, 10, -1), InvalidArgument);
}

TEST_CASE("between simulated sizes the value is linear in the log of the size") {
    const std::vector<PoolSizePoint> points{{0.5, 50, 1, 0}, {1, 100, 1, 0}, {4, 400, 1, 0}};
    const std::vector<double> values{0.2, 0.4, 0.8};
    CHECK(interpolate_in_log_size(points, values, 1) == 0.4);
    CHECK(interpolate_in_log_size(points, values, std::sqrt(0.5)) == Approx(0.3));
    CHECK(interpolate_in_log_size(points, values, 2) == Approx(0.6));
    CHECK(std::isnan(interpolate_in_log_size(points, values, 0.25)));
    CHECK(std::isnan(interpolate_in_log_size(points, values, 8)));
    CHECK_THROWS_AS(interpolate_in_log_size(points, {0.1}, 1), InvalidArgument);
}

} // namespace
} // namespace pg_cachectl
