// block_lists.cpp — block lists against maps, as runs, and drawn in two layers.
#include "pg_cachectl/block_lists.hpp"

#include "pg_cachectl/block_drawing.hpp"
#include "pg_cachectl/core_errors.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace pg_cachectl {

std::int64_t count_blocks_in_map(std::span<const std::uint32_t> blocks, const BitmapView &map) {
    std::int64_t count = 0;
    for (std::uint32_t block : blocks)
        if (static_cast<std::int64_t>(block) < map.size() && map.test(block))
            ++count;
    return count;
}

std::vector<BlockRange> runs_of_blocks(std::span<const std::uint32_t> blocks) {
    std::vector<BlockRange> runs;
    for (std::uint32_t block : blocks) {
        if (!runs.empty() && runs.back().end() == static_cast<std::int64_t>(block))
            runs.back().count++;
        else if (runs.empty() || runs.back().end() < static_cast<std::int64_t>(block))
            runs.push_back(BlockRange{block, 1});
    }
    return runs;
}

std::string draw_two_layers(std::span<const std::uint32_t> shared_blocks, const BitmapView &os_map, int width) {
    if (width < 1 || width > max_drawing_width)
        throw InvalidArgument("the width must be between 1 and " + std::to_string(max_drawing_width));
    const std::int64_t blocks = os_map.size();
    if (blocks == 0)
        return "||\nno blocks";
    const std::int64_t per_character = (blocks + width - 1) / width;
    std::string drawing = "|";
    std::size_t next_shared = 0;
    for (std::int64_t first = 0; first < blocks; first += per_character) {
        const std::int64_t end = std::min(blocks, first + per_character);
        std::array<std::int64_t, 4> cells{};
        std::int64_t shared_in_run = 0;
        std::int64_t both_in_run = 0;
        while (next_shared < shared_blocks.size() && shared_blocks[next_shared] < end) {
            const std::int64_t block = shared_blocks[next_shared++];
            if (block < first)
                continue;
            ++shared_in_run;
            both_in_run += os_map.test(block) ? 1 : 0;
        }
        const std::int64_t os_in_run = os_map.count(first, end);
        cells[static_cast<int>(LayerCell::both)] = both_in_run;
        cells[static_cast<int>(LayerCell::shared_only)] = shared_in_run - both_in_run;
        cells[static_cast<int>(LayerCell::os_only)] = os_in_run - both_in_run;
        cells[static_cast<int>(LayerCell::neither)] = (end - first) - shared_in_run - (os_in_run - both_in_run);
        // the most common state; on a tie, the one that says more is cached
        int chosen = 0;
        for (int cell = 1; cell < 4; ++cell)
            if (cells[cell] >= cells[chosen])
                chosen = cell;
        static constexpr std::array<char, 4> characters{' ', 'o', 's', '#'};
        drawing += characters[chosen];
    }
    drawing += "|\n";
    drawing += std::to_string(blocks) + (blocks == 1 ? " block, " : " blocks, ");
    drawing += per_character == 1 ? std::string("1 block") : std::to_string(per_character) + " blocks";
    drawing += " a character, drawn as most of them are: '#' in both, 's' shared buffers only, 'o' OS cache only, "
               "' ' neither";
    return drawing;
}

} // namespace pg_cachectl
