// block_drawing.hpp — a block map as a strip of characters a person reads
// in psql: each character stands for a run of blocks and shows how much of
// the run is set.
#pragma once
#include "server_free.hpp"

#include "bitmap.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace pg_cachectl {

constexpr int max_drawing_width = 10000;

// The character for a run with `set` of `total` bits set: ' ' none, '.'
// under half, ':' half or more, '#' all.
char share_character(std::int64_t set, std::int64_t total);

// The frame every drawing shares: `blocks` blocks cut into runs so that at
// most `width` characters (1 to max_drawing_width; InvalidArgument
// otherwise) stand between '|' marks, each the character `run_character`
// gives for its run [first, end) — runs are asked for in order — then a
// line saying how many blocks a character stands for, and `legend`.
using RunCharacter = std::function<char(std::int64_t first, std::int64_t end)>;
std::string draw_strip(std::int64_t blocks, int width, const RunCharacter &run_character, std::string_view legend);

// Two lines: the strip between '|' marks, at most `width` characters (1 to
// max_drawing_width; InvalidArgument otherwise), then a legend saying how
// many blocks a character stands for.
std::string draw_block_map(const BitmapView &map, int width);

} // namespace pg_cachectl
