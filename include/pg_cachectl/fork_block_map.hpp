// fork_block_map.hpp — the OS block map of a relation fork: one bit per
// block, set when every OS page of the block is in the page cache.
//
// The fork is walked in windows aligned to both the block and the page
// size.  Where cachestat works, it first finds the segments and windows
// that hold no cached page at all (nearly free to ask, however large the
// file), and only the others are mapped and asked with mincore — the one
// engine that tells which pages, and only those whose read has finished.
#pragma once
#include "pg_cachectl/server_free.hpp"

#include "pg_cachectl/bitmap.hpp"
#include "pg_cachectl/engine_choice.hpp"
#include "pg_cachectl/posix_handles.hpp"

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

namespace pg_cachectl {

class ForkBlockMap {
  public:
    static constexpr std::int64_t default_window_bytes = std::int64_t{128} << 20;

    // Sets bits of `map` (already cleared, one bit per block of the fork
    // whose first segment file is base_path) for the cached blocks.
    ForkBlockMap(BitmapView map, std::string base_path, std::int64_t segment_bytes, std::int64_t block_size,
                 EngineChoice engine, std::int64_t window_bytes = default_window_bytes);

    // Works one window at a time until done (true) or *cancel_flag is set
    // (false; calling again resumes).  Throws SystemError.
    bool run(const volatile std::sig_atomic_t *cancel_flag);

    std::int64_t windows_skipped() const { return windows_skipped_; } // found empty by cachestat
    std::int64_t windows_mapped() const { return windows_mapped_; }

  private:
    // Returns whether the fork is done.
    bool next_window();
    void mark_window(std::int64_t offset, std::int64_t length);

    BitmapView map_;
    std::string base_path_;
    std::int64_t segment_bytes_;
    std::int64_t block_size_;
    std::int64_t page_size_;
    EngineChoice engine_;
    std::int64_t window_bytes_;

    int segment_ = 0;
    UniqueFd fd_;
    std::string path_;
    std::int64_t segment_size_ = 0; // bytes of whole blocks within the map
    std::int64_t offset_ = 0;
    bool last_segment_ = false;
    bool use_cachestat_ = false;
    bool done_ = false;
    std::vector<unsigned char> residency_;
    std::int64_t windows_skipped_ = 0;
    std::int64_t windows_mapped_ = 0;
};

} // namespace pg_cachectl
