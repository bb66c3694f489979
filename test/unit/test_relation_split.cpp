// test_relation_split.cpp — one span's reads shared between the relations a
// plan node reads (relation_split.hpp), and its C bridge.
#include "core_errors.hpp"
#include "pg_cachectl/read_sources.h"
#include "relation_split.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace pg_cachectl {
namespace {

constexpr std::int64_t block = 8192;

ReadSources span_of(std::int64_t os_hits, std::int64_t device_blocks, std::int64_t bytes) {
    ReadSources span;
    span.read_blocks = os_hits + device_blocks;
    span.os_hit_blocks = os_hits;
    span.device_read_blocks = device_blocks;
    span.device_read_bytes = bytes;
    return span;
}

TEST_CASE("one relation that read the whole span takes it whole, bytes and sources") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> blocks{0, 7};
    split_span_by_relation(span_of(3, 4, 40 * block), blocks.data(), 2, true, shares.data());
    CHECK(shares[0] == RelationReads{});
    CHECK(shares[1] == RelationReads{7, 3, 4, 0, 40 * block});
    CHECK(shares[2] == RelationReads{});
}

TEST_CASE("a span from the page cache only gives each relation page-cache hits") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> blocks{2, 5};
    split_span_by_relation(span_of(7, 0, 0), blocks.data(), 2, true, shares.data());
    CHECK(shares[0] == RelationReads{2, 2, 0, 0, 0});
    CHECK(shares[1] == RelationReads{5, 5, 0, 0, 0});
    CHECK(shares[2] == RelationReads{});
}

TEST_CASE("a span from the device only gives each relation device reads, bytes by their blocks") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> blocks{1, 2};
    // 3 blocks and 100 bytes of readahead beyond them
    split_span_by_relation(span_of(0, 3, 3 * block + 100), blocks.data(), 2, true, shares.data());
    CHECK(shares[0] == RelationReads{1, 0, 1, 0, (3 * block + 100) / 3});
    CHECK(shares[1] == RelationReads{2, 0, 2, 0, 3 * block + 100 - (3 * block + 100) / 3});
    CHECK(shares[0].device_read_bytes + shares[1].device_read_bytes == 3 * block + 100);
}

TEST_CASE("a span that mixed both sources over several relations is counted as unsplit") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> blocks{1, 1};
    split_span_by_relation(span_of(1, 1, block), blocks.data(), 2, true, shares.data());
    CHECK(shares[0] == RelationReads{1, 0, 0, 1, block / 2});
    CHECK(shares[1] == RelationReads{1, 0, 0, 1, block / 2});
}

TEST_CASE("blocks no relation count claims are other's, and split with the relations") {
    std::array<RelationReads, 2> shares{};
    const std::array<std::int64_t, 1> blocks{3};
    // 5 read: 3 by the relation, 2 by something else (a temporary file); all from the page cache
    split_span_by_relation(span_of(5, 0, 0), blocks.data(), 1, true, shares.data());
    CHECK(shares[0] == RelationReads{3, 3, 0, 0, 0});
    CHECK(shares[1] == RelationReads{2, 2, 0, 0, 0});
}

TEST_CASE("relation counts that claim more than the span read give the span to other") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> blocks{4, 4}; // a read stream counted pins ahead of its reads
    split_span_by_relation(span_of(1, 2, 2 * block), blocks.data(), 2, true, shares.data());
    CHECK(shares[0] == RelationReads{});
    CHECK(shares[1] == RelationReads{});
    CHECK(shares[2] == RelationReads{3, 1, 2, 0, 2 * block});
}

TEST_CASE("a span without relations is other's; an empty span adds nothing") {
    std::array<RelationReads, 1> shares{};
    split_span_by_relation(span_of(2, 1, block), nullptr, 0, true, shares.data());
    CHECK(shares[0] == RelationReads{3, 2, 1, 0, block});
    split_span_by_relation(span_of(0, 0, 0), nullptr, 0, true, shares.data());
    CHECK(shares[0] == RelationReads{3, 2, 1, 0, block});
}

