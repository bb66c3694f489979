// test_dense_buffer_map.cpp — the observer's buffer-to-value map against
// std::unordered_map under random sets, finds and erases (erase moves the
// last entry into the gap: its position must follow), entries listed once
// each, and buffers out of the pool never stored.
#include "dense_buffer_map.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <unordered_map>

namespace pg_cachectl {

TEST_CASE("a dense buffer map sets, replaces, erases and ignores buffers out of the pool") {
    DenseBufferMap<int> map(10);
    CHECK(map.find(3) == nullptr);
    map.set(3, 30);
    map.set(0, 1);
    map.set(9, 90);
    map.set(10, 100); // out of the pool
    CHECK(map.size() == 3);
    CHECK(map.find(10) == nullptr);
    REQUIRE(map.find(3) != nullptr);
    CHECK(*map.find(3) == 30);
    map.set(3, 31);
    CHECK(*map.find(3) == 31);
    CHECK(map.size() == 3);
    map.erase(0); // not the last entry: the last moves into its place
    CHECK_FALSE(map.contains(0));
    CHECK(*map.find(9) == 90);
    CHECK(*map.find(3) == 31);
    map.erase(10);
    map.erase(0);
    CHECK(map.size() == 2);
    map.clear();
    CHECK(map.size() == 0);
    CHECK_FALSE(map.contains(9));
    map.set(9, 91);
    CHECK(*map.find(9) == 91);
}

TEST_CASE("a dense buffer map agrees with std::unordered_map over a million random operations") {
    const std::uint32_t pool = 5000;
    DenseBufferMap<std::uint64_t> map(pool);
    std::unordered_map<std::uint32_t, std::uint64_t> reference;
    std::mt19937_64 random(42);
    std::size_t mismatches = 0;
    for (std::uint64_t step = 0; step < 1000000; ++step) {
        const auto buffer = static_cast<std::uint32_t>(random() % (pool + 10)); // some out of the pool
        switch (random() % 3) {
        case 0:
            map.set(buffer, step);
            if (buffer < pool)
                reference[buffer] = step;
            break;
        case 1: {
            const auto found = reference.find(buffer);
            const std::uint64_t *value = map.find(buffer);
            mismatches += found == reference.end() ? value != nullptr : (value == nullptr || *value != found->second);
            break;
        }
        default:
            map.erase(buffer);
            reference.erase(buffer);
        }
    }
    CHECK(mismatches == 0);
    REQUIRE(map.size() == reference.size());
    std::set<std::uint32_t> listed;
    for (const auto &entry : map.entries()) {
        listed.insert(entry.buffer);
        const auto found = reference.find(entry.buffer);
        mismatches += found == reference.end() || found->second != entry.value;
    }
    CHECK(mismatches == 0);
    CHECK(listed.size() == reference.size());
}

} // namespace pg_cachectl
