// fork_prefetch.cpp — plan, advise in measured chunks, wait with mincore.
#include "fork_prefetch.hpp"

#include "core_errors.hpp"
#include "file_calls.hpp"
#include "os_page_cache.hpp"
#include "run_lists.hpp"
#include "segment_math.hpp"
#include "storage_facts.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace pg_cachectl {

namespace {

using Clock = std::chrono::steady_clock;

// A call that queued nothing this many times in a row is stepped over.
constexpr int max_calls_without_progress = 3;

// Bits of a map counted in one step: 16 MB of it, a few milliseconds.
constexpr std::int64_t count_slice_bits = std::int64_t{1} << 27;

std::chrono::microseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

} // namespace

PageRange pages_of_blocks(const BlockRange &range, std::int64_t segment_first_block, std::int64_t block_size,
                          std::int64_t page_size) {
    const std::int64_t first_byte = (range.first - segment_first_block) * block_size;
    const std::int64_t end_byte = (range.end() - segment_first_block) * block_size;
    const std::int64_t first_page = first_byte / page_size;
    const std::int64_t end_page = (end_byte + page_size - 1) / page_size;
    return PageRange{first_page, end_page - first_page};
}

ForkPrefetch::ForkPrefetch(std::string base_path, std::int64_t segment_bytes, std::int64_t block_size,
                           std::vector<BlockRange> blocks, Options options)
    : base_path_(std::move(base_path)), segment_bytes_(segment_bytes), block_size_(block_size),
      page_size_(os_page_size()), blocks_(normalized_runs(std::move(blocks))), options_(options) {
    if (base_path_.empty() || block_size <= 0 || segment_bytes <= 0 || segment_bytes % block_size != 0)
        throw InvalidArgument("a prefetch needs a path and a segment size that is a multiple of the block size");
    if (options_.window_bytes <= 0 || options_.window_bytes % page_size_ != 0)
        throw InvalidArgument("the mincore window must be a positive multiple of the page size");
    for (const BlockRange &range : blocks_)
        blocks_asked_ += range.count;
    started_ = Clock::now();
    last_progress_ = started_;
}

ForkPrefetch::ForkPrefetch(std::string base_path, std::int64_t segment_bytes, std::int64_t block_size, BitmapView map,
                           Options options)
    : ForkPrefetch(std::move(base_path), segment_bytes, block_size, std::vector<BlockRange>{}, options) {
    map_ = map;
}

// Plans the requested blocks of one segment file, as md.c reads a fork: up
// to the first segment shorter than a full one.  One file a step, so that
// the shim sees a cancel between files of a large fork.
void ForkPrefetch::plan_next_segment() {
    const std::int64_t blocks_per_segment = segment_bytes_ / block_size_;
    const std::int64_t segment_first_block = plan_segment_ * blocks_per_segment;
    const std::int64_t last_asked_end = map_ ? map_->size() : (blocks_.empty() ? 0 : blocks_.back().end());
    if (segment_first_block >= last_asked_end) {
        finish_plan(segment_first_block);
        return;
    }
    const std::string path = segment_path(base_path_, plan_segment_);
    struct stat file_status {};
    if (::stat(path.c_str(), &file_status) != 0) {
        if (errno == ENOENT) {
            finish_plan(segment_first_block);
            return;
        }
        throw SystemError(errno, SystemCall::stat).on_file(path);
    }
    check_relation_file(path, file_status); // a FIFO, a device, another user's file: refused
    const std::int64_t size = static_cast<std::int64_t>(file_status.st_size);
    const std::int64_t segment_end_block = segment_first_block + size / block_size_;

    PlannedSegment planned{plan_segment_, path, {}};
    auto add = [&](const BlockRange &range) {
        const std::int64_t first = std::max(range.first, segment_first_block);
        const std::int64_t end = std::min(range.end(), segment_end_block);
        if (first >= end)
            return;
        blocks_requested_ += end - first;
        PageRange pages = pages_of_blocks(BlockRange{first, end - first}, segment_first_block, block_size_, page_size_);
        if (!planned.pages.empty() && pages.first <= planned.pages.back().end())
            planned.pages.back().count = std::max(planned.pages.back().end(), pages.end()) - planned.pages.back().first;
        else
            planned.pages.push_back(pages);
    };
    if (map_) {
        for (const BlockRange &range : map_->runs(segment_first_block, segment_end_block))
            add(range);
    } else {
        for (std::size_t index = plan_range_; index < blocks_.size() && blocks_[index].first < segment_end_block;
             ++index)
            add(blocks_[index]);
        while (plan_range_ < blocks_.size() && blocks_[plan_range_].end() <= segment_end_block)
            ++plan_range_;
    }
    for (const PageRange &pages : planned.pages)
        pages_requested_ += pages.count;
    if (!planned.pages.empty())
        planned_segments_.push_back(std::move(planned));
    ++plan_segment_;
    if (size < segment_bytes_)
        finish_plan(segment_end_block);
}

