// segment_math.hpp — how relation forks map onto segment files and OS pages.
#pragma once
#include "server_free.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace pg_cachectl {

// The kernel's page size, from sysconf (never assumed to be 4 KB).
std::int64_t os_page_size();

// How many pages of page_size a file of `bytes` spans (a partial last page counts).
std::int64_t pages_spanned(std::int64_t bytes, std::int64_t page_size);

// The file of a segment: base for segment 0, base.N after it.
std::string segment_path(std::string_view base_path, int segment);

// A byte range of a file.
struct ByteRange {
    std::int64_t offset = 0;
    std::int64_t length = 0;
};

// The window of at most window_bytes that starts at `offset` in a file of
// file_bytes; empty once offset reaches the end.  window_bytes must be a
// positive multiple of the page size, so windows stay page aligned for mmap.
ByteRange window_at(std::int64_t offset, std::int64_t file_bytes, std::int64_t window_bytes);

} // namespace pg_cachectl
