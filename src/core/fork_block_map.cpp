// fork_block_map.cpp — segments, windows, cachestat classification, mincore.
#include "fork_block_map.hpp"

#include "core_errors.hpp"
#include "os_page_cache.hpp"
#include "segment_math.hpp"

#include <algorithm>
#include <cerrno>
#include <numeric>
#include <optional>
#include <sys/stat.h>

namespace pg_cachectl {

ForkBlockMap::ForkBlockMap(BitmapView map, std::string base_path, std::int64_t segment_bytes, std::int64_t block_size,
                           EngineChoice engine, std::int64_t window_bytes)
    : map_(map), base_path_(std::move(base_path)), segment_bytes_(segment_bytes), block_size_(block_size),
      page_size_(os_page_size()), engine_(engine), window_bytes_(window_bytes),
      dirty_known_(engine != EngineChoice::mincore) {
    if (base_path_.empty() || block_size <= 0 || segment_bytes <= 0 || segment_bytes % block_size != 0)
        throw InvalidArgument("a block map needs a path and a segment size that is a multiple of the block size");
    // Windows hold whole blocks and whole pages, whichever is larger.
    const std::int64_t unit = std::lcm(block_size, page_size_);
    if (window_bytes <= 0 || window_bytes % unit != 0)
        throw InvalidArgument("the window must be a multiple of both the block size and the page size");
    piece_bytes_ = std::max(unit, std::min(window_bytes, piece_window_bytes) / unit * unit);
}

// What cachestat counts in [offset, offset + length) of the open segment.
// "All" needs every page present: cachestat counts only the pages of a
// folio that lie in the range, and evicted pages apart.
// A range counted once (`whole`: a window, or a piece of a window that was
// not counted whole) adds its dirty pages; the pieces of a window counted
// whole do not (they lie inside it).
ForkBlockMap::Cached ForkBlockMap::cached_in(std::int64_t offset, std::int64_t length, bool whole) {
    std::optional<CacheCounts> counts = cachestat_range(fd_.get(), offset, length, nullptr);
    if (!counts)
        throw SystemError(EPERM, SystemCall::cachestat).on_file(path_);
    if (whole)
        os_dirty_pages_ += counts->os_dirty_pages;
    if (counts->os_pages == 0)
        return Cached::none;
    return counts->os_pages >= pages_spanned(length, page_size_) ? Cached::all : Cached::some;
}

// Sets the bit of every block of [offset, offset + length) of the open segment.
void ForkBlockMap::set_window(std::int64_t offset, std::int64_t length) {
    const std::int64_t first_block = segment_ * (segment_bytes_ / block_size_) + offset / block_size_;
    map_.set(first_block, first_block + length / block_size_);
}

// Sets the bit of every block of [offset, offset + length) of the open
// segment whose pages are all resident, as mincore tells.
void ForkBlockMap::mark_window(std::int64_t offset, std::int64_t length) {
    mincore_page_vector(fd_.get(), offset, length, residency_);
    const std::int64_t blocks_per_segment = segment_bytes_ / block_size_;
    const std::int64_t first_block = segment_ * blocks_per_segment + offset / block_size_;
    const std::int64_t blocks = length / block_size_;
    for (std::int64_t block = 0; block < blocks; ++block) {
        const std::int64_t first_page = block * block_size_ / page_size_;
        const std::int64_t last_page = ((block + 1) * block_size_ - 1) / page_size_;
        bool resident = true;
        for (std::int64_t page = first_page; page <= last_page && resident; ++page)
            resident = (residency_[static_cast<std::size_t>(page)] & 1) != 0;
        if (resident)
            map_.set(first_block + block);
    }
}

// mincore over the window; it is done.
void ForkBlockMap::map_window(const ByteRange &window) {
    try {
        mark_window(window.offset, window.length);
    } catch (const SystemError &error) {
        throw error.on_file(path_);
    }
    ++windows_mapped_;
    offset_ += window.length;
}

// Takes a window by cachestat's count.  A window partly cached is mapped,
// unless it is a whole window larger than a piece: then its pieces come
// next, each classified the same way (a stretch cachestat has walked once
// is walked once more, piece by piece, only where it is partly cached).
void ForkBlockMap::classify_window(const ByteRange &window, bool whole) {
    switch (cached_in(window.offset, window.length, whole)) {
    case Cached::none:
        ++windows_skipped_;
        offset_ += window.length;
        return;
    case Cached::all:
        set_window(window.offset, window.length);
        ++windows_full_;
        offset_ += window.length;
        return;
    case Cached::some:
        window_partly_cached_ = true;
        if (whole && window.length > piece_bytes_) {
            pieces_end_ = window.offset + window.length;
            pieces_count_dirty_ = false;
            ++windows_counted_twice_;
        } else
            map_window(window);
        return;
    }
}

// Classifies a new window whole, or, after a partly cached one, in pieces
// at once (each counting its own dirty pages, as the window is not).
void ForkBlockMap::start_window(const ByteRange &window) {
    const bool in_pieces = window_partly_cached_ && window.length > piece_bytes_;
    window_partly_cached_ = false;
    if (!in_pieces) {
        classify_window(window, true);
        return;
    }
    pieces_end_ = window.offset + window.length;
    pieces_count_dirty_ = true;
    classify_window(window_at(offset_, pieces_end_, piece_bytes_), true);
}

bool ForkBlockMap::next_window() {
    const std::int64_t blocks_per_segment = segment_bytes_ / block_size_;
    if (!fd_.valid()) {
        const std::int64_t segment_first_block = segment_ * blocks_per_segment;
        if (segment_first_block >= map_.size())
            return true;
        path_ = segment_path(base_path_, segment_);
        try {
            fd_ = open_relation_file(path_);
        } catch (const SystemError &error) {
            if (error.error_number() == ENOENT)
                return true; // the fork ends here (it may have shrunk since it was sized)
            throw error.on_file(path_);
        }
        struct stat file_status {};
        if (::fstat(fd_.get(), &file_status) != 0)
            throw SystemError(errno, SystemCall::stat).on_file(path_);
        const std::int64_t file_size = static_cast<std::int64_t>(file_status.st_size);
        const std::int64_t blocks_in_map = std::min(file_size / block_size_, map_.size() - segment_first_block);
        segment_size_ = blocks_in_map * block_size_;
        offset_ = 0;
        pieces_end_ = 0;
        use_cachestat_ = choose_engine(engine_, fd_.get()) == Engine::cachestat;
        if (!use_cachestat_)
            dirty_known_ = false;
        last_segment_ = file_size < segment_bytes_;
    }

    if (offset_ < segment_size_) {
        if (!use_cachestat_)
            map_window(window_at(offset_, segment_size_, window_bytes_));
        else if (offset_ < pieces_end_)
            classify_window(window_at(offset_, pieces_end_, piece_bytes_), pieces_count_dirty_);
        else
            start_window(window_at(offset_, segment_size_, window_bytes_));
        return false;
    }
    fd_ = UniqueFd();
    ++segment_;
    return last_segment_;
}

bool ForkBlockMap::step() {
    if (!done_)
        done_ = next_window();
    return done_;
}

} // namespace pg_cachectl
