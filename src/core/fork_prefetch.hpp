// fork_prefetch.hpp — loading block ranges of a relation fork into the OS
// page cache with POSIX_FADV_WILLNEED, and waiting until they are read.
//
// One WILLNEED call queues at most the device's read-ahead cap (see
// storage_facts.hpp), so the ranges are advised in chunks of that size; and
// since the cap is a guess, cachestat measures what each call really queued
// (it counts reads in flight) and the next call starts at the first page it
// did not.  Waiting uses mincore, which counts only pages whose read has
// finished: never cachestat, nor a report's block map (fork_block_map.hpp),
// both of which count pages whose read is still in flight.  Every unit of
// work is one step, so the shim checks interrupts, sleeps for the throttle
// and reports progress between steps.
#pragma once
#include "server_free.hpp"

#include "bitmap.hpp"
#include "engine_choice.hpp"
#include "posix_handles.hpp"
#include "storage_facts.hpp"
#include "throttle.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pg_cachectl {

// OS pages [first, first + count) of one file.
struct PageRange {
    std::int64_t first = 0;
    std::int64_t count = 0;

    std::int64_t end() const { return first + count; }
    bool operator==(const PageRange &) const = default;
};

// The OS pages that hold blocks [range) of a segment file, the segment's
// first block being segment_first_block: block-aligned bytes rounded out to
// whole pages (a page larger than a block holds several blocks).
PageRange pages_of_blocks(const BlockRange &range, std::int64_t segment_first_block, std::int64_t block_size,
                          std::int64_t page_size);

class ForkPrefetch {
  public:
    struct Options {
        EngineChoice engine = EngineChoice::automatic;
        Throttle throttle;
        bool wait = true;
        std::int64_t cap_bytes = 0; // per WILLNEED call; 0: read from the device
        std::chrono::milliseconds poll_interval{20};
        std::chrono::milliseconds stall_timeout{3000}; // no page read for this long: give up waiting
        std::int64_t window_bytes = std::int64_t{128} << 20;
    };

    // Blocks of the fork whose first segment file is base_path; ranges in
    // any order (they are sorted and merged).
    ForkPrefetch(std::string base_path, std::int64_t segment_bytes, std::int64_t block_size,
                 std::vector<BlockRange> blocks, Options options);

    // The blocks whose bits are set in map, which must outlive the job.  The
    // map is read a segment file at a time, and only as far as the fork's
    // files reach: the bits past its end are counted, never made into runs
    // (a map may hold 2^31 bits for a fork of a few blocks).
    ForkPrefetch(std::string base_path, std::int64_t segment_bytes, std::int64_t block_size, BitmapView map,
                 Options options);

    struct Step {
        bool finished = false;
        std::chrono::microseconds delay{0}; // sleep this long, then step again
    };

    // One bounded unit: planning one segment file, one WILLNEED chunk, or
    // one residency poll.
    // Throws SystemError.
    Step step();

    std::int64_t blocks_requested() const { return blocks_requested_; } // that exist in the fork
    std::int64_t blocks_past_end() const { return blocks_past_end_; }
    std::int64_t pages_requested() const { return pages_requested_; }
    std::int64_t os_pages_after() const { return os_pages_after_; } // of those, read, as last measured
    std::int64_t bytes_advised() const { return bytes_advised_; }
    std::int64_t willneed_calls() const { return willneed_calls_; }
    std::int64_t cap_bytes() const { return options_.cap_bytes; }
    bool stalled() const { return stalled_; }
    // Where the files are, as far as cache advice goes (known once one is open).
    FilesystemKind filesystem() const { return filesystem_; }

  private:
    struct PlannedSegment {
        int segment = 0;
        std::string path;
        std::vector<PageRange> pages; // sorted, disjoint
    };
    // A piece of the requested pages not yet read, at most a window long.
    struct PendingPiece {
        std::size_t planned_index = 0;
        PageRange pages;
        std::int64_t resident = 0;
    };

    void plan_next_segment();
    void finish_plan(std::int64_t fork_end_block);
    void count_past_end_slice();
    int segment_fd(std::size_t planned_index);
    std::int64_t queued_prefix_pages(int fd, const PageRange &advised);
    Step advise_next_chunk();
    void advise_pages(std::size_t planned_index, const PageRange &pages);
    void build_pending();
    void poll_pending();
    Step wait_step();

    std::string base_path_;
    std::int64_t segment_bytes_;
    std::int64_t block_size_;
    std::int64_t page_size_;
    std::vector<BlockRange> blocks_;
    std::optional<BitmapView> map_; // instead of blocks_
    Options options_;

    bool planned_ = false;
    bool queued_ = false;
    bool finished_ = false;
    std::vector<PlannedSegment> planned_segments_;
    int plan_segment_ = 0;                            // the next segment file to plan
    std::size_t plan_range_ = 0;                      // the first of blocks_ not wholly planned
    std::int64_t blocks_asked_ = 0;                   // of blocks_
    std::optional<std::int64_t> past_end_counted_to_; // of map_, once its fork's end is known
    std::int64_t blocks_requested_ = 0;
    std::int64_t blocks_past_end_ = 0;
    std::int64_t pages_requested_ = 0;

    // the open segment file
    std::optional<std::size_t> open_index_;
    UniqueFd open_fd_;
    bool measure_with_cachestat_ = false;

    // where advising stands
    std::size_t advise_segment_ = 0;
    std::size_t advise_range_ = 0;
    std::int64_t advise_page_ = 0; // next page to advise within the range
    int calls_without_progress_ = 0;

    std::vector<PendingPiece> pending_;
    std::int64_t os_pages_after_ = 0;
    std::int64_t pages_resident_done_ = 0; // in pieces already complete
    // The most pages ever seen resident: only passing it is progress, so
    // pages another session drops and then reads again while we wait do
    // not keep the wait alive for ever.
    std::int64_t most_pages_resident_ = 0;
    bool readvised_ = false;
    bool stalled_ = false;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_progress_;
    std::int64_t bytes_advised_ = 0;
    std::int64_t willneed_calls_ = 0;
    FilesystemKind filesystem_ = FilesystemKind::ordinary;
};

} // namespace pg_cachectl