TEST_CASE("shares add up over spans, and the parts always sum to the blocks") {
    std::array<RelationReads, 3> shares{};
    const std::array<std::int64_t, 2> first{3, 0};
    const std::array<std::int64_t, 2> second{1, 2};
    const std::array<std::int64_t, 2> third{2, 2};
    split_span_by_relation(span_of(1, 2, 2 * block), first.data(), 2, true, shares.data());
    split_span_by_relation(span_of(3, 0, 0), second.data(), 2, true, shares.data());
    split_span_by_relation(span_of(2, 3, 3 * block), third.data(), 2, true, shares.data());
    for (const RelationReads &share : shares)
        CHECK(share.read_blocks == share.os_hit_blocks + share.device_read_blocks + share.unsplit_read_blocks);
    CHECK(shares[0] == RelationReads{6, 2, 2, 2, 2 * block + 3 * block * 2 / 5});
    CHECK(shares[1].read_blocks == 4);
    CHECK(shares[2].read_blocks == 1);
    CHECK(shares[0].device_read_bytes + shares[1].device_read_bytes + shares[2].device_read_bytes == 5 * block);
}

TEST_CASE("sources not known (reads made by other processes) count every block as unsplit") {
    std::array<RelationReads, 2> shares{};
    const std::array<std::int64_t, 1> blocks{5};
    split_span_by_relation(span_of(5, 0, 0), blocks.data(), 1, false, shares.data());
    CHECK(shares[0] == RelationReads{5, 0, 0, 5, 0});
    CHECK(shares[1] == RelationReads{});
}

TEST_CASE("device bytes with no block (readahead of a later span) go to the one party there is") {
    std::array<RelationReads, 2> shares{};
    const std::array<std::int64_t, 1> blocks{0};
    split_span_by_relation(span_of(0, 0, 4096), blocks.data(), 1, true, shares.data());
    CHECK(shares[1] == RelationReads{0, 0, 0, 0, 4096});
}

TEST_CASE("a span's split refuses negative or inconsistent counts") {
    std::array<RelationReads, 2> shares{};
    const std::array<std::int64_t, 1> negative{-1};
    const std::array<std::int64_t, 1> one{1};
    CHECK_THROWS_AS(split_span_by_relation(span_of(1, 0, 0), negative.data(), 1, true, shares.data()), InvalidArgument);
    ReadSources inconsistent = span_of(1, 1, block);
    inconsistent.read_blocks = 5;
    CHECK_THROWS_AS(split_span_by_relation(inconsistent, one.data(), 1, true, shares.data()), InvalidArgument);
    CHECK_THROWS_AS(split_span_by_relation(span_of(1, 0, 0), nullptr, 1, true, shares.data()), InvalidArgument);
}

TEST_CASE("the C bridge adds each party's share to its own total, as the core does, and reports bad input") {
    cachectl_read_sources span{4, 0, 4, 4 * block};
    const std::array<std::int64_t, 1> blocks{1};
    cachectl_relation_reads relation{1, 1, 0, 0, 0}; // a total with a span already in it
    cachectl_relation_reads other{};
    std::array<cachectl_relation_reads *, 2> totals{&relation, &other};
    cachectl_error error{};
    REQUIRE(cachectl_read_sources_split(&span, blocks.data(), 1, true, totals.data(), &error) == CACHECTL_OK);
    CHECK(relation.read_blocks == 2);
    CHECK(relation.os_hit_blocks == 1);
    CHECK(relation.device_read_blocks == 1);
    CHECK(other.device_read_blocks == 3);
    CHECK(relation.device_read_bytes + other.device_read_bytes == 4 * block);

    // the same spans through the core's array form give the same totals
    std::array<RelationReads, 2> shares{RelationReads{1, 1, 0, 0, 0}, RelationReads{}};
    split_span_by_relation(span_of(0, 4, 4 * block), blocks.data(), 1, true, shares.data());
    CHECK(shares[0] == RelationReads{relation.read_blocks, relation.os_hit_blocks, relation.device_read_blocks,
                                     relation.unsplit_read_blocks, relation.device_read_bytes});
    CHECK(shares[1] == RelationReads{other.read_blocks, other.os_hit_blocks, other.device_read_blocks,
                                     other.unsplit_read_blocks, other.device_read_bytes});

    cachectl_relation_reads total{};
    cachectl_relation_reads_add(&total, &relation);
    cachectl_relation_reads_add(&total, &other);
    CHECK(total.read_blocks == 5);
    CHECK(total.device_read_bytes == 4 * block);
    cachectl_relation_reads nearly_full{INT64_MAX - 1, 0, 0, 0, 0};
    cachectl_relation_reads_add(&nearly_full, &total);
    CHECK(nearly_full.read_blocks == INT64_MAX);

    const std::array<std::int64_t, 1> negative{-2};
    CHECK(cachectl_read_sources_split(&span, negative.data(), 1, true, totals.data(), &error) ==
          CACHECTL_INVALID_ARGUMENT);
    std::array<cachectl_relation_reads *, 2> missing{&relation, nullptr};
    CHECK(cachectl_read_sources_split(&span, blocks.data(), 1, true, missing.data(), &error) ==
          CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_read_sources_split(&span, blocks.data(), 1, true, nullptr, &error) == CACHECTL_INVALID_ARGUMENT);
}

