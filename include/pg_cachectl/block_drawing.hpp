// block_drawing.hpp — a block map as a strip of characters a person reads
// in psql: each character stands for a run of blocks and shows how much of
// the run is set.
#pragma once
#include "pg_cachectl/server_free.hpp"

#include "pg_cachectl/bitmap.hpp"

#include <cstdint>
#include <string>

namespace pg_cachectl {

constexpr int max_drawing_width = 10000;

// The character for a run with `set` of `total` bits set: ' ' none, '.'
// under half, ':' half or more, '#' all.
char share_character(std::int64_t set, std::int64_t total);

// Two lines: the strip between '|' marks, at most `width` characters (1 to
// max_drawing_width; InvalidArgument otherwise), then a legend saying how
// many blocks a character stands for.
std::string draw_block_map(const BitmapView &map, int width);

} // namespace pg_cachectl
