// test_bridge.cpp — the C ABI the PostgreSQL shim calls: statuses, errno and
// messages it raises from, rows it returns, the steps it is driven in.
#include "pg_cachectl/bridge.h"

#include "bridge_steps.hpp"
#include "os_page_cache.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::pages_of;
using test::TempDirectory;
using test::TempFile;

struct ReportFree {
    void operator()(cachectl_residency_report *report) const noexcept { cachectl_residency_report_free(report); }
};
using ReportHandle = std::unique_ptr<cachectl_residency_report, ReportFree>;

ReportHandle create_report(cachectl_os_engine engine) {
    cachectl_error error{};
    ReportHandle report(cachectl_residency_report_create(engine, &error));
    INFO("create failed: status " << error.status << ", " << error.bug);
    REQUIRE(report != nullptr);
    return report;
}

// What the shim would copy out of a row, in a form Catch can compare.
struct RowSnapshot {
    int fork_number = 0;
    int segment = 0;
    std::string path;
    cachectl_os_engine engine = CACHECTL_ENGINE_AUTO;
    std::int64_t size_bytes = 0, size_pages = 0, os_pages = 0, os_dirty_pages = 0, os_writeback_pages = 0;
    bool has_cachestat_counters = false;

    bool operator==(const RowSnapshot &) const = default;
};

std::ostream &operator<<(std::ostream &out, const RowSnapshot &row) {
    return out << "{" << row.fork_number << "/" << row.segment << " " << row.path << " engine " << row.engine
               << " size_bytes " << row.size_bytes << " size_pages " << row.size_pages << " os_pages " << row.os_pages
               << " os_dirty_pages " << row.os_dirty_pages << " os_writeback_pages " << row.os_writeback_pages << "}";
}

std::vector<RowSnapshot> rows_of(const cachectl_residency_report *report) {
    std::vector<RowSnapshot> rows;
    const std::size_t count = cachectl_residency_report_row_count(report);
    for (std::size_t index = 0; index < count; ++index) {
        cachectl_segment_row row{};
        cachectl_residency_report_row(report, index, &row);
        REQUIRE(row.path != nullptr);
        rows.push_back(RowSnapshot{row.fork_number, row.segment, row.path, row.engine, row.counts.size_bytes,
                                   row.counts.size_pages, row.counts.os_pages, row.counts.os_dirty_pages,
                                   row.counts.os_writeback_pages, row.counts.has_cachestat_counters});
    }
    return rows;
}

std::int64_t segment_bytes() {
    return 64 * page_size();
}

// A fork of two full segments (the second dropped from the cache) and a
// short, cached third one.
struct FakeFork {
    explicit FakeFork(const TempDirectory &dir)
        : base_path(dir.file("16384")), full(dir, "16384"), cold(dir, "16384.1"), last(dir, "16384.2") {
        full.append(segment_bytes());
        full.sync();
        cold.append(segment_bytes());
        cold.drop_from_cache();
        last.append(5 * page_size() + 1);
        last.sync();
    }
    std::string base_path;
    TempFile full, cold, last;
};

// The engine AUTO should resolve to for fd.
cachectl_os_engine automatic_engine_for(int fd) {
    return probe_cachestat_on(fd) == CachestatSupport::available && !cachestat_unreliable_on(fd)
               ? CACHECTL_ENGINE_CACHESTAT
               : CACHECTL_ENGINE_MINCORE;
}

TEST_CASE("bridge: reports are created for each engine and freed", "[bridge]") {
    for (cachectl_os_engine engine : {CACHECTL_ENGINE_AUTO, CACHECTL_ENGINE_CACHESTAT, CACHECTL_ENGINE_MINCORE}) {
        ReportHandle report = create_report(engine);
        CHECK(cachectl_residency_report_row_count(report.get()) == 0);
        cachectl_residency_counts total{};
        total.size_pages = -1;
        cachectl_residency_report_total(report.get(), &total);
        CHECK(total.size_pages == 0);
        CHECK(total.os_pages == 0);
    }
    // The shim's reset callback may run when create failed: freeing NULL is harmless.
    cachectl_residency_report_free(nullptr);

    // An engine number the shim should never pass is refused, not guessed.
    cachectl_error error{};
    CHECK(cachectl_residency_report_create(static_cast<cachectl_os_engine>(42), &error) == nullptr);
    CHECK(error.status == CACHECTL_INVALID_ARGUMENT);
    CHECK(std::strlen(error.bug) > 0);
}

