// Tests of BufferScan: the wanted set of a buffer-pool pass and its tallies,
// directly and through the C bridge.
#include "pg_cachectl/bridge.h"
#include "buffer_scan.hpp"
#include "core_errors.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using pg_cachectl::BufferScan;
using pg_cachectl::EvictionOutcome;
using pg_cachectl::RelationFileKey;

constexpr std::int64_t not_wanted = -1;
const std::array<std::int64_t, pg_cachectl::fork_count> main_only{100, not_wanted, not_wanted, not_wanted};
const std::array<std::int64_t, pg_cachectl::fork_count> main_and_fsm{100, 3, not_wanted, not_wanted};

} // namespace

TEST_CASE("a buffer matches only a wanted fork of a wanted relation", "[buffer_scan]") {
    BufferScan scan;
    scan.want(RelationFileKey{1663, 5, 16384}, 16384, main_and_fsm);
    scan.want(RelationFileKey{1663, 5, 20000}, 20001, main_only);
    scan.seal();

    CHECK(scan.match(RelationFileKey{1663, 5, 16384}, 0) >= 0);
    CHECK(scan.match(RelationFileKey{1663, 5, 16384}, 1) >= 0);
    CHECK(scan.match(RelationFileKey{1663, 5, 16384}, 2) == -1); // vm not wanted
    CHECK(scan.match(RelationFileKey{1663, 5, 20000}, 1) == -1);
    // same file number in another database or tablespace is another relation
    CHECK(scan.match(RelationFileKey{1663, 6, 16384}, 0) == -1);
    CHECK(scan.match(RelationFileKey{1664, 5, 16384}, 0) == -1);
    CHECK(scan.match(RelationFileKey{1663, 5, 16385}, 0) == -1);
    // forks outside PostgreSQL's four never match
    CHECK(scan.match(RelationFileKey{1663, 5, 16384}, -1) == -1);
    CHECK(scan.match(RelationFileKey{1663, 5, 16384}, 4) == -1);
}

TEST_CASE("slots are distinct per relation and fork", "[buffer_scan]") {
    BufferScan scan;
    scan.want(RelationFileKey{1663, 5, 3}, 3, main_and_fsm);
    scan.want(RelationFileKey{1663, 5, 1}, 1, main_and_fsm);
    scan.seal();
    const int a_main = scan.match(RelationFileKey{1663, 5, 1}, 0);
    const int a_fsm = scan.match(RelationFileKey{1663, 5, 1}, 1);
    const int b_main = scan.match(RelationFileKey{1663, 5, 3}, 0);
    CHECK(a_main != a_fsm);
    CHECK(a_main != b_main);
    CHECK(a_fsm != b_main);
}

TEST_CASE("tallies add up per relation fork and rows come in relation order", "[buffer_scan]") {
    BufferScan scan;
    // wanted out of order: rows must still come sorted by relation id, then fork
    scan.want(RelationFileKey{1663, 5, 900}, 900, main_only);
    scan.want(RelationFileKey{1663, 5, 100}, 100, main_and_fsm);
    scan.seal();

    const int main_100 = scan.match(RelationFileKey{1663, 5, 100}, 0);
    const int fsm_100 = scan.match(RelationFileKey{1663, 5, 100}, 1);
    scan.count_resident(main_100, true, false, 3);
    scan.count_resident(main_100, false, true, 1);
    scan.count_resident(fsm_100, false, false, 5);
    scan.count_eviction(main_100, EvictionOutcome::evicted);
    scan.count_eviction(main_100, EvictionOutcome::flushed_and_evicted);
    scan.count_eviction(main_100, EvictionOutcome::skipped);
    scan.count_resident(-1, true, true, 5); // no slot: ignored

    auto rows = scan.rows();
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].relation_id == 100);
    CHECK(rows[0].fork == 0);
    CHECK(rows[0].tally.size_blocks == 100);
    CHECK(rows[0].tally.shared_blocks == 2);
    CHECK(rows[0].tally.shared_dirty_blocks == 1);
    CHECK(rows[0].tally.shared_pinned_blocks == 1);
    CHECK(rows[0].tally.usage_count_sum == 4);
    CHECK(rows[0].tally.buffers_evicted == 2); // a flushed buffer is evicted too
    CHECK(rows[0].tally.buffers_flushed == 1);
    CHECK(rows[0].tally.buffers_skipped == 1);
    CHECK(rows[1].relation_id == 100);
    CHECK(rows[1].fork == 1);
    CHECK(rows[1].tally.size_blocks == 3);
    CHECK(rows[1].tally.shared_blocks == 1);
    CHECK(rows[1].tally.usage_count_sum == 5);
    CHECK(rows[2].relation_id == 900);
    CHECK(rows[2].tally.shared_blocks == 0);
}

