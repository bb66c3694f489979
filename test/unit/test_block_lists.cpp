// test_block_lists.cpp — block numbers found in shared buffers against OS
// maps: counting the double-cached ones, runs, the two-layer strip, and the
// OS residency of chosen blocks on a real file.
#include "block_lists.hpp"
#include "block_residency.hpp"
#include "buffer_scan.hpp"
#include "core_errors.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::TempDirectory;
using test::TempFile;

constexpr std::int64_t block_size = 8192;

struct Map {
    explicit Map(const std::string &bits)
        : bytes(static_cast<std::size_t>(bitmap_bytes(static_cast<std::int64_t>(bits.size())))),
          view(bytes, static_cast<std::int64_t>(bits.size())) {
        for (std::size_t index = 0; index < bits.size(); ++index)
            if (bits[index] == '1')
                view.set(static_cast<std::int64_t>(index));
    }
    std::vector<std::uint8_t> bytes;
    BitmapView view;
};

TEST_CASE("the blocks of a fork compared in the two layers") {
    Map os("1100110011");
    const std::vector<std::uint32_t> shared{0, 2, 4, 5, 9, 15};
    const LayerCounts whole = compare_layers(shared, os.view, 0, 10);
    CHECK(whole.both_blocks == 4);        // 0, 4, 5, 9
    CHECK(whole.shared_only_blocks == 1); // 2; 15 is past the map
    CHECK(whole.os_only_blocks == 2);     // 1, 8
    CHECK(whole.neither_blocks == 3);     // 3, 6, 7
    const LayerCounts part = compare_layers(shared, os.view, 2, 6);
    CHECK(part.both_blocks == 2);
    CHECK(part.shared_only_blocks == 1);
    CHECK(part.os_only_blocks == 0);
    CHECK(part.neither_blocks == 1);
    const std::vector<std::uint32_t> repeated{4, 4, 5};
    CHECK(compare_layers(repeated, os.view, 0, 100).both_blocks == 2); // the end is the map's
    const LayerCounts none = compare_layers({}, os.view, 0, 10);
    CHECK(none.os_only_blocks == 6);
    CHECK(none.neither_blocks == 4);
    CHECK(compare_layers(shared, os.view, 7, 3).neither_blocks == 0); // an empty range
}

TEST_CASE("block numbers are sorted the same by radix as by std::sort, repeats and the whole range included") {
    for (const std::size_t count : {std::size_t{0}, std::size_t{5}, std::size_t{4095}, std::size_t{4096}, std::size_t{70000}}) {
        std::vector<std::uint32_t> blocks(count);
        std::uint32_t state = 12345;
        for (std::uint32_t &block : blocks) {
            state = state * 1664525u + 1013904223u; // a fixed sequence over all 32 bits
            block = state % 3 == 0 ? state : state >> 12;
        }
        if (count > 10) {
            blocks[3] = blocks[7]; // a repeat
            blocks[1] = 0xffffffffu;
            blocks[2] = 0;
        }
        std::vector<std::uint32_t> expected = blocks;
        std::sort(expected.begin(), expected.end());
        sort_block_numbers(blocks);
        INFO("count " << count);
        CHECK(blocks == expected);
    }
}

TEST_CASE("sorted block numbers become runs") {
    const std::vector<std::uint32_t> blocks{3, 4, 5, 9, 10, 20};
    CHECK(runs_of_blocks(blocks) == std::vector<BlockRange>{{3, 3}, {9, 2}, {20, 1}});
    CHECK(runs_of_blocks({}).empty());
    const std::vector<std::uint32_t> repeated{1, 1, 2};
    CHECK(runs_of_blocks(repeated) == std::vector<BlockRange>{{1, 2}});
}

TEST_CASE("the two-layer strip shows what most blocks of each run are") {
    Map os("11110000" "11110000");
    // blocks 0..3 in both, 4..7 shared only, 8..11 OS only, 12..15 neither
    const std::vector<std::uint32_t> shared{0, 1, 2, 3, 4, 5, 6, 7};
    const std::string drawing = draw_two_layers(shared, os.view, 4);
    CHECK(drawing.substr(0, drawing.find('\n')) == "|#so |");
    CHECK(drawing.find("16 blocks, 4 blocks a character") != std::string::npos);
    // one block a character when the width allows
    const std::string fine = draw_two_layers(shared, os.view, 64);
    CHECK(fine.substr(0, fine.find('\n')) == "|####ssssoooo    |");
    Map none("");
    CHECK(draw_two_layers({}, none.view, 10) == "||\nno blocks");
    CHECK_THROWS_AS(draw_two_layers(shared, os.view, 0), InvalidArgument);
}

TEST_CASE("a buffer pass keeps the block numbers it found, sorted per fork") {
    BufferScan scan;
    const RelationFileKey key{1663, 5, 16384};
    scan.want(key, 16384, {10, 2, -1, -1});
    scan.collect_blocks();
    scan.seal();
    const int main_slot = scan.match(key, 0);
    const int fsm_slot = scan.match(key, 1);
    REQUIRE(main_slot >= 0);
    REQUIRE(fsm_slot >= 0);
    CHECK(scan.count_resident_block(main_slot, 7, true, false, 3));
    CHECK(scan.count_resident_block(main_slot, 2, false, false, 1));
    CHECK(scan.count_resident_block(fsm_slot, 1, false, true, 5));
    CHECK(scan.blocks_complete());
    const std::vector<BufferScan::Row> rows = scan.rows();
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].tally.shared_blocks == 2);
    CHECK(rows[0].tally.shared_dirty_blocks == 1);
    CHECK(scan.blocks_of(16384, 0) == std::vector<std::uint32_t>{2, 7});
    CHECK(scan.blocks_of(16384, 1) == std::vector<std::uint32_t>{1});
    CHECK(scan.blocks_of(16384, 2).empty());
    CHECK(scan.blocks_of(99, 0).empty());
}

TEST_CASE("blocks must be asked for before the scan is sealed") {
    BufferScan scan;
    scan.seal();
    CHECK_THROWS_AS(scan.collect_blocks(), InvalidArgument);
}

TEST_CASE("the OS residency of chosen blocks, across segments") {
    TempDirectory dir;
    TempFile first(dir, "800");
    TempFile second(dir, "800.1");
    const std::int64_t segment_bytes = 64 * block_size;
    first.append(segment_bytes);
    second.append(16 * block_size);
    first.drop_from_cache();
    second.drop_from_cache();
    first.disable_readahead();
    second.disable_readahead();
    first.read_range(2 * block_size, 3 * block_size);  // blocks 2..4
    second.read_range(0, block_size);                  // block 64
    const std::int64_t pages_per_block = std::max<std::int64_t>(1, block_size / page_size());

    const std::vector<std::uint32_t> chosen{1, 2, 3, 4, 63, 64, 65};
    for (EngineChoice engine : {EngineChoice::mincore, EngineChoice::automatic}) {
        INFO("engine " << static_cast<int>(engine));
        CHECK(os_pages_of_blocks(first.path(), segment_bytes, block_size, chosen, engine) == 4 * pages_per_block);
    }
    // a segment that is gone counts nothing
    const std::vector<std::uint32_t> past{200, 201};
    CHECK(os_pages_of_blocks(first.path(), segment_bytes, block_size, past, EngineChoice::automatic) == 0);
}

} // namespace
} // namespace pg_cachectl
