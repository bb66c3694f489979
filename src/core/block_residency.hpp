// block_residency.hpp — how many OS pages of given blocks of a fork are in
// the page cache: the double-cached part of the blocks found in shared
// buffers, without measuring the rest of the fork.
#pragma once
#include "server_free.hpp"

#include "engine_choice.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace pg_cachectl {

// The cached OS pages of the (sorted, unique) blocks of the fork whose
// first segment file is base_path: cachestat per run of blocks where it
// works, else mincore per window of a run.  Segment files that are missing
// (dropped or truncated meanwhile) count nothing.  Throws SystemError.
std::int64_t os_pages_of_blocks(const std::string &base_path, std::int64_t segment_bytes, std::int64_t block_size,
                                std::span<const std::uint32_t> blocks, EngineChoice engine);

} // namespace pg_cachectl