// The fork ends at fork_end_block: what was asked beyond it is only counted.
void ForkPrefetch::finish_plan(std::int64_t fork_end_block) {
    if (map_) {
        past_end_counted_to_ = fork_end_block;
        return;
    }
    blocks_past_end_ = blocks_asked_ - blocks_requested_;
    planned_ = true;
}

// Counts one slice of the map's bits past the fork's end.
void ForkPrefetch::count_past_end_slice() {
    const std::int64_t to = std::min(map_->size(), *past_end_counted_to_ + count_slice_bits);
    blocks_past_end_ += map_->count(*past_end_counted_to_, to);
    past_end_counted_to_ = to;
    planned_ = to >= map_->size();
}

int ForkPrefetch::segment_fd(std::size_t planned_index) {
    if (open_index_ == planned_index)
        return open_fd_.get();
    const std::string &path = planned_segments_[planned_index].path;
    try {
        open_fd_ = open_relation_file(path);
        open_index_ = planned_index;
        measure_with_cachestat_ = choose_engine(options_.engine, open_fd_.get()) == Engine::cachestat;
        if (options_.cap_bytes <= 0) {
            // Every segment of a fork lives in one directory, so on one device.
            options_.cap_bytes = std::max(willneed_cap_bytes(open_fd_.get()), page_size_);
            filesystem_ = filesystem_kind(open_fd_.get());
        }
    } catch (const SystemError &error) {
        throw error.on_file(path);
    }
    return open_fd_.get();
}

// How many pages at the start of `advised` are now in the page cache (read or
// in flight): the first page a WILLNEED call did not queue is the next to ask.
std::int64_t ForkPrefetch::queued_prefix_pages(int fd, const PageRange &advised) {
    auto cached_in = [&](std::int64_t pages) {
        std::optional<CacheCounts> counts =
            cachestat_range(fd, advised.first * page_size_, pages * page_size_, nullptr);
        if (!counts)
            throw SystemError(EPERM, SystemCall::cachestat, planned_segments_[advise_segment_].path);
        return counts->os_pages;
    };
    if (cached_in(advised.count) >= advised.count)
        return advised.count;
    // Binary search for the longest prefix that is wholly cached.
    std::int64_t whole = 0;
    std::int64_t not_whole = advised.count;
    while (not_whole - whole > 1) {
        const std::int64_t middle = whole + (not_whole - whole) / 2;
        if (cached_in(middle) >= middle)
            whole = middle;
        else
            not_whole = middle;
    }
    return whole;
}

ForkPrefetch::Step ForkPrefetch::advise_next_chunk() {
    while (advise_segment_ < planned_segments_.size() &&
           advise_range_ >= planned_segments_[advise_segment_].pages.size()) {
        ++advise_segment_;
        advise_range_ = 0;
        advise_page_ = 0;
    }
    if (advise_segment_ >= planned_segments_.size()) {
        queued_ = true;
        return Step{};
    }

    const std::chrono::microseconds delay = options_.throttle.delay_before_more(bytes_advised_, since(started_));
    if (delay.count() > 0)
        return Step{false, delay};

    const int fd = segment_fd(advise_segment_);
    const PageRange &range = planned_segments_[advise_segment_].pages[advise_range_];
    const std::int64_t chunk_bytes = options_.throttle.burst_bytes(page_size_, options_.cap_bytes);
    const std::int64_t chunk_pages = std::max<std::int64_t>(1, chunk_bytes / page_size_);
    const PageRange advised{range.first + advise_page_, std::min(chunk_pages, range.count - advise_page_)};

    const int error_number =
        file_calls().fadvise(fd, advised.first * page_size_, advised.count * page_size_, POSIX_FADV_WILLNEED);
    ++willneed_calls_;
    if (error_number != 0)
        throw SystemError(error_number, SystemCall::fadvise_willneed).on_file(planned_segments_[advise_segment_].path);

    std::int64_t advanced = advised.count;
    if (measure_with_cachestat_) {
        const std::int64_t queued = queued_prefix_pages(fd, advised);
        if (queued > 0 || ++calls_without_progress_ >= max_calls_without_progress) {
            advanced = queued > 0 ? queued : advised.count; // stuck: step over it, waiting will tell
            calls_without_progress_ = 0;
        } else
            advanced = 0;
    }
    advise_page_ += advanced;
    bytes_advised_ += advanced * page_size_;
    if (advise_page_ >= range.count) {
        ++advise_range_;
        advise_page_ = 0;
    }
    return Step{};
}

