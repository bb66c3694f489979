// block_drawing.cpp — block maps as strips of characters.
#include "block_drawing.hpp"

#include "core_errors.hpp"

namespace pg_cachectl {

char share_character(std::int64_t set, std::int64_t total) {
    if (set <= 0 || total <= 0)
        return ' ';
    if (set >= total)
        return '#';
    return 2 * set >= total ? ':' : '.';
}

std::string draw_strip(std::int64_t blocks, int width, const RunCharacter &run_character, std::string_view legend) {
    if (width < 1 || width > max_drawing_width)
        throw InvalidArgument("the width must be between 1 and " + std::to_string(max_drawing_width));
    if (blocks == 0)
        return "||\nno blocks";
    const std::int64_t per_character = (blocks + width - 1) / width;
    std::string drawing = "|";
    for (std::int64_t first = 0; first < blocks; first += per_character)
        drawing += run_character(first, std::min(blocks, first + per_character));
    drawing += "|\n";
    drawing += std::to_string(blocks) + (blocks == 1 ? " block, " : " blocks, ");
    drawing += per_character == 1 ? std::string("1 block") : std::to_string(per_character) + " blocks";
    drawing += " a character";
    drawing += legend;
    return drawing;
}

std::string draw_block_map(const BitmapView &map, int width) {
    return draw_strip(
        map.size(), width,
        [&map](std::int64_t first, std::int64_t end) { return share_character(map.count(first, end), end - first); },
        "; ' ' none, '.' under half, ':' half or more, '#' all");
}

} // namespace pg_cachectl
