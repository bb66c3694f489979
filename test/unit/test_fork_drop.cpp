// test_fork_drop.cpp — the write-back sequence of os_drop: on real files
// (dirty pages are dropped too, after being written back), and with the
// system calls replaced to see the order of calls and which one failed.
#include "pg_cachectl/os_jobs.h"

#include "core_errors.hpp"
#include "file_calls.hpp"
#include "fork_drop.hpp"
#include "os_page_cache.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::TempDirectory;
using test::TempFile;

std::int64_t segment_bytes() {
    return 64 * page_size();
}

std::int64_t os_pages(int fd, std::int64_t bytes) {
    return mincore_resident_pages(fd, 0, bytes);
}

ForkDrop::Step run_to_end(ForkDrop &drop) {
    ForkDrop::Step step = ForkDrop::Step::more;
    for (int steps = 0; step == ForkDrop::Step::more && steps < 10000; ++steps)
        step = drop.step();
    return step;
}

// What the replaced calls saw, and which to fail.
struct CallLog {
    std::vector<std::string> calls;
    int fail_sync_file_range_at = -1; // index among sync_file_range calls
    int sync_file_range_count = 0;
    int fsync_errno = 0;
    int fadvise_errno = 0;
};
CallLog *active_log = nullptr;

int logged_sync_file_range(int fd, off_t offset, off_t length, unsigned int flags) {
    // a start of writeback, or a wait for it to end
    const char *name = (flags & SYNC_FILE_RANGE_WAIT_AFTER) != 0 ? "wait " : "sync_file_range ";
    active_log->calls.push_back(name + std::to_string(offset / page_size()) + "+" +
                                std::to_string(length / page_size()));
    if (active_log->sync_file_range_count++ == active_log->fail_sync_file_range_at) {
        errno = EIO;
        return -1;
    }
    return ::sync_file_range(fd, offset, length, flags);
}

int logged_fsync(int fd) {
    active_log->calls.push_back("fsync");
    if (active_log->fsync_errno != 0) {
        errno = active_log->fsync_errno;
        return -1;
    }
    return ::fsync(fd);
}

int logged_fadvise(int fd, off_t offset, off_t length, int advice) {
    active_log->calls.push_back(advice == POSIX_FADV_DONTNEED ? "dontneed" : "other advice");
    if (active_log->fadvise_errno != 0)
        return active_log->fadvise_errno;
    return ::posix_fadvise(fd, offset, length, advice);
}

// Puts the logging calls in place for one test.
class LoggedCalls {
  public:
    explicit LoggedCalls(CallLog &log) {
        active_log = &log;
        previous_ = set_file_calls(FileCalls{&logged_fadvise, &logged_sync_file_range, &logged_fsync});
    }
    ~LoggedCalls() {
        set_file_calls(previous_);
        active_log = nullptr;
    }

  private:
    FileCalls previous_;
};

TEST_CASE("a dirty file is written back and then dropped: nothing stays cached") {
    TempDirectory dir;
    TempFile first(dir, "16384");
    TempFile second(dir, "16384.1");
    first.append(segment_bytes());   // full: the fork goes on
    second.append(10 * page_size()); // short: the fork ends here
    // never synced: every page is dirty
    REQUIRE(os_pages(first.fd(), first.size()) == first.pages());

    ForkDrop drop(first.path(), segment_bytes(), 16 * page_size());
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(drop.segments_dropped() == 2);
    CHECK(drop.bytes_written_back() == segment_bytes() + 10 * page_size());
    CHECK(os_pages(first.fd(), first.size()) == 0);
    CHECK(os_pages(second.fd(), second.size()) == 0);
}

TEST_CASE("the sequence: writeback in chunks, a wait per chunk, then fsync, then DONTNEED, per segment") {
    TempDirectory dir;
    TempFile first(dir, "1");
    TempFile second(dir, "1.1");
    first.append(segment_bytes());
    second.append(20 * page_size());
    CallLog log;
    LoggedCalls logged(log);

    ForkDrop drop(first.path(), segment_bytes(), 32 * page_size());
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(log.calls == std::vector<std::string>{"sync_file_range 0+32", "sync_file_range 32+32", "wait 0+32",
                                                "wait 32+32", "fsync", "dontneed", "sync_file_range 0+20", "wait 0+20",
                                                "fsync", "dontneed"});
}

TEST_CASE("a failed start of writeback is reported and the drop goes on") {
    TempDirectory dir;
    TempFile file(dir, "2");
    file.append(segment_bytes() / 2);
    CallLog log;
    log.fail_sync_file_range_at = 0;
    LoggedCalls logged(log);

    ForkDrop drop(file.path(), segment_bytes(), 16 * page_size());
    ForkDrop::Step step = run_to_end(drop);
    REQUIRE(step == ForkDrop::Step::failed);
    CHECK(drop.failure().call == DropCall::start_writeback);
    CHECK(drop.failure().error_number == EIO);
    CHECK(drop.failure().path == file.path());
    // calling again goes on with the next chunk, the waits, fsync and DONTNEED
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(log.calls == std::vector<std::string>{"sync_file_range 0+16", "sync_file_range 16+16", "wait 0+16",
                                                "wait 16+16", "fsync", "dontneed"});
}

