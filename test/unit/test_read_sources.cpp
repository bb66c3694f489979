// test_read_sources.cpp — the rule that splits a span's kernel reads into
// page-cache hits and device reads (read_sources.hpp).
#include "core_errors.hpp"
#include "pg_cachectl/read_sources.h"
#include "read_sources.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

namespace pg_cachectl {
namespace {

constexpr std::int64_t block = 8192;

TEST_CASE("a span without device bytes was served by the page cache") {
    ReadSources sources;
    std::int64_t unclaimed = 0;
    sources.add_span(300, 0, block, unclaimed);
    CHECK(sources.read_blocks == 300);
    CHECK(sources.os_hit_blocks == 300);
    CHECK(sources.device_read_blocks == 0);
    CHECK(sources.device_read_bytes == 0);
    CHECK(unclaimed == 0);
}

TEST_CASE("device bytes cover a block each, a partial block counting as one") {
    ReadSources sources;
    std::int64_t unclaimed = 0;
    sources.add_span(10, 3 * block, block, unclaimed);
    CHECK(sources.device_read_blocks == 3);
    CHECK(sources.os_hit_blocks == 7);
    sources.add_span(10, 4096, block, unclaimed); // half a block from the device: that block went to it
    CHECK(sources.device_read_blocks == 4);
    CHECK(sources.os_hit_blocks == 16);
    CHECK(sources.read_blocks == 20);
    CHECK(sources.device_read_bytes == 3 * block + 4096);
    CHECK(unclaimed == 0);
}

TEST_CASE("readahead is carried to the reads it was made for") {
    // one block asked, the kernel read 128 kB ahead: the next 15 blocks,
    // read without a device trip of their own, were read for this scan by
    // the device: device reads, not page-cache hits
    ReadSources sources;
    std::int64_t unclaimed = 0;
    sources.add_span(1, 128 * 1024, block, unclaimed);
    CHECK(unclaimed == 15 * block);
    for (int i = 0; i < 15; ++i)
        sources.add_span(1, 0, block, unclaimed);
    CHECK(sources.read_blocks == 16);
    CHECK(sources.device_read_blocks == 16);
    CHECK(sources.os_hit_blocks == 0);
    CHECK(sources.device_read_bytes == 128 * 1024);
    CHECK(unclaimed == 0);
    // once claimed, a read with no device bytes is a page-cache hit
    sources.add_span(1, 0, block, unclaimed);
    CHECK(sources.os_hit_blocks == 1);
}

TEST_CASE("readahead never read stays in the byte figure only") {
    ReadSources sources;
    std::int64_t unclaimed = 0;
    sources.add_span(2, 1 << 20, block, unclaimed); // a LIMIT stopped the scan after two blocks
    CHECK(sources.device_read_blocks == 2);
    CHECK(sources.os_hit_blocks == 0);
    CHECK(sources.device_read_bytes == 1 << 20);
    CHECK(unclaimed == (1 << 20) - 2 * block);
}

TEST_CASE("the carry goes with the process, from one tally to the next") {
    // a parent's read made the device read ahead; its child reads the rest
    ReadSources parent;
    ReadSources child;
    std::int64_t unclaimed = 0;
    parent.add_span(1, 4 * block, block, unclaimed);
    child.add_span(5, 0, block, unclaimed);
    CHECK(parent.device_read_blocks == 1);
    CHECK(child.device_read_blocks == 3);
    CHECK(child.os_hit_blocks == 2);
    CHECK(child.device_read_bytes == 0);
}

TEST_CASE("the two block figures always add up to the blocks read") {
    ReadSources sources;
    std::int64_t unclaimed = 0;
    const std::int64_t spans[][2] = {{0, 0}, {0, 65536}, {5, 8191}, {5, 8193}, {7, 7 * block}, {1, 1 << 30}};
    for (const auto &span : spans)
        sources.add_span(span[0], span[1], block, unclaimed);
    CHECK(sources.os_hit_blocks + sources.device_read_blocks == sources.read_blocks);
    CHECK(sources.read_blocks == 18);
    // the 64 kB prefetched before any read cover the next eight blocks
    CHECK(sources.device_read_blocks == 18);
}

TEST_CASE("a child's tally adds to its parent's, saturating rather than wrapping") {
    ReadSources parent;
    std::int64_t unclaimed = 0;
    parent.add_span(4, block, block, unclaimed);
    ReadSources child;
    child.add_span(6, 0, block, unclaimed);
    parent.add(child);
    CHECK(parent.read_blocks == 10);
    CHECK(parent.os_hit_blocks == 9);
    CHECK(parent.device_read_blocks == 1);

    ReadSources huge;
    huge.device_read_bytes = std::numeric_limits<std::int64_t>::max() - 1;
    huge.add(parent);
    CHECK(huge.device_read_bytes == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("negative counters or block sizes are refused") {
    ReadSources sources;
    std::int64_t unclaimed = 0;
    CHECK_THROWS_AS(sources.add_span(-1, 0, block, unclaimed), InvalidArgument);
    CHECK_THROWS_AS(sources.add_span(0, -1, block, unclaimed), InvalidArgument);
    CHECK_THROWS_AS(sources.add_span(1, 0, 0, unclaimed), InvalidArgument);
    std::int64_t negative = -1;
    CHECK_THROWS_AS(sources.add_span(1, 0, block, negative), InvalidArgument);
    CHECK(sources == ReadSources{});
}

TEST_CASE("the C functions apply the same rule and report a bad span") {
    cachectl_read_sources tally{};
    cachectl_error error{};
    int64_t unclaimed = 0;
    REQUIRE(cachectl_read_sources_add_span(&tally, &unclaimed, 3, block + 1, block, &error) == CACHECTL_OK);
    CHECK(tally.device_read_blocks == 2);
    CHECK(tally.os_hit_blocks == 1);
    CHECK(cachectl_read_sources_add_span(&tally, &unclaimed, -3, 0, block, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_read_sources_add_span(&tally, nullptr, 1, 0, block, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(tally.read_blocks == 3);
    cachectl_read_sources other{2, 2, 0, 0};
    cachectl_read_sources_add(&tally, &other);
    CHECK(tally.read_blocks == 5);
    CHECK(tally.os_hit_blocks == 3);
    cachectl_read_sources huge{0, 0, 0, std::numeric_limits<std::int64_t>::max() - 1};
    cachectl_read_sources_add(&huge, &tally);
    CHECK(huge.device_read_bytes == std::numeric_limits<std::int64_t>::max());
    CHECK(huge.read_blocks == 5);
}

TEST_CASE("the caller's page-cache span is the rule's span wherever it decides one, and defers elsewhere") {
    for (std::int64_t reads : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1} << 40}) {
        ReadSources by_rule;
        std::int64_t carry = 0;
        by_rule.add_span(reads, 0, block, carry);
        cachectl_read_sources span{9, 9, 9, 9}; // set, not added to
        REQUIRE(cachectl_read_sources_page_cache_span(&span, 0, reads, 0));
        CHECK(ReadSources{span.read_blocks, span.os_hit_blocks, span.device_read_blocks, span.device_read_bytes} ==
              by_rule);
        CHECK(carry == 0);
    }
    cachectl_read_sources span{};
    CHECK_FALSE(cachectl_read_sources_page_cache_span(&span, 0, 3, 1));     // a device byte
    CHECK_FALSE(cachectl_read_sources_page_cache_span(&span, 4096, 3, 0));  // readahead carried: it covers blocks
    CHECK_FALSE(cachectl_read_sources_page_cache_span(&span, 0, -1, 0));    // bad input: the bridge reports it
    CHECK(span.read_blocks == 0);
    CHECK(span.os_hit_blocks == 0);
}

} // namespace
} // namespace pg_cachectl
