// block_lists.hpp — sorted lists of block numbers (the blocks of a fork found
// in shared buffers) against block maps and as runs: how the two layers of a
// fork are compared block by block.
#pragma once
#include "server_free.hpp"

#include "bitmap.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pg_cachectl {

// The blocks of [first, end) of a fork (end clipped to the map's size) by
// what they hold in the two layers: shared_blocks are the sorted block
// numbers found in shared buffers (a repeat counts once, those past the
// map's end not at all), os_map has one bit per block of the fork.
struct LayerCounts {
    std::int64_t both_blocks = 0;
    std::int64_t shared_only_blocks = 0;
    std::int64_t os_only_blocks = 0;
    std::int64_t neither_blocks = 0;
};
LayerCounts compare_layers(std::span<const std::uint32_t> shared_blocks, const BitmapView &os_map, std::int64_t first,
                           std::int64_t end);

// Sorts block numbers in place.  A large list (the blocks of a big
// relation found in the pool) is sorted by radix, two passes of 16 bits:
// std::sort of 65,000 numbers was 6 % of a snapshot's CPU.
void sort_block_numbers(std::vector<std::uint32_t> &blocks);

// The (sorted, unique) blocks as runs of consecutive blocks.
std::vector<BlockRange> runs_of_blocks(std::span<const std::uint32_t> blocks);

// What a block of a fork holds, in the two layers.
enum class LayerCell { neither, os_only, shared_only, both };

// Two layers as a strip (block_drawing.hpp style): each character is a run
// of blocks, drawn as what most of them are — ' ' neither, 'o' OS cache only,
// 's' shared buffers only, '#' both — then a legend.
std::string draw_two_layers(std::span<const std::uint32_t> shared_blocks, const BitmapView &os_map, int width);

} // namespace pg_cachectl
