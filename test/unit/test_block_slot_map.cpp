// test_block_slot_map.cpp — the miniature pools' key-to-buffer map against
// std::unordered_map under the same random inserts, lookups and erases
// (backward-shift deletion must never lose an entry that probed past the
// erased one), and across its growth.
#include "block_slot_map.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace pg_cachectl {

TEST_CASE("a block slot map finds, replaces and erases as a hash map does") {
    BlockSlotMap map;
    CHECK(map.find(7) == BlockSlotMap::absent);
    CHECK_FALSE(map.erase(7));
    map.insert(7, 3);
    map.insert(0, 9); // key 0 is a key like the others
    CHECK(map.find(7) == 3);
    CHECK(map.find(0) == 9);
    map.insert(7, 4);
    CHECK(map.find(7) == 4);
    CHECK(map.size() == 2);
    CHECK(map.erase(7));
    CHECK(map.find(7) == BlockSlotMap::absent);
    CHECK(map.find(0) == 9);
    map.clear();
    CHECK(map.size() == 0);
    CHECK(map.find(0) == BlockSlotMap::absent);
}

TEST_CASE("a block slot map agrees with std::unordered_map over a million random operations") {
    for (const std::uint64_t key_space : {64ULL, 5000ULL, 1ULL << 40}) {
        BlockSlotMap map;
        std::unordered_map<std::uint64_t, std::size_t> reference;
        std::mt19937_64 random(key_space);
        std::size_t mismatches = 0;
        for (int step = 0; step < 1000000; ++step) {
            const std::uint64_t key = random() % key_space;
            switch (random() % 3) {
            case 0:
                map.insert(key, static_cast<std::size_t>(step));
                reference[key] = static_cast<std::size_t>(step);
                break;
            case 1: {
                const auto found = reference.find(key);
                mismatches += map.find(key) != (found == reference.end() ? BlockSlotMap::absent : found->second);
                break;
            }
            default:
                mismatches += map.erase(key) != (reference.erase(key) == 1);
            }
        }
        CHECK(mismatches == 0);
        CHECK(map.size() == reference.size());
        for (const auto &[key, index] : reference)
            mismatches += map.find(key) != index;
        CHECK(mismatches == 0);
    }
}

} // namespace pg_cachectl