TEST_CASE("a failed wait for writeback stops that segment before fsync and DONTNEED") {
    TempDirectory dir;
    TempFile file(dir, "5");
    file.append(segment_bytes() / 2);
    CallLog log;
    log.fail_sync_file_range_at = 2; // the first wait, after two chunks started
    LoggedCalls logged(log);

    ForkDrop drop(file.path(), segment_bytes(), 16 * page_size());
    REQUIRE(run_to_end(drop) == ForkDrop::Step::failed);
    CHECK(drop.failure().call == DropCall::wait_writeback);
    CHECK(drop.failure().error_number == EIO);
    CHECK(drop.failure().path == file.path());
    // the wait consumed the error for this descriptor: the segment is
    // abandoned, never fsynced into a false success nor advised away
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(log.calls == std::vector<std::string>{"sync_file_range 0+16", "sync_file_range 16+16", "wait 0+16"});
    CHECK(drop.segments_dropped() == 0);
}

TEST_CASE("a failed fsync stops that segment before DONTNEED") {
    TempDirectory dir;
    TempFile file(dir, "3");
    file.append(8 * page_size());
    CallLog log;
    log.fsync_errno = EIO;
    LoggedCalls logged(log);

    ForkDrop drop(file.path(), segment_bytes(), 16 * page_size());
    REQUIRE(run_to_end(drop) == ForkDrop::Step::failed);
    CHECK(drop.failure().call == DropCall::fsync);
    CHECK(drop.failure().error_number == EIO);
    // the pages whose writeback failed were never advised away
    CHECK(std::find(log.calls.begin(), log.calls.end(), "dontneed") == log.calls.end());
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(std::find(log.calls.begin(), log.calls.end(), "dontneed") == log.calls.end());
    CHECK(drop.segments_dropped() == 0);
}

TEST_CASE("through the bridge, a failed fsync is the call, errno and file for the shim to word") {
    TempDirectory dir;
    TempFile file(dir, "5");
    file.append(8 * page_size());
    CallLog log;
    log.fsync_errno = EIO;
    LoggedCalls logged(log);

    cachectl_error error{};
    cachectl_os_drop *drop = cachectl_os_drop_create(file.path().c_str(), segment_bytes(), &error);
    REQUIRE(drop != nullptr);
    cachectl_step step{};
    cachectl_status status = CACHECTL_OK;
    for (int steps = 0; status == CACHECTL_OK && !step.finished && steps < 100; ++steps)
        status = cachectl_os_drop_step(drop, &step, &error);
    cachectl_os_drop_free(drop);
    CHECK(status == CACHECTL_WRITE_BACK_FAILED);
    CHECK(error.status == CACHECTL_WRITE_BACK_FAILED);
    CHECK(error.call == CACHECTL_CALL_FSYNC);
    CHECK(error.saved_errno == EIO);
    CHECK(std::string(error.path) == file.path());
}

TEST_CASE("a failed DONTNEED is reported as such") {
    TempDirectory dir;
    TempFile file(dir, "4");
    file.append(4 * page_size());
    CallLog log;
    log.fadvise_errno = EINVAL;
    LoggedCalls logged(log);

    ForkDrop drop(file.path(), segment_bytes());
    REQUIRE(run_to_end(drop) == ForkDrop::Step::failed);
    CHECK(drop.failure().call == DropCall::advise);
    CHECK(drop.failure().error_number == EINVAL);
}

TEST_CASE("a missing fork is done at once; a directory in its place is an error") {
    TempDirectory dir;
    ForkDrop missing(dir.file("no_such_file"), segment_bytes());
    CHECK(missing.step() == ForkDrop::Step::done);
    CHECK(missing.segments_dropped() == 0);

    ForkDrop directory(dir.path(), segment_bytes());
    CHECK_THROWS_AS(directory.step(), UnsafeFile);
}

} // namespace
} // namespace pg_cachectl

namespace pg_cachectl {
namespace {

TEST_CASE("a drop limited to a byte range writes back and drops only there") {
    TempDirectory dir;
    TempFile first(dir, "900");
    TempFile second(dir, "900.1");
    first.append(segment_bytes());
    second.append(segment_bytes() / 2);
    // read back page by page: small folios, which a partial DONTNEED can drop
    // (written in large writes they could sit in folios larger than the range)
    for (TempFile *file : {&first, &second}) {
        file->drop_from_cache();
        file->disable_readahead();
        file->read_range(0, file->size());
    }
    CallLog log;
    LoggedCalls logged(log);

    // the second half of the first segment and the first quarter of the second
    ForkDrop drop(first.path(), segment_bytes(), segment_bytes());
    drop.limit_to(segment_bytes() / 2, segment_bytes() + segment_bytes() / 4);
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    const std::int64_t half = segment_bytes() / 2 / page_size();
    const std::int64_t quarter = segment_bytes() / 4 / page_size();
    CHECK(log.calls == std::vector<std::string>{"sync_file_range " + std::to_string(half) + "+" + std::to_string(half),
                                                "wait " + std::to_string(half) + "+" + std::to_string(half), "fsync",
                                                "dontneed", "sync_file_range 0+" + std::to_string(quarter),
                                                "wait 0+" + std::to_string(quarter), "fsync", "dontneed"});
    CHECK(os_pages(first.fd(), segment_bytes() / 2) == half);
    CHECK(os_pages(second.fd(), second.size()) == second.pages() - quarter);
}

TEST_CASE("a range outside the fork's files drops nothing") {
    TempDirectory dir;
    TempFile file(dir, "901");
    file.append(8 * page_size());
    CallLog log;
    LoggedCalls logged(log);
    ForkDrop drop(file.path(), segment_bytes());
    drop.limit_to(segment_bytes() * 3, segment_bytes() * 4);
    CHECK(run_to_end(drop) == ForkDrop::Step::done);
    CHECK(log.calls.empty());
    CHECK_THROWS_AS(drop.limit_to(5, 4), InvalidArgument);
}

} // namespace
} // namespace pg_cachectl
