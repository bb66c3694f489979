// test_clock_simulation.cpp — PostgreSQL's clock sweep as the model runs
// it, against a plain reading of the same rules and on access patterns
// whose hit ratios are known.
#include "clock_simulation.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace pg_cachectl {
namespace {

// The rules written as plainly as possible (linear search, no free list
// object): empty buffers fill in order, then the hand lowers counts and
// takes the first at 0; a hit adds one up to 5; a new block starts at 1.
class ReferenceClock {
  public:
    explicit ReferenceClock(std::size_t buffers) : keys_(buffers), usage_(buffers), used_(buffers) {}
    bool access(std::uint64_t key) {
        for (std::size_t index = 0; index < keys_.size(); ++index)
            if (used_[index] && keys_[index] == key) {
                usage_[index] = std::min(usage_[index] + 1, 5);
                return true;
            }
        for (std::size_t index = 0; index < keys_.size(); ++index)
            if (!used_[index]) {
                keys_[index] = key, usage_[index] = 1, used_[index] = true;
                return false;
            }
        for (;;) {
            const std::size_t index = hand_;
            hand_ = (hand_ + 1) % keys_.size();
            if (usage_[index] == 0) {
                keys_[index] = key, usage_[index] = 1;
                return false;
            }
            --usage_[index];
        }
    }

  private:
    std::vector<std::uint64_t> keys_;
    std::vector<int> usage_;
    std::vector<bool> used_;
    std::size_t hand_ = 0;
};

TEST_CASE("the simulated clock hits and misses exactly as the rules say") {
    std::mt19937_64 random(20261206);
    for (const std::size_t buffers : {1, 2, 7, 64}) {
        ClockSimulation simulated(buffers);
        ReferenceClock reference(buffers);
        std::size_t differences = 0, hits = 0;
        for (int step = 0; step < 20000; ++step) {
            // a skewed mix: small keys often, large ones rarely
            const std::uint64_t key = random() % (1 + random() % 200);
            const bool hit = simulated.access(key);
            differences += hit != reference.access(key);
            hits += hit;
        }
        CAPTURE(buffers);
        CHECK(differences == 0);
        CHECK(hits > 0);
        CHECK(simulated.cached() == buffers);
    }
}

TEST_CASE("a pool smaller than a loop misses it every time; one as large hits it every time") {
    // the sweep takes the oldest block as a loop runs round: no hit ever
    ClockSimulation small(99);
    ClockSimulation large(100);
    std::size_t small_hits = 0, large_hits = 0;
    for (int round = 0; round < 10; ++round)
        for (std::uint64_t key = 0; key < 100; ++key) {
            small_hits += small.access(key);
            large_hits += large.access(key);
        }
    CHECK(small_hits == 0);
    CHECK(large_hits == 9 * 100);
}

TEST_CASE("under uniform access a pool of c of N blocks hits about c/N") {
    std::mt19937_64 random(7);
    constexpr std::uint64_t blocks = 10000;
    for (const std::size_t buffers : {1000, 2500, 5000}) {
        ClockSimulation pool(buffers);
        for (int warm = 0; warm < 50000; ++warm)
            pool.access(random() % blocks);
        std::size_t hits = 0;
        constexpr int accesses = 200000;
        for (int step = 0; step < accesses; ++step)
            hits += pool.access(random() % blocks);
        CAPTURE(buffers);
        CHECK(static_cast<double>(hits) / accesses == Approx(static_cast<double>(buffers) / blocks).margin(0.01));
    }
}

TEST_CASE("frequently used blocks survive a scan the size of the pool") {
    // The usage counts, not recency alone: hot blocks at count 5 outlast a
    // one-time scan of as many blocks as there are buffers (LRU would lose them).
    ClockSimulation pool(100);
    for (int round = 0; round < 5; ++round)
        for (std::uint64_t hot = 0; hot < 20; ++hot)
            pool.access(hot);
    for (std::uint64_t cold = 1000; cold < 1100; ++cold)
        pool.access(cold);
    std::size_t hot_kept = 0;
    for (std::uint64_t hot = 0; hot < 20; ++hot)
        hot_kept += pool.holds(hot);
    CHECK(hot_kept == 20);
}

TEST_CASE("a forgotten block leaves an empty buffer, used before any eviction") {
    ClockSimulation pool(3);
    pool.access(1), pool.access(2), pool.access(3);
    pool.forget(2);
    pool.forget(42); // not cached: nothing happens
    CHECK(pool.cached() == 2);
    CHECK_FALSE(pool.access(4));
    CHECK(pool.holds(1));
    CHECK(pool.holds(3));
    CHECK(pool.holds(4));
}

TEST_CASE("shrinking evicts as the sweep would; growing keeps what is cached") {
    ClockSimulation pool(4);
    for (const std::uint64_t key : {1, 2, 3, 4})
        pool.access(key);
    for (int again = 0; again < 3; ++again)
        pool.access(3), pool.access(4);
    pool.resize(2);
    CHECK(pool.buffers() == 2);
    CHECK(pool.cached() == 2);
    // blocks 1 and 2 were used once, 3 and 4 four times: 1 and 2 go
    CHECK(pool.holds(3));
    CHECK(pool.holds(4));
    pool.resize(5);
    CHECK(pool.cached() == 2);
    CHECK(pool.holds(3));
    CHECK_FALSE(pool.access(5));
    CHECK(pool.cached() == 3); // an empty buffer, no eviction
    pool.resize(0);
    CHECK(pool.cached() == 0);
    CHECK_FALSE(pool.access(3)); // no buffers: every access misses
}

TEST_CASE("a pool resized a buffer at a time never holds more than it has buffers") {
    std::mt19937_64 random(3);
    ClockSimulation pool(1000);
    std::size_t over = 0, unreachable = 0;
    for (std::size_t buffers = 1000; buffers > 10; --buffers) {
        pool.resize(buffers - 1);
        const std::uint64_t key = random() % 3000;
        pool.access(key);
        over += pool.cached() > pool.buffers();
        unreachable += !pool.holds(key); // what was just read is cached
    }
    for (std::size_t buffers = 10; buffers < 500; ++buffers) {
        pool.resize(buffers + 1);
        pool.access(random() % 3000);
        over += pool.cached() > pool.buffers();
    }
    CHECK(over == 0);
    CHECK(unreachable == 0);
    CHECK(pool.buffers() == 500);
    // every buffer is usable again: 500 new blocks fill it without an eviction of each other
    for (std::uint64_t key = 10000; key < 10500; ++key)
        pool.access(key);
    CHECK(pool.cached() == 500);
}

} // namespace
} // namespace pg_cachectl
