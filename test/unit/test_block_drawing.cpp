// test_block_drawing.cpp — block maps drawn for psql.
#include "block_drawing.hpp"
#include "core_errors.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

std::string draw(const std::string &bits, int width) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(bitmap_bytes(static_cast<std::int64_t>(bits.size()))));
    BitmapView view(bytes, static_cast<std::int64_t>(bits.size()));
    for (std::size_t index = 0; index < bits.size(); ++index)
        if (bits[index] == '1')
            view.set(static_cast<std::int64_t>(index));
    return draw_block_map(view, width);
}

std::string strip_of(const std::string &drawing) {
    return drawing.substr(0, drawing.find('\n'));
}

TEST_CASE("shares map to rising characters") {
    CHECK(share_character(0, 10) == ' ');
    CHECK(share_character(1, 10) == '.');
    CHECK(share_character(4, 10) == '.');
    CHECK(share_character(5, 10) == ':');
    CHECK(share_character(9, 10) == ':');
    CHECK(share_character(10, 10) == '#');
    CHECK(share_character(0, 0) == ' ');
}

TEST_CASE("one character per block when the map fits the width") {
    CHECK(strip_of(draw("1100", 64)) == "|##  |");
    CHECK(draw("1100", 64).find("4 blocks, 1 block a character") != std::string::npos);
}

TEST_CASE("runs of blocks per character when it does not") {
    // 16 blocks in 4 characters: 4 blocks each
    CHECK(strip_of(draw("1111000011001000", 4)) == "|# :.|");
    // 10 blocks in 3 characters: 4, 4 and 2 blocks
    CHECK(strip_of(draw("1111111100", 3)) == "|## |");
    CHECK(draw("1111111100", 3).find("10 blocks, 4 blocks a character") != std::string::npos);
}

TEST_CASE("the strip never passes the width") {
    for (int width : {1, 7, 64, 100})
        for (std::size_t blocks : {1u, 63u, 64u, 65u, 1000u}) {
            const std::string strip = strip_of(draw(std::string(blocks, '1'), width));
            CHECK(strip.size() - 2 <= static_cast<std::size_t>(width));
            CHECK(strip.size() - 2 >= 1);
        }
}

TEST_CASE("an empty map and absurd widths") {
    CHECK(draw("", 10) == "||\nno blocks");
    CHECK_THROWS_AS(draw("1", 0), InvalidArgument);
    CHECK_THROWS_AS(draw("1", -1), InvalidArgument);
    CHECK_THROWS_AS(draw("1", max_drawing_width + 1), InvalidArgument);
}

} // namespace
} // namespace pg_cachectl