TEST_CASE("a file wanted twice is one entry with the union of its forks", "[buffer_scan]") {
    BufferScan scan;
    scan.want(RelationFileKey{1663, 5, 7}, 7, main_only);
    scan.want(RelationFileKey{1663, 5, 7}, 7, {not_wanted, 2, not_wanted, not_wanted});
    scan.seal();
    CHECK(scan.relation_count() == 1);
    CHECK(scan.match(RelationFileKey{1663, 5, 7}, 0) >= 0);
    CHECK(scan.match(RelationFileKey{1663, 5, 7}, 1) >= 0);
    CHECK(scan.rows().size() == 2);
}

TEST_CASE("thousands of relations are matched exactly", "[buffer_scan]") {
    BufferScan scan;
    for (std::uint32_t relation = 50000; relation > 40000; relation -= 2)
        scan.want(RelationFileKey{1663, 5, relation}, relation, main_only);
    scan.seal();
    CHECK(scan.relation_count() == 5000);
    int matched = 0;
    for (std::uint32_t file = 40000; file <= 50001; ++file)
        matched += scan.match(RelationFileKey{1663, 5, file}, 0) >= 0 ? 1 : 0;
    CHECK(matched == 5000);
}

TEST_CASE("collected blocks are found by relation and fork when file order is not relation order",
          "[buffer_scan]") {
    // file numbers rise while relation ids fall (a rewritten table's new file,
    // say): the slots are in file order, blocks_of() asks by relation
    BufferScan scan;
    scan.collect_blocks();
    for (std::uint32_t i = 0; i < 3000; ++i)
        scan.want(RelationFileKey{1663, 5, 70000 + i}, 30000 - i, main_and_fsm);
    scan.seal();
    for (std::uint32_t i = 0; i < 3000; ++i) {
        const RelationFileKey key{1663, 5, 70000 + i};
        // blocks counted out of order: blocks_of() gives them sorted
        REQUIRE(scan.count_resident_block(scan.match(key, 0), i + 2, false, false, 1));
        REQUIRE(scan.count_resident_block(scan.match(key, 0), i, false, false, 1));
        if (i % 3 == 0)
            REQUIRE(scan.count_resident_block(scan.match(key, 1), 1, false, false, 1));
    }
    const auto rows = scan.rows();
    REQUIRE(rows.size() == 6000);
    CHECK(rows.front().relation_id == 27001);
    CHECK(rows.back().relation_id == 30000);
    for (std::uint32_t i = 0; i < 3000; ++i) {
        const std::uint32_t relation = 30000 - i;
        CHECK(scan.blocks_of(relation, 0) == std::vector<std::uint32_t>{i, i + 2});
        CHECK(scan.blocks_of(relation, 1) == (i % 3 == 0 ? std::vector<std::uint32_t>{1} : std::vector<std::uint32_t>{}));
    }
    CHECK(scan.blocks_of(30000, 2).empty()); // not wanted
    CHECK(scan.blocks_of(12345, 0).empty()); // not a relation of the scan
}

