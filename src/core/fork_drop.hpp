// fork_drop.hpp — dropping a relation fork from the OS page cache without
// losing a write (DESIGN.md, "Linux facts"): POSIX_FADV_DONTNEED skips dirty
// and under-writeback pages, so each segment file is first written back —
// sync_file_range(SYNC_FILE_RANGE_WRITE) in bounded chunks, then fsync —
// and only then advised away.
//
// A failed writeback must reach PostgreSQL's crash-and-recover path: after
// it the pages are clean, so DONTNEED would throw away the only current copy,
// and fsync reports an error only once.  So a failure stops the segment where
// it happened and is returned with the call that failed; the shim raises it
// at PostgreSQL's data_sync_elevel.  Files are opened read-only.
//
// Between the writeback and the fsync each chunk is waited for on its own
// (sync_file_range with WAIT_BEFORE | WRITE | WAIT_AFTER): one fsync of a
// 1 GiB segment could wait seconds on a slow disk with no point where a
// cancel could act; after the chunked waits the fsync finds little to do.
#pragma once
#include "server_free.hpp"

#include "posix_handles.hpp"

#include <cstdint>
#include <string>

namespace pg_cachectl {

// The call of the sequence that failed.
enum class DropCall { start_writeback, wait_writeback, fsync, advise };

struct DropFailure {
    DropCall call = DropCall::start_writeback;
    int error_number = 0;
    std::string path;
};

class ForkDrop {
  public:
    static constexpr std::int64_t default_chunk_bytes = std::int64_t{64} << 20;

    // The fork whose first segment file is base_path (base_path.1, ... after
    // it, read as md.c reads them).
    ForkDrop(std::string base_path, std::int64_t segment_bytes, std::int64_t chunk_bytes = default_chunk_bytes);

    // Only bytes [first_byte, end_byte) of the fork (counted across its
    // segments): written back and dropped there, segments outside skipped.
    void limit_to(std::int64_t first_byte, std::int64_t end_byte);

    enum class Step { more, done, failed };

    // One bounded unit: a chunk's writeback, the wait for a chunk's
    // writeback, a segment's fsync or its DONTNEED.  On `failed`, failure()
    // says what; calling again after a start_writeback failure goes on with
    // the next chunk (PostgreSQL warns and goes on there too); after a wait,
    // fsync or advise failure the segment is abandoned and the next one is
    // taken.  Throws SystemError when a file
    // cannot be opened or examined.
    Step step();

    const DropFailure &failure() const { return failure_; }
    std::int64_t bytes_written_back() const { return bytes_written_back_; }
    int segments_dropped() const { return segments_dropped_; }

  private:
    enum class Phase { open, write_back, wait_writeback, fsync, advise };

    void next_segment();

    std::string base_path_;
    std::int64_t segment_bytes_;
    std::int64_t chunk_bytes_;
    int segment_ = 0;
    Phase phase_ = Phase::open;
    UniqueFd fd_;
    std::string path_;
    std::int64_t size_ = 0;
    std::int64_t offset_ = 0;
    std::int64_t work_start_ = 0;  // where this segment's work begins
    std::int64_t segment_end_ = 0; // where this segment's work ends
    std::int64_t range_first_ = 0;
    std::int64_t range_end_ = -1; // -1: the whole fork
    bool last_segment_ = false;
    bool finished_ = false;
    std::int64_t bytes_written_back_ = 0;
    int segments_dropped_ = 0;
    DropFailure failure_;
};

} // namespace pg_cachectl
