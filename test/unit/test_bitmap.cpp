// test_bitmap.cpp — bit strings in varbit order: the layout os_map returns
// and os_restore reads, counting, and coalescing set bits into block runs.
#include "bitmap.hpp"
#include "core_errors.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

// A bitmap from a string of '0' and '1', as B'...' literals are written.
struct BitString {
    explicit BitString(const std::string &text)
        : bytes(static_cast<std::size_t>(bitmap_bytes(static_cast<std::int64_t>(text.size()))), 0),
          view(bytes, static_cast<std::int64_t>(text.size())) {
        for (std::size_t index = 0; index < text.size(); ++index)
            if (text[index] == '1')
                view.set(static_cast<std::int64_t>(index));
    }
    std::vector<std::uint8_t> bytes;
    BitmapView view;
};

TEST_CASE("bit 0 is the high bit of the first byte, as in a varbit") {
    BitString bits("1000000001");
    CHECK(bits.bytes[0] == 0x80);
    CHECK(bits.bytes[1] == 0x40);
    CHECK(bits.view.test(0));
    CHECK_FALSE(bits.view.test(1));
    CHECK(bits.view.test(9));
    CHECK(bits.view.size() == 10);
}

TEST_CASE("a range of bits is set whole, from any bit to any bit, and clipped to the map") {
    for (std::int64_t from = 0; from < 20; ++from)
        for (std::int64_t to = from; to <= 90; to += 7) {
            BitString bits(std::string(83, '0'));
            bits.view.set(from, to);
            INFO("from " << from << " to " << to);
            for (std::int64_t index = 0; index < 83; ++index)
                REQUIRE(bits.view.test(index) == (index >= from && index < to));
        }
    BitString bits(std::string(10, '0'));
    bits.view.set(-5, 3);
    CHECK(bits.view.count() == 3);
}

TEST_CASE("a bitmap needs room for every bit") {
    std::vector<std::uint8_t> bytes(1);
    CHECK_NOTHROW(BitmapView(bytes, 8));
    CHECK_THROWS_AS(BitmapView(bytes, 9), InvalidArgument);
    CHECK_THROWS_AS(BitmapView(bytes, -1), InvalidArgument);
    CHECK(bitmap_bytes(0) == 0);
    CHECK(bitmap_bytes(1) == 1);
    CHECK(bitmap_bytes(8) == 1);
    CHECK(bitmap_bytes(17) == 3);
}

TEST_CASE("counting set bits over any range, byte aligned or not") {
    BitString bits("1101111111111111110000000000000001");
    CHECK(bits.view.count() == 18);
    CHECK(bits.view.count(0, 2) == 2);
    CHECK(bits.view.count(2, 3) == 0);
    CHECK(bits.view.count(3, 18) == 15);
    CHECK(bits.view.count(18, 34) == 1);
    CHECK(bits.view.count(5, 5) == 0);
    CHECK(bits.view.count(-4, 100) == 18); // clamped to the bitmap
}

TEST_CASE("runs of set bits are coalesced into block ranges") {
    SECTION("several runs, across byte boundaries") {
        BitString bits("0111000011111111111100010");
        CHECK(bits.view.runs() == std::vector<BlockRange>{{1, 3}, {8, 12}, {23, 1}});
    }
    SECTION("nothing set") {
        BitString bits(std::string(100, '0'));
        CHECK(bits.view.runs().empty());
    }
    SECTION("everything set: one run") {
        BitString bits(std::string(77, '1'));
        CHECK(bits.view.runs() == std::vector<BlockRange>{{0, 77}});
    }
    SECTION("a run that ends with the last bit of a partial byte") {
        BitString bits("0000000000011");
        CHECK(bits.view.runs() == std::vector<BlockRange>{{11, 2}});
    }
    SECTION("an empty bitmap") {
        BitString bits("");
        CHECK(bits.view.runs().empty());
        CHECK(bits.view.count() == 0);
    }
    SECTION("alternating bits: one run each") {
        BitString bits("10101");
        CHECK(bits.view.runs() == std::vector<BlockRange>{{0, 1}, {2, 1}, {4, 1}});
    }
}

TEST_CASE("runs within bounds are cut at the bounds") {
    BitString bits(std::string(3, '0') + std::string(150, '1') + "0101");
    CHECK(bits.view.runs(0, 3).empty());
    CHECK(bits.view.runs(10, 80) == std::vector<BlockRange>{{10, 70}});
    CHECK(bits.view.runs(150, 1000) == std::vector<BlockRange>{{150, 3}, {154, 1}, {156, 1}});
    CHECK(bits.view.runs(-5, 4) == std::vector<BlockRange>{{3, 1}});
}

TEST_CASE("runs and the bits they came from agree on a large pattern") {
    const std::int64_t size = 10000;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(bitmap_bytes(size)));
    BitmapView view(bytes, size);
    std::int64_t expected = 0;
    for (std::int64_t index = 0; index < size; ++index)
        if ((index / 37) % 3 == 0 || index % 101 == 0) {
            view.set(index);
            ++expected;
        }
    std::int64_t covered = 0;
    std::int64_t previous_end = -1;
    for (const BlockRange &run : view.runs()) {
        CHECK(run.first > previous_end); // disjoint, ordered, never touching
        for (std::int64_t index = run.first; index < run.end(); ++index)
            REQUIRE(view.test(index));
        if (run.first > 0)
            CHECK_FALSE(view.test(run.first - 1));
        if (run.end() < size)
            CHECK_FALSE(view.test(run.end()));
        covered += run.count;
        previous_end = run.end();
    }
    CHECK(covered == expected);
    CHECK(view.count() == expected);
}

TEST_CASE("long runs, counted and skipped a word at a time, match a bit-by-bit count") {
    // Runs hundreds of bits long at odd offsets: whole 64-bit words of set
    // and clear bits, and the partial words and bytes around them.
    const std::int64_t size = 20011;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(bitmap_bytes(size)));
    BitmapView view(bytes, size);
    std::vector<BlockRange> expected_runs;
    for (std::int64_t first = 3; first < size; first += 1100) {
        const BlockRange run{first, std::min<std::int64_t>(517 + first % 7, size - first)};
        for (std::int64_t index = run.first; index < run.end(); ++index)
            view.set(index);
        expected_runs.push_back(run);
    }
    CHECK(view.runs() == expected_runs);
    auto slow_count = [&view](std::int64_t from, std::int64_t to) {
        std::int64_t total = 0;
        for (std::int64_t index = from; index < to; ++index)
            total += view.test(index) ? 1 : 0;
        return total;
    };
    for (std::int64_t from = 0; from < size; from += 613)
        for (std::int64_t to = from; to <= size; to += 1531)
            REQUIRE(view.count(from, to) == slow_count(from, to));
    CHECK(view.count() == slow_count(0, size));
}

} // namespace
} // namespace pg_cachectl
