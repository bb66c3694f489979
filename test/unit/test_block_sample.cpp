// test_block_sample.cpp — the spatial sample of blocks: a stable hash, the
// share it admits, and the bound on blocks followed.
#include "block_sample.hpp"
#include "core_errors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

namespace pg_cachectl {
namespace {

BlockIdentity heap_block(std::uint32_t block) {
    return BlockIdentity{1663, 5, 16384, 0, block};
}

TEST_CASE("the block hash is the same in every build and process") {
    // Pinned: a sample taken by one server version must follow the same
    // blocks in the next, and a test run on another machine the same ones.
    CHECK(block_identity_hash(BlockIdentity{}) == 0x6393d51c06c618dcULL);
    CHECK(block_identity_hash(heap_block(0)) == 0xbf8197500f4f1eb6ULL);
    CHECK(block_identity_hash(heap_block(1)) == 0x04b4f1c62798ebf9ULL);
}

TEST_CASE("every part of a block's identity changes its hash") {
    const BlockIdentity base = heap_block(7);
    const std::uint64_t hash = block_identity_hash(base);
    for (int part = 0; part < 5; ++part) {
        BlockIdentity other = base;
        switch (part) {
        case 0:
            other.tablespace += 1;
            break;
        case 1:
            other.database += 1;
            break;
        case 2:
            other.relation += 1;
            break;
        case 3:
            other.fork = 1;
            break;
        default:
            other.block += 1;
            break;
        }
        CAPTURE(part);
        CHECK(block_identity_hash(other) != hash);
    }
}

TEST_CASE("a sample admits its rate's share of blocks, adjacent blocks independently") {
    constexpr double rate = 0.01;
    constexpr std::uint32_t blocks = 1000000;
    const BlockSample sample(rate, blocks);
    std::uint32_t admitted = 0, admitted_pairs = 0;
    bool previous = false;
    for (std::uint32_t block = 0; block < blocks; ++block) {
        const bool now = sample.admits(block_identity_hash(heap_block(block)));
        admitted += now;
        admitted_pairs += now && previous;
        previous = now;
    }
    // within 4 standard deviations of a fair coin of this rate
    const double expected = rate * blocks, deviation = std::sqrt(expected * (1 - rate));
    CHECK(std::abs(admitted - expected) < 4 * deviation);
    // runs of sampled neighbours as rare as chance makes them (about 100)
    const double expected_pairs = rate * rate * blocks;
    CHECK(std::abs(admitted_pairs - expected_pairs) < 4 * std::sqrt(expected_pairs));
    CHECK(sample.rate() == Approx(rate).epsilon(1e-9));
}

TEST_CASE("a sample of rate 1 admits every hash, the largest too") {
    const BlockSample everything(1.0, 10);
    CHECK(everything.admits(0));
    CHECK(everything.admits(UINT64_MAX));
    CHECK(everything.rate() == 1.0);
}

TEST_CASE("past its bound the sample keeps the lowest hashes and lowers its rate") {
    BlockSample sample(1.0, 500);
    std::uint64_t last_dropped = 0;
    std::size_t dropped_count = 0, rises = 0;
    for (std::uint32_t block = 0; block < 32000; ++block) {
        const std::uint64_t hash = block_identity_hash(heap_block(block));
        for (const std::uint64_t dropped : sample.follow(hash)) {
            // the threshold only falls: each block dropped hashes below the last
            rises += dropped_count > 0 && dropped >= last_dropped;
            last_dropped = dropped;
            ++dropped_count;
        }
        REQUIRE(sample.followed_blocks() <= 500);
    }
    CHECK(sample.followed_blocks() == 500);
    CHECK(rises == 0);
    // the rate is what 500 of 32,000 uniform hashes leave: about 1/64
    CHECK(sample.rate() == Approx(500.0 / 32000).epsilon(0.15));
    // what is followed is exactly what the threshold now admits
    std::size_t admitted = 0;
    for (std::uint32_t block = 0; block < 32000; ++block)
        admitted += sample.admits(block_identity_hash(heap_block(block)));
    CHECK(admitted == 500);
    // and the last block dropped is the threshold itself: out for good
    CHECK_FALSE(sample.admits(last_dropped));
}

TEST_CASE("following a block twice counts it once; blocks out of the sample are ignored") {
    BlockSample sample(0.5, 10);
    const std::uint64_t low = 1, high = UINT64_MAX - 1;
    CHECK(sample.follow(low).empty());
    CHECK(sample.follow(low).empty());
    CHECK(sample.followed_blocks() == 1);
    CHECK_FALSE(sample.admits(high));
    CHECK(sample.follow(high).empty());
    CHECK(sample.followed_blocks() == 1);
}

TEST_CASE("a sample's rate and bound are checked") {
    CHECK_THROWS_AS(BlockSample(0.0, 10), InvalidArgument);
    CHECK_THROWS_AS(BlockSample(-0.5, 10), InvalidArgument);
    CHECK_THROWS_AS(BlockSample(1.5, 10), InvalidArgument);
    CHECK_THROWS_AS(BlockSample(std::nan(""), 10), InvalidArgument);
    CHECK_THROWS_AS(BlockSample(0.5, 0), InvalidArgument);
    // the smallest positive rate still admits hash 0
    CHECK(BlockSample(1e-30, 10).admits(0));
}

} // namespace
} // namespace pg_cachectl