TEST_CASE("hot blocks are those whose buffer was used again, kept apart and sorted", "[buffer_scan]") {
    BufferScan scan;
    scan.collect_blocks();
    const RelationFileKey key{1663, 5, 16384};
    scan.want(key, 16384, main_and_fsm);
    scan.seal();
    // usage counts 0..5 over blocks 9..0: 2 and more is hot
    for (std::uint32_t block = 0; block < 10; ++block)
        REQUIRE(scan.count_resident_block(scan.match(key, 0), 9 - block, false, false, static_cast<int>(block % 6)));
    REQUIRE(scan.count_resident_block(scan.match(key, 1), 0, false, false, 1));
    scan.rows();
    CHECK(scan.blocks_of(16384, 0) == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    // block 9 - b had usage b % 6: hot are b = 2, 3, 4, 5, 8, 9
    CHECK(scan.hot_blocks_of(16384, 0) == std::vector<std::uint32_t>{0, 1, 4, 5, 6, 7});
    CHECK(scan.hot_blocks_of(16384, 1).empty());
    CHECK(scan.hot_blocks_of(12345, 0).empty());
}

TEST_CASE("wanting after sealing is refused", "[buffer_scan]") {
    BufferScan scan;
    scan.seal();
    const RelationFileKey late{1, 2, 3};
    CHECK_THROWS_AS(scan.want(late, 3, main_only), pg_cachectl::InvalidArgument);
}

TEST_CASE("the bridge runs a buffer scan without letting an exception out", "[buffer_scan][bridge]") {
    cachectl_error error{};
    std::unique_ptr<cachectl_buffer_scan, decltype(&cachectl_buffer_scan_free)> scan(
        cachectl_buffer_scan_create(&error), &cachectl_buffer_scan_free);
    REQUIRE(scan != nullptr);

    const cachectl_relation_file_key key{1663, 5, 42};
    const int64_t blocks[CACHECTL_FORK_COUNT] = {10, -1, 1, -1};
    REQUIRE(cachectl_buffer_scan_want(scan.get(), &key, 42, blocks, &error) == CACHECTL_OK);
    REQUIRE(cachectl_buffer_scan_seal(scan.get(), &error) == CACHECTL_OK);

    // wanting after the seal comes back as a status, not an exception
    CHECK(cachectl_buffer_scan_want(scan.get(), &key, 42, blocks, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(error.status == CACHECTL_INVALID_ARGUMENT);
    CHECK(std::string(error.bug).find("sealed") != std::string::npos);
    CHECK(cachectl_buffer_scan_want(nullptr, &key, 42, blocks, &error) == CACHECTL_INVALID_ARGUMENT);

    const int slot = cachectl_buffer_scan_match(scan.get(), &key, 0);
    REQUIRE(slot >= 0);
    CHECK(cachectl_buffer_scan_match(scan.get(), &key, 1) == -1);
    CHECK(cachectl_buffer_scan_match(nullptr, &key, 0) == -1);
    cachectl_buffer_scan_count_eviction(scan.get(), slot, CACHECTL_FLUSHED_AND_EVICTED);
    cachectl_buffer_scan_count_eviction(scan.get(), slot, CACHECTL_SKIPPED);

    REQUIRE(cachectl_buffer_scan_finish(scan.get(), &error) == CACHECTL_OK);
    REQUIRE(cachectl_buffer_scan_row_count(scan.get()) == 2);
    cachectl_buffer_row row{};
    cachectl_buffer_scan_row(scan.get(), 0, &row);
    CHECK(row.relation_id == 42);
    CHECK(row.fork_number == 0);
    CHECK(row.size_blocks == 10);
    CHECK(row.buffers_evicted == 1);
    CHECK(row.buffers_flushed == 1);
    CHECK(row.buffers_skipped == 1);
    cachectl_buffer_scan_row(scan.get(), 1, &row);
    CHECK(row.fork_number == 2);
    row.fork_number = -1; // an index past the rows leaves the row as it was
    cachectl_buffer_scan_row(scan.get(), 2, &row);
    CHECK(row.fork_number == -1);
}
