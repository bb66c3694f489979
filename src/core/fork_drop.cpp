// fork_drop.cpp — write back, fsync, DONTNEED, one segment file at a time.
#include "fork_drop.hpp"

#include "core_errors.hpp"
#include "file_calls.hpp"
#include "segment_math.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace pg_cachectl {

ForkDrop::ForkDrop(std::string base_path, std::int64_t segment_bytes, std::int64_t chunk_bytes)
    : base_path_(std::move(base_path)), segment_bytes_(segment_bytes), chunk_bytes_(chunk_bytes) {
    if (base_path_.empty() || segment_bytes <= 0 || chunk_bytes <= 0)
        throw InvalidArgument("a fork drop needs a path, a segment size and a chunk size");
}

void ForkDrop::limit_to(std::int64_t first_byte, std::int64_t end_byte) {
    if (first_byte < 0 || end_byte < first_byte)
        throw InvalidArgument("a drop range must not be negative or reversed");
    range_first_ = first_byte;
    range_end_ = end_byte;
}

void ForkDrop::next_segment() {
    fd_ = UniqueFd();
    if (last_segment_) {
        finished_ = true;
        return;
    }
    ++segment_;
    phase_ = Phase::open;
}

ForkDrop::Step ForkDrop::step() {
    if (finished_)
        return Step::done;

    switch (phase_) {
    case Phase::open: {
        path_ = segment_path(base_path_, segment_);
        try {
            fd_ = open_relation_file(path_);
        } catch (const SystemError &error) {
            if (error.error_number() != ENOENT)
                throw;
            finished_ = true; // a missing file ends the fork, as for md.c
            return Step::done;
        }
        struct stat file_status {};
        if (::fstat(fd_.get(), &file_status) != 0)
            throw SystemError(errno, SystemCall::stat).on_file(path_);
        size_ = static_cast<std::int64_t>(file_status.st_size);
        last_segment_ = size_ < segment_bytes_;
        offset_ = 0;
        segment_end_ = size_;
        if (range_end_ >= 0) {
            // the part of the range inside this segment, in its own offsets
            const std::int64_t segment_start = static_cast<std::int64_t>(segment_) * segment_bytes_;
            offset_ = std::clamp(range_first_ - segment_start, std::int64_t{0}, size_);
            segment_end_ = std::clamp(range_end_ - segment_start, std::int64_t{0}, size_);
            if (range_end_ <= segment_start + segment_bytes_)
                last_segment_ = true;
            if (offset_ >= segment_end_) {
                next_segment(); // nothing of the range here
                return finished_ ? Step::done : Step::more;
            }
        }
        work_start_ = offset_;
        phase_ = Phase::write_back;
        return Step::more;
    }
    case Phase::write_back: {
        if (offset_ >= segment_end_) {
            offset_ = work_start_;
            phase_ = Phase::wait_writeback;
            return Step::more;
        }
        const std::int64_t length = std::min(chunk_bytes_, segment_end_ - offset_);
        const int rc = file_calls().sync_file_range(fd_.get(), offset_, length, SYNC_FILE_RANGE_WRITE);
        const int error_number = rc == 0 ? 0 : errno;
        offset_ += length;
        if (rc == 0) {
            bytes_written_back_ += length;
            return Step::more;
        }
        if (error_number == ENOSYS) {
            offset_ = segment_end_; // no such call on this filesystem: fsync does the work
            phase_ = Phase::fsync;
            return Step::more;
        }
        failure_ = DropFailure{DropCall::start_writeback, error_number, path_};
        return Step::failed;
    }
    case Phase::wait_writeback: {
        if (offset_ >= segment_end_) {
            phase_ = Phase::fsync;
            return Step::more;
        }
        const std::int64_t length = std::min(chunk_bytes_, segment_end_ - offset_);
        const unsigned int wait_for_chunk =
            SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
        const int rc = file_calls().sync_file_range(fd_.get(), offset_, length, wait_for_chunk);
        offset_ += length;
        if (rc == 0)
            return Step::more;
        // the wait reports a failed writeback as fsync does (and, like it,
        // only once for this descriptor): the same failure, the same level
        failure_ = DropFailure{DropCall::wait_writeback, errno, path_};
        next_segment(); // never advise pages whose writeback failed away
        return Step::failed;
    }
    case Phase::fsync: {
        if (file_calls().fsync(fd_.get()) != 0) {
            failure_ = DropFailure{DropCall::fsync, errno, path_};
            next_segment(); // never advise pages whose writeback failed away
            return Step::failed;
        }
        phase_ = Phase::advise;
        return Step::more;
    }
    case Phase::advise: {
        // the whole file, or the range's part of it
        const std::int64_t drop_first =
            range_end_ >= 0 ? std::clamp(range_first_ - static_cast<std::int64_t>(segment_) * segment_bytes_,
                                         std::int64_t{0}, size_)
                            : 0;
        const std::int64_t drop_length = range_end_ >= 0 ? segment_end_ - drop_first : 0;
        const int error_number = file_calls().fadvise(fd_.get(), drop_first, drop_length, POSIX_FADV_DONTNEED);
        if (error_number != 0) {
            failure_ = DropFailure{DropCall::advise, error_number, path_};
            next_segment();
            return Step::failed;
        }
        ++segments_dropped_;
        next_segment();
        return finished_ ? Step::done : Step::more;
    }
    }
    return Step::done;
}

} // namespace pg_cachectl