void ForkPrefetch::advise_pages(std::size_t planned_index, const PageRange &pages) {
    const int fd = segment_fd(planned_index);
    const std::int64_t chunk_pages = std::max<std::int64_t>(1, options_.cap_bytes / page_size_);
    for (std::int64_t done = 0; done < pages.count; done += chunk_pages) {
        const std::int64_t count = std::min(chunk_pages, pages.count - done);
        const int error_number =
            file_calls().fadvise(fd, (pages.first + done) * page_size_, count * page_size_, POSIX_FADV_WILLNEED);
        ++willneed_calls_;
        if (error_number != 0)
            throw SystemError(error_number, SystemCall::fadvise_willneed, planned_segments_[planned_index].path);
    }
}

void ForkPrefetch::build_pending() {
    const std::int64_t window_pages = options_.window_bytes / page_size_;
    for (std::size_t index = 0; index < planned_segments_.size(); ++index)
        for (const PageRange &range : planned_segments_[index].pages)
            for (std::int64_t done = 0; done < range.count; done += window_pages)
                pending_.push_back(
                    PendingPiece{index, PageRange{range.first + done, std::min(window_pages, range.count - done)}, 0});
}

// Measures every pending piece with mincore, one mapping per window of
// neighbouring pieces of a file, and forgets the pieces wholly read.
void ForkPrefetch::poll_pending() {
    const std::int64_t window_pages = options_.window_bytes / page_size_;
    std::vector<unsigned char> residency;
    std::size_t group_start = 0;
    while (group_start < pending_.size()) {
        std::size_t group_end = group_start + 1;
        const PendingPiece &first = pending_[group_start];
        while (group_end < pending_.size() && pending_[group_end].planned_index == first.planned_index &&
               pending_[group_end].pages.end() - first.pages.first <= window_pages)
            ++group_end;
        const std::int64_t span_first = first.pages.first;
        const std::int64_t span_end = pending_[group_end - 1].pages.end();
        const int fd = segment_fd(first.planned_index);
        try {
            mincore_page_vector(fd, span_first * page_size_, (span_end - span_first) * page_size_, residency);
        } catch (const SystemError &error) {
            throw error.on_file(planned_segments_[first.planned_index].path);
        }
        for (std::size_t index = group_start; index < group_end; ++index) {
            PendingPiece &piece = pending_[index];
            std::int64_t resident = 0;
            for (std::int64_t page = piece.pages.first; page < piece.pages.end(); ++page)
                resident += residency[static_cast<std::size_t>(page - span_first)] & 1;
            piece.resident = resident;
        }
        group_start = group_end;
    }

    std::int64_t resident_now = pages_resident_done_;
    std::vector<PendingPiece> still_pending;
    for (const PendingPiece &piece : pending_) {
        if (piece.resident >= piece.pages.count)
            pages_resident_done_ += piece.pages.count;
        else
            still_pending.push_back(piece);
        resident_now += piece.resident;
    }
    pending_ = std::move(still_pending);
    if (resident_now > most_pages_resident_) {
        most_pages_resident_ = resident_now;
        last_progress_ = Clock::now();
    }
    os_pages_after_ = resident_now;
}

ForkPrefetch::Step ForkPrefetch::wait_step() {
    const auto poll_started = Clock::now();
    poll_pending();
    if (pending_.empty() || !options_.wait) {
        finished_ = true;
        return Step{true};
    }
    const auto quiet = Clock::now() - last_progress_;
    if (quiet >= options_.stall_timeout / 3 && !readvised_) {
        // Pages can be reclaimed before they are read, or a call refused:
        // ask once more for what is still missing.
        for (const PendingPiece &piece : pending_)
            advise_pages(piece.planned_index, piece.pages);
        readvised_ = true;
        last_progress_ = Clock::now();
    } else if (quiet >= options_.stall_timeout && readvised_) {
        stalled_ = true;
        finished_ = true;
        return Step{true};
    }
    // Poll again soon, but never spend more than a third of the time polling.
    const auto poll_cost = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - poll_started);
    const auto interval = std::chrono::duration_cast<std::chrono::microseconds>(options_.poll_interval);
    return Step{false, std::max(interval, 2 * poll_cost)};
}

ForkPrefetch::Step ForkPrefetch::step() {
    if (finished_)
        return Step{true};
    if (!planned_) {
        if (past_end_counted_to_)
            count_past_end_slice();
        else
            plan_next_segment();
        return Step{};
    }
    if (!queued_) {
        Step advised = advise_next_chunk();
        if (queued_) {
            build_pending();
            last_progress_ = Clock::now(); // waiting starts now
        }
        return advised;
    }
    return wait_step();
}

} // namespace pg_cachectl
