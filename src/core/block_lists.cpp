// block_lists.cpp — block lists against maps, as runs, and drawn in two layers.
#include "block_lists.hpp"

#include "block_drawing.hpp"
#include "core_errors.hpp"

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
    std::size_t next_shared = 0; // the runs come in order: walk the sorted blocks once
    auto run_character = [&](std::int64_t first, std::int64_t end) {
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
        std::array<std::int64_t, 4> cells{};
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
        return characters[chosen];
    };
    return draw_strip(os_map.size(), width, run_character,
                      ", drawn as most of them are: '#' in both, 's' shared buffers only, 'o' OS cache only, "
                      "' ' neither");
}

} // namespace pg_cachectl
