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

// How many of the (sorted, unique) blocks have their bit set in map.
std::int64_t count_blocks_in_map(std::span<const std::uint32_t> blocks, const BitmapView &map);

// The (sorted, unique) blocks as runs of consecutive blocks.
std::vector<BlockRange> runs_of_blocks(std::span<const std::uint32_t> blocks);

// What a block of a fork holds, in the two layers.
enum class LayerCell { neither, os_only, shared_only, both };

// Two layers as a strip (block_drawing.hpp style): each character is a run
// of blocks, drawn as what most of them are — ' ' neither, 'o' OS cache only,
// 's' shared buffers only, '#' both — then a legend.
std::string draw_two_layers(std::span<const std::uint32_t> shared_blocks, const BitmapView &os_map, int width);

} // namespace pg_cachectl