RelationReads from_c(const cachectl_relation_reads &reads) {
    return RelationReads{reads.read_blocks, reads.os_hit_blocks, reads.device_read_blocks, reads.unsplit_read_blocks,
                         reads.device_read_bytes};
}

TEST_CASE("the caller's split of a page-cache span gives every party what the rule gives it") {
    std::mt19937_64 random(20261204);
    auto below = [&](std::int64_t bound) { return static_cast<std::int64_t>(random() % bound); };
    int decided = 0;
    for (int round = 0; round < 20000; round++) {
        const std::size_t relations = static_cast<std::size_t>(below(6));
        std::vector<std::int64_t> blocks(relations);
        for (std::int64_t &b : blocks)
            b = below(4) == 0 ? 0 : below(8);
        // reads at, below (counts claiming pins ahead) and above (other's blocks) what the relations claim
        const std::int64_t reads = below(20);
        // totals that already hold counts, some at the edge of saturation
        std::vector<RelationReads> by_rule(relations + 1);
        std::vector<cachectl_relation_reads> by_caller(relations + 1);
        std::vector<cachectl_relation_reads *> totals(relations + 1);
        for (std::size_t party = 0; party <= relations; party++) {
            const std::int64_t start =
                below(5) == 0 ? std::numeric_limits<std::int64_t>::max() - below(10) : below(1000);
            by_rule[party] = RelationReads{start, start, 3, 0, 5};
            by_caller[party] = cachectl_relation_reads{start, start, 3, 0, 5};
            totals[party] = &by_caller[party];
        }
        const bool known = below(8) != 0;
        const cachectl_read_sources span{reads, reads, 0, 0};
        const bool taken = cachectl_read_sources_split_page_cache(&span, blocks.data(), relations, known, totals.data());
        CHECK(taken == known);
        if (!taken)
            continue;
        decided++;
        split_span_by_relation(span_of(reads, 0, 0), blocks.data(), relations, known, by_rule.data());
        for (std::size_t party = 0; party <= relations; party++)
            REQUIRE(from_c(by_caller[party]) == by_rule[party]);
    }
    CHECK(decided > 15000);
}

TEST_CASE("the caller's split defers every span it cannot decide to the bridge, touching nothing") {
    const std::array<std::int64_t, 1> blocks{1};
    const std::array<std::int64_t, 1> negative{-1};
    cachectl_relation_reads relation{};
    cachectl_relation_reads other{};
    std::array<cachectl_relation_reads *, 2> totals{&relation, &other};
    std::array<cachectl_relation_reads *, 2> missing{&relation, nullptr};
    const cachectl_read_sources device{2, 1, 1, block};
    const cachectl_read_sources bytes_only{0, 0, 0, 100}; // readahead for a later span
    const cachectl_read_sources page_cache{2, 2, 0, 0};
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&device, blocks.data(), 1, true, totals.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&bytes_only, blocks.data(), 1, true, totals.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&page_cache, blocks.data(), 1, false, totals.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&page_cache, negative.data(), 1, true, totals.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&page_cache, nullptr, 1, true, totals.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&page_cache, blocks.data(), 1, true, missing.data()));
    CHECK_FALSE(cachectl_read_sources_split_page_cache(&page_cache, blocks.data(), 1, true, nullptr));
    CHECK(from_c(relation) == RelationReads{});
    CHECK(from_c(other) == RelationReads{});
}

} // namespace
} // namespace pg_cachectl