TEST_CASE("bridge: a fork whose file is missing is OK with no row", "[bridge]") {
    TempDirectory dir;
    ReportHandle report = create_report(CACHECTL_ENGINE_AUTO);
    cachectl_error error{};
    CHECK(scan_fork_to_end(report.get(), 0, dir.file("16384").c_str(), segment_bytes(), &error) == CACHECTL_OK);
    CHECK(cachectl_residency_report_row_count(report.get()) == 0);
}

// Scans path with engine and checks the error the shim would raise.
void check_file_error(cachectl_os_engine engine, const std::string &path, int expected_errno) {
    ReportHandle report = create_report(engine);
    cachectl_error error{};
    CHECK(scan_fork_to_end(report.get(), 0, path.c_str(), segment_bytes(), &error) == CACHECTL_FILE_ERROR);
    CHECK(error.status == CACHECTL_FILE_ERROR);
    if (expected_errno != 0)
        CHECK(error.saved_errno == expected_errno);
    else
        CHECK(error.saved_errno != 0);
    CHECK(error.call != CACHECTL_CALL_NONE); // the shim words the message by the call
    CHECK(std::string(error.path) == path);  // and names the file
    CHECK(cachectl_residency_report_row_count(report.get()) == 0);
}

// Scans path with engine: refused as an unsafe file, with its path and what
// was found there (a kind, or a regular file's owner) for the shim's message.
void check_unsafe_file(cachectl_os_engine engine, const std::string &path, cachectl_file_kind kind,
                       std::uint32_t owner = 0) {
    ReportHandle report = create_report(engine);
    cachectl_error error{};
    CHECK(scan_fork_to_end(report.get(), 0, path.c_str(), segment_bytes(), &error) == CACHECTL_UNSAFE_FILE);
    CHECK(error.status == CACHECTL_UNSAFE_FILE);
    CHECK(std::string(error.path) == path);
    CHECK(error.file_kind == kind);
    if (kind == CACHECTL_FILE_REGULAR) {
        CHECK(error.file_owner == owner);
        CHECK(error.server_user == ::geteuid());
    }
    CHECK(cachectl_residency_report_row_count(report.get()) == 0);

    // the size of the fork, read with stat(2), refuses it too
    std::int64_t size_bytes = 0;
    cachectl_error size_error{};
    CHECK(cachectl_fork_size(path.c_str(), segment_bytes(), &size_bytes, &size_error) == CACHECTL_UNSAFE_FILE);
    CHECK(std::string(size_error.path) == path);
    CHECK(size_error.file_kind == kind);
}

TEST_CASE("bridge: a directory where a segment file should be is refused, named as a directory", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    const std::string path = dir.file("16384");
    REQUIRE(std::filesystem::create_directory(path));
    // open(O_RDONLY) succeeds on a directory, and stat gives it a size: the
    // error must come anyway, not a row or a size measuring the directory.
    check_unsafe_file(engine, path, CACHECTL_FILE_DIRECTORY);
}

TEST_CASE("bridge: a FIFO in place of a segment is refused without blocking", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    const std::string path = dir.file("16384");
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    // a blocking open(O_RDONLY) would wait for a writer forever
    check_unsafe_file(engine, path, CACHECTL_FILE_FIFO);
}

TEST_CASE("bridge: a character device in place of a segment is refused as one", "[bridge]") {
    TempDirectory dir;
    const std::string path = dir.file("16384");
    REQUIRE(::symlink("/dev/null", path.c_str()) == 0);
    check_unsafe_file(CACHECTL_ENGINE_MINCORE, path, CACHECTL_FILE_CHARACTER_DEVICE);
}

