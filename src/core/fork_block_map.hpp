// fork_block_map.hpp — the OS block map of a relation fork: one bit per
// block, set when every OS page of the block is in the page cache.  A
// report's map (status, draw, os_map, snapshots): it may count pages whose
// read is still in flight; a wait must never build on it (ForkPrefetch asks
// mincore itself).
//
// The fork is walked in windows aligned to both the block and the page
// size.  Where cachestat works, it classifies each window by its count of
// cached pages: none (every bit stays clear), all (every bit is set without
// mapping the window: DESIGN.md, "Linux facts", rules that a page whose read
// is in flight counts as cached for a report), or some — and a window partly
// cached is classified again in pieces of a few MiB, of which only the
// partly cached are mapped and asked with mincore, which tells which pages.
// Reclaim leaves holes in most windows once it has left them in one, so
// the window after a partly cached one is classified in pieces at once
// (cachestat walks it once, not twice), until a window has no partly
// cached piece.  Under the mincore engine every window is mapped.
//
// The same cachestat calls count the fork's dirty pages (each whole window
// once), so a report needs no second walk for them (status's os_dirty_pages).
#pragma once
#include "server_free.hpp"

#include "bitmap.hpp"
#include "engine_choice.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pg_cachectl {

class ForkBlockMap {
  public:
    // The mincore window (the most one mapping covers).
    static constexpr std::int64_t default_window_bytes = std::int64_t{128} << 20;
    // The pieces a partly cached window is classified in (when window_bytes
    // is not smaller): small enough that a partly cached stretch costs little
    // mincore, large enough that a GiB takes a thousand calls.  With three
    // holes per 128 MiB of a 1 GiB cached half, os_map took 10.0-10.2 ms with
    // 1 MiB pieces, 11.2 ms with 256 KiB and 12.6-12.7 ms with 4 MiB
    // (bench/both_layers.sh part 1h, cachestat alone 8.0-8.3 ms).
    static constexpr std::int64_t piece_window_bytes = std::int64_t{1} << 20;

    // Sets bits of `map` (already cleared, one bit per block of the fork
    // whose first segment file is base_path) for the cached blocks.
    ForkBlockMap(BitmapView map, std::string base_path, std::int64_t segment_bytes, std::int64_t block_size,
                 EngineChoice engine, std::int64_t window_bytes = default_window_bytes);

    // Maps one window (or piece); returns whether the map is done.  Throws
    // SystemError.
    bool step();

    // Windows and pieces as cachestat classified them, and those mincore
    // looked at (every window under the mincore engine).
    std::int64_t windows_skipped() const { return windows_skipped_; } // no page cached
    std::int64_t windows_full() const { return windows_full_; }       // every page cached
    std::int64_t windows_mapped() const { return windows_mapped_; }
    // Whole windows cachestat counted and then counted again in pieces.
    std::int64_t windows_counted_twice() const { return windows_counted_twice_; }

    // The dirty OS pages of the mapped blocks, as cachestat counted them;
    // nothing when any segment was walked with mincore alone (which cannot
    // tell).  Read once the map is done.
    std::optional<std::int64_t> os_dirty_pages() const {
        return dirty_known_ ? std::optional<std::int64_t>(os_dirty_pages_) : std::nullopt;
    }

  private:
    enum class Cached { none, all, some };

    // Returns whether the fork is done.
    bool next_window();
    Cached cached_in(std::int64_t offset, std::int64_t length, bool whole);
    void classify_window(const ByteRange &window, bool whole);
    void start_window(const ByteRange &window);
    void map_window(const ByteRange &window);
    void set_window(std::int64_t offset, std::int64_t length);
    void mark_window(std::int64_t offset, std::int64_t length);

    BitmapView map_;
    std::string base_path_;
    std::int64_t segment_bytes_;
    std::int64_t block_size_;
    std::int64_t page_size_;
    EngineChoice engine_;
    std::int64_t window_bytes_;
    std::int64_t piece_bytes_;

    int segment_ = 0;
    UniqueFd fd_;
    std::string path_;
    std::int64_t segment_size_ = 0; // bytes of whole blocks within the map
    std::int64_t offset_ = 0;
    std::int64_t pieces_end_ = 0; // end of the partly cached window whose pieces are next
    bool pieces_count_dirty_ = false; // the window of these pieces was not counted whole
    bool window_partly_cached_ = false; // of the last window: its count, or any of its pieces
    bool last_segment_ = false;
    bool use_cachestat_ = false;
    bool done_ = false;
    std::vector<unsigned char> residency_;
    std::int64_t windows_skipped_ = 0;
    std::int64_t windows_full_ = 0;
    std::int64_t windows_mapped_ = 0;
    std::int64_t windows_counted_twice_ = 0;
    std::int64_t os_dirty_pages_ = 0;
    bool dirty_known_;
};

} // namespace pg_cachectl
