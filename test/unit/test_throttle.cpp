// test_throttle.cpp — the arithmetic of max_mb_per_sec.
#include "core_errors.hpp"
#include "throttle.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <limits>

namespace pg_cachectl {
namespace {

using std::chrono::microseconds;

constexpr double mib = 1024.0 * 1024.0;

TEST_CASE("an unlimited throttle never pauses and never cuts a burst") {
    Throttle unlimited;
    CHECK_FALSE(unlimited.limited());
    CHECK(unlimited.delay_before_more(std::int64_t{1} << 40, microseconds{0}) == microseconds{0});
    CHECK(unlimited.burst_bytes(4096, 8 << 20) == 8 << 20);
}

TEST_CASE("a limit must be positive and finite") {
    CHECK_THROWS_AS(Throttle(0), InvalidArgument);
    CHECK_THROWS_AS(Throttle(-1), InvalidArgument);
    CHECK_THROWS_AS(Throttle(std::numeric_limits<double>::quiet_NaN()), InvalidArgument);
    CHECK_THROWS_AS(Throttle(std::numeric_limits<double>::infinity()), InvalidArgument);
}

TEST_CASE("an absurdly slow rate pauses at most a day, never overflows into no pause") {
    // 1e-300 MB/s: the next byte is due in about 1e294 s; a denormal rate in infinity
    for (const double rate : {1e-300 * mib, std::numeric_limits<double>::denorm_min()}) {
        Throttle crawl(rate);
        CHECK(crawl.delay_before_more(4096, microseconds{0}) == Throttle::longest_delay);
        CHECK(crawl.delay_before_more(std::int64_t{1} << 40, microseconds{1} * 1000000000) == Throttle::longest_delay);
    }
}

TEST_CASE("the pause keeps the work done since the start at the rate") {
    Throttle ten_mb(10 * mib);
    // 10 MiB is due after one second: done at once, wait the whole second
    CHECK(ten_mb.delay_before_more(10 * (1 << 20), microseconds{0}) == microseconds{1000000});
    // done in 0.25 s: wait the other 0.75 s
    CHECK(ten_mb.delay_before_more(10 * (1 << 20), microseconds{250000}) == microseconds{750000});
    // behind the rate: no pause
    CHECK(ten_mb.delay_before_more(10 * (1 << 20), microseconds{1500000}) == microseconds{0});
    CHECK(ten_mb.delay_before_more(0, microseconds{0}) == microseconds{0});
}

TEST_CASE("bursts are a tenth of a second's worth, within bounds") {
    Throttle five_mb(5 * mib);
    CHECK(five_mb.burst_bytes(4096, 8 << 20) == static_cast<std::int64_t>(5 * mib / 10));
    Throttle slow(1000); // 100 bytes a tenth: at least one page
    CHECK(slow.burst_bytes(4096, 8 << 20) == 4096);
    Throttle fast(1000 * mib); // 100 MiB a tenth: at most the cap
    CHECK(fast.burst_bytes(4096, 8 << 20) == 8 << 20);
}

TEST_CASE("following the pauses gives the rate over the whole run") {
    Throttle rate(20 * mib);
    const std::int64_t burst = rate.burst_bytes(4096, 8 << 20);
    std::int64_t done = 0;
    microseconds clock{0};
    while (done < 200 * (1 << 20)) {
        clock += rate.delay_before_more(done, clock); // sleep as told
        done += burst;                                // work takes no time here
    }
    const double seconds = static_cast<double>(clock.count()) / 1e6;
    const double achieved = static_cast<double>(done - burst) / seconds;
    CHECK(std::abs(achieved - 20 * mib) / (20 * mib) < 0.01);
}

} // namespace
} // namespace pg_cachectl