TEST_CASE("bridge: a socket in place of a segment is refused as one", "[bridge]") {
    TempDirectory dir;
    const std::string path = dir.file("16384");
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) {
        WARN("not tested: the temporary directory's path is too long for a socket");
        return;
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int socket_fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(socket_fd >= 0);
    REQUIRE(::bind(socket_fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
    // open() of a socket fails with ENXIO: the error still says what is there
    check_unsafe_file(CACHECTL_ENGINE_MINCORE, path, CACHECTL_FILE_SOCKET);
    ::close(socket_fd);
}

TEST_CASE("bridge: a segment the process's user does not own is refused with either engine", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    const std::string path = dir.file("16384");
    if (::geteuid() == 0) {
        // as root: a file of our own, given away
        TempFile given(dir, "16384");
        given.append(page_size());
        REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
        check_unsafe_file(engine, path, CACHECTL_FILE_REGULAR, 65534);
    } else {
        // otherwise: a link to a file root owns, which mincore would call
        // all cached (the kernel hides the page cache of files we may not write)
        REQUIRE(::symlink("/etc/passwd", path.c_str()) == 0);
        check_unsafe_file(engine, path, CACHECTL_FILE_REGULAR, 0);
    }
}

TEST_CASE("bridge: a path under a regular file is a file error naming it", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    TempFile parent(dir, "not_a_directory");
    // ENOTDIR is not ENOENT: the fork is not simply missing.
    check_file_error(engine, parent.path() + "/16384", ENOTDIR);
}

TEST_CASE("bridge: impossible arguments are refused", "[bridge]") {
    TempDirectory dir;
    FakeFork fork(dir);
    ReportHandle report = create_report(CACHECTL_ENGINE_AUTO);
    cachectl_error error{};

    SECTION("a segment size that is not positive") {
        const std::int64_t bad_size = GENERATE(std::int64_t{0}, std::int64_t{-1}, INT64_MIN);
        CHECK(scan_fork_to_end(report.get(), 0, fork.base_path.c_str(), bad_size, &error) == CACHECTL_INVALID_ARGUMENT);
    }
    SECTION("no path") {
        CHECK(scan_fork_to_end(report.get(), 0, nullptr, segment_bytes(), &error) == CACHECTL_INVALID_ARGUMENT);
    }
    SECTION("no report") {
        CHECK(scan_fork_to_end(nullptr, 0, fork.base_path.c_str(), segment_bytes(), &error) ==
              CACHECTL_INVALID_ARGUMENT);
    }
    CHECK(error.status == CACHECTL_INVALID_ARGUMENT);
    CHECK(std::strlen(error.bug) > 0);
    CHECK(cachectl_residency_report_row_count(report.get()) == 0);
}

TEST_CASE("bridge: rows and totals describe each segment file", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    FakeFork fork(dir);
    const cachectl_os_engine measured_by =
        engine == CACHECTL_ENGINE_AUTO ? automatic_engine_for(fork.full.fd()) : engine;
    const bool has_counters = measured_by == CACHECTL_ENGINE_CACHESTAT;

    ReportHandle report = create_report(engine);
    cachectl_error error{};
    REQUIRE(scan_fork_to_end(report.get(), 0, fork.base_path.c_str(), segment_bytes(), &error) == CACHECTL_OK);

    const std::int64_t full_pages = pages_of(segment_bytes());
    const std::vector<RowSnapshot> expected = {
        {0, 0, fork.full.path(), measured_by, segment_bytes(), full_pages, full_pages, 0, 0, has_counters},
        {0, 1, fork.cold.path(), measured_by, segment_bytes(), full_pages, 0, 0, 0, has_counters},
        {0, 2, fork.last.path(), measured_by, 5 * page_size() + 1, 6, 6, 0, 0, has_counters},
    };
    CHECK(rows_of(report.get()) == expected);

    cachectl_residency_counts total{};
    cachectl_residency_report_total(report.get(), &total);
    CHECK(total.size_bytes == 2 * segment_bytes() + 5 * page_size() + 1);
    CHECK(total.size_pages == 2 * full_pages + 6);
    CHECK(total.os_pages == full_pages + 6);
    CHECK(total.os_dirty_pages == 0);
    CHECK(total.has_cachestat_counters == has_counters);

    cachectl_residency_report_clear(report.get());
    CHECK(cachectl_residency_report_row_count(report.get()) == 0);
}

TEST_CASE("bridge: a fork is scanned in bounded steps that end with every row", "[bridge]") {
    const cachectl_os_engine engine = GENERATE(CACHECTL_ENGINE_MINCORE, CACHECTL_ENGINE_AUTO);
    INFO("engine " << cachectl_engine_name(engine));
    TempDirectory dir;
    FakeFork fork(dir);
    cachectl_error error{};

    // Three segment files are three units of work at least: the first step
    // cannot finish, and the shim gets control back between them.
    ReportHandle report = create_report(engine);
    cachectl_step step{};
    REQUIRE(cachectl_residency_report_step_fork(report.get(), 0, fork.base_path.c_str(), segment_bytes(), &step,
                                                &error) == CACHECTL_OK);
    CHECK_FALSE(step.finished);
    CHECK(step.delay_us == 0);
    int steps = 0;
    REQUIRE(scan_fork_to_end(report.get(), 0, fork.base_path.c_str(), segment_bytes(), &error, &steps) == CACHECTL_OK);
    CHECK(steps >= 2);
    CHECK(steps < 10);
    CHECK(cachectl_residency_report_row_count(report.get()) == 3);
}

TEST_CASE("bridge: a forced cachestat engine is used or refused", "[bridge]") {
    TempDirectory dir;
    FakeFork fork(dir);
    ReportHandle report = create_report(CACHECTL_ENGINE_CACHESTAT);
    cachectl_error error{};
    const cachectl_status status = scan_fork_to_end(report.get(), 0, fork.base_path.c_str(), segment_bytes(), &error);
    if (probe_cachestat_on(fork.full.fd()) == CachestatSupport::available) {
        REQUIRE(status == CACHECTL_OK);
        for (const RowSnapshot &row : rows_of(report.get())) {
            CHECK(row.engine == CACHECTL_ENGINE_CACHESTAT);
            CHECK(row.has_cachestat_counters);
        }
        CHECK(cachectl_residency_report_row_count(report.get()) == 3);
    } else {
        CHECK(status == CACHECTL_NOT_SUPPORTED);
        CHECK(error.status == CACHECTL_NOT_SUPPORTED);
    }
}

TEST_CASE("bridge: engine names are the ones SQL shows", "[bridge]") {
    CHECK(std::string(cachectl_engine_name(CACHECTL_ENGINE_CACHESTAT)) == "cachestat");
    CHECK(std::string(cachectl_engine_name(CACHECTL_ENGINE_MINCORE)) == "mincore");
    CHECK(std::string(cachectl_engine_name(CACHECTL_ENGINE_AUTO)) == "auto");
    // Never a null pointer, even for a value outside the enum.
    CHECK(cachectl_engine_name(static_cast<cachectl_os_engine>(42)) != nullptr);
}

TEST_CASE("bridge: the cachestat probe agrees with cachestat itself", "[bridge]") {
    TempFile owned;
    owned.append(page_size());
    const cachectl_cachestat_support support = cachectl_probe_cachestat(owned.path().c_str());

    int failure_errno = -1;
    const std::optional<CacheCounts> counts = cachestat_range(owned.fd(), 0, page_size(), &failure_errno);
    switch (support) {
    case CACHECTL_CACHESTAT_AVAILABLE:
        CHECK(counts.has_value());
        break;
    case CACHECTL_CACHESTAT_MISSING:
        WARN("cachestat(2) is missing on this kernel");
        CHECK_FALSE(counts.has_value());
        CHECK(failure_errno == ENOSYS);
        break;
    case CACHECTL_CACHESTAT_FILTERED:
        WARN("cachestat(2) is refused by a seccomp filter");
        CHECK_FALSE(counts.has_value());
        CHECK(failure_errno == EPERM);
        break;
    default:
        FAIL("cachectl_probe_cachestat returned " << static_cast<int>(support));
    }
    // The answer is remembered for the process: asking again changes nothing.
    CHECK(cachectl_probe_cachestat(owned.path().c_str()) == support);
}

} // namespace
} // namespace pg_cachectl
