// block_lists.cpp — block lists against maps, as runs, and drawn in two layers.
#include "block_lists.hpp"

#include "block_drawing.hpp"
#include "core_errors.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace pg_cachectl {

void sort_block_numbers(std::vector<std::uint32_t> &blocks) {
    // below this, std::sort is as quick and needs no second buffer
    constexpr std::size_t radix_from = 4096;
    if (blocks.size() < radix_from) {
        std::sort(blocks.begin(), blocks.end());
        return;
    }
    std::vector<std::uint32_t> spare(blocks.size());
    for (const int shift : {0, 16}) {
        // a stable counting pass on 16 bits: the low half first, then the high
        std::vector<std::size_t> starts(65537, 0);
        for (const std::uint32_t block : blocks)
            ++starts[((block >> shift) & 0xffff) + 1];
        for (std::size_t digit = 1; digit < starts.size(); ++digit)
            starts[digit] += starts[digit - 1];
        for (const std::uint32_t block : blocks)
            spare[starts[(block >> shift) & 0xffff]++] = block;
        blocks.swap(spare);
    }
}

LayerCounts compare_layers(std::span<const std::uint32_t> shared_blocks, const BitmapView &os_map, std::int64_t first,
                           std::int64_t end) {
    LayerCounts counts;
    first = std::max<std::int64_t>(first, 0);
    end = std::min(end, os_map.size());
    if (first >= end)
        return counts;
    auto block = std::lower_bound(shared_blocks.begin(), shared_blocks.end(), first,
                                  [](std::uint32_t number, std::int64_t value) { return number < value; });
    std::int64_t shared = 0;
    std::int64_t previous = -1;
    for (; block != shared_blocks.end() && static_cast<std::int64_t>(*block) < end; ++block) {
        if (static_cast<std::int64_t>(*block) == previous)
            continue;
        previous = *block;
        ++shared;
        counts.both_blocks += os_map.test(*block) ? 1 : 0;
    }
    counts.shared_only_blocks = shared - counts.both_blocks;
    counts.os_only_blocks = os_map.count(first, end) - counts.both_blocks;
    counts.neither_blocks = (end - first) - shared - counts.os_only_blocks;
    return counts;
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
    auto run_character = [&](std::int64_t first, std::int64_t end) {
        const LayerCounts counts = compare_layers(shared_blocks, os_map, first, end);
        std::array<std::int64_t, 4> cells{};
        cells[static_cast<int>(LayerCell::both)] = counts.both_blocks;
        cells[static_cast<int>(LayerCell::shared_only)] = counts.shared_only_blocks;
        cells[static_cast<int>(LayerCell::os_only)] = counts.os_only_blocks;
        cells[static_cast<int>(LayerCell::neither)] = counts.neither_blocks;
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
