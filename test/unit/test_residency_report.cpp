// test_residency_report.cpp — the segment table of os_residency(): fake forks
// made of segment files in a known cache state, measured with each engine.
#include "core_errors.hpp"
#include "os_page_cache.hpp"
#include "posix_handles.hpp"
#include "residency_report.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::pages_of;
using test::TempDirectory;
using test::TempFile;

// Small segments keep the files small; real ones are 1 GiB.
std::int64_t segment_bytes() {
    return 256 * page_size();
}

// A mincore window of 16 pages: a full segment takes 16 windows.
std::int64_t small_window() {
    return 16 * page_size();
}

struct SegmentSpec {
    std::int64_t bytes;
    bool cached; // left cached after writing, or written back and dropped
};

// The segment files of one fork, base, base.1, ..., each written, synced and
// either kept in the cache or dropped from it, so every count is known.
class FakeFork {
  public:
    FakeFork(const TempDirectory &dir, const std::string &name, const std::vector<SegmentSpec> &specs)
        : base_path_(dir.file(name)), specs_(specs) {
        for (std::size_t segment = 0; segment < specs.size(); ++segment) {
            const std::string file_name = segment == 0 ? name : name + "." + std::to_string(segment);
            auto file = std::make_unique<TempFile>(dir, file_name);
            file->append(specs[segment].bytes);
            file->sync();
            if (!specs[segment].cached)
                file->drop_from_cache();
            files_.push_back(std::move(file));
        }
    }

    const std::string &base_path() const { return base_path_; }
    const TempFile &file(std::size_t segment) const { return *files_.at(segment); }
    std::int64_t bytes(std::size_t segment) const { return specs_.at(segment).bytes; }
    std::int64_t os_pages(std::size_t segment) const {
        return specs_.at(segment).cached ? pages_of(specs_.at(segment).bytes) : 0;
    }

  private:
    std::string base_path_;
    std::vector<SegmentSpec> specs_;
    std::vector<std::unique_ptr<TempFile>> files_;
};

// The layout of a real fork: full segments, then a shorter last one.  The
// cached / dropped mix makes a wrong row or a wrong sum visible.
std::vector<SegmentSpec> three_segments() {
    return {{segment_bytes(), true}, {segment_bytes(), false}, {10 * page_size() + 100, true}};
}

// The engine an automatic report should pick for fd.
Engine expected_automatic_engine(int fd) {
    return probe_cachestat_on(fd) == CachestatSupport::available && !cachestat_unreliable_on(fd) ? Engine::cachestat
                                                                                                 : Engine::mincore;
}

// False (with a warning) when a forced cachestat engine cannot run here.
bool choice_runs_here(EngineChoice choice, int fd) {
    if (choice == EngineChoice::cachestat && probe_cachestat_on(fd) != CachestatSupport::available) {
        WARN("cachestat(2) is not available here: the forced-cachestat case is skipped");
        return false;
    }
    return true;
}

Engine expected_engine(EngineChoice choice, int fd) {
    switch (choice) {
    case EngineChoice::cachestat:
        return Engine::cachestat;
    case EngineChoice::mincore:
        return Engine::mincore;
    case EngineChoice::automatic:
        break;
    }
    return expected_automatic_engine(fd);
}

const char *choice_name(EngineChoice choice) {
    switch (choice) {
    case EngineChoice::cachestat:
        return "cachestat";
    case EngineChoice::mincore:
        return "mincore";
    case EngineChoice::automatic:
        break;
    }
    return "automatic";
}

// Steps a fork to its end, as the shim's loop does.
void scan_whole_fork(ResidencyReport &report, int fork_number, const std::string &base_path) {
    int steps = 0;
    while (!report.step_fork(fork_number, base_path, segment_bytes()))
        REQUIRE(++steps < 100000);
}

void check_same_row(const SegmentResidency &got, const SegmentResidency &want) {
    INFO(got.path);
    CHECK(got.path == want.path);
    CHECK(got.engine == want.engine);
    CHECK(got.size_bytes == want.size_bytes);
    CHECK(got.size_pages == want.size_pages);
    CHECK(got.counts.os_pages == want.counts.os_pages);
    CHECK(got.counts.os_dirty_pages == want.counts.os_dirty_pages);
    CHECK(got.counts.os_writeback_pages == want.counts.os_writeback_pages);
    CHECK(got.counts.os_evicted_pages == want.counts.os_evicted_pages);
    CHECK(got.counts.os_recently_evicted_pages == want.counts.os_recently_evicted_pages);
}

TEST_CASE("a report has one row per segment, in (fork, segment) order", "[residency_report]") {
    const EngineChoice choice = GENERATE(EngineChoice::mincore, EngineChoice::cachestat, EngineChoice::automatic);
    INFO("engine choice: " << choice_name(choice));
    TempDirectory dir;
    FakeFork main_fork(dir, "16384", three_segments());
    FakeFork fsm_fork(dir, "16384_fsm", {{3 * page_size(), true}});
    if (!choice_runs_here(choice, main_fork.file(0).fd()))
        return;
    const Engine engine = expected_engine(choice, main_fork.file(0).fd());

    ResidencyReport report(choice);
    // Scanned out of order on purpose: the table must still come out sorted.
    scan_whole_fork(report, 1, fsm_fork.base_path());
    scan_whole_fork(report, 0, main_fork.base_path());

    const ResidencyReport::SegmentTable &rows = report.segments();
    REQUIRE(rows.size() == 4);
    struct Expected {
        int fork, segment;
        const FakeFork &fork_files;
    };
    const Expected expected[] = {{0, 0, main_fork}, {0, 1, main_fork}, {0, 2, main_fork}, {1, 0, fsm_fork}};
    std::size_t index = 0;
    for (const auto &[key, row] : rows) {
        const Expected &want = expected[index++];
        const auto segment = static_cast<std::size_t>(want.segment);
        INFO("row " << want.fork << "/" << want.segment);
        CHECK(key == ResidencyReport::SegmentKey{want.fork, want.segment});
        CHECK(row.path == want.fork_files.file(segment).path());
        CHECK(row.engine == engine);
        CHECK(row.size_bytes == want.fork_files.bytes(segment));
        CHECK(row.size_pages == pages_of(want.fork_files.bytes(segment)));
        CHECK(row.counts.os_pages == want.fork_files.os_pages(segment));
        CHECK(row.counts.os_dirty_pages == 0); // every file was synced
        CHECK(row.counts.os_writeback_pages == 0);
    }

    // The totals are the sums of the rows.
    const ResidencyTotal total = report.total();
    ResidencyTotal sum;
    for (const auto &[key, row] : rows) {
        sum.size_bytes += row.size_bytes;
        sum.size_pages += row.size_pages;
        sum.counts += row.counts;
    }
    CHECK(total.size_bytes == sum.size_bytes);
    CHECK(total.size_pages == sum.size_pages);
    CHECK(total.counts.os_pages == sum.counts.os_pages);
    CHECK(total.counts.os_dirty_pages == sum.counts.os_dirty_pages);
    CHECK(total.counts.os_pages ==
          main_fork.os_pages(0) + main_fork.os_pages(1) + main_fork.os_pages(2) + fsm_fork.os_pages(0));
    CHECK(total.has_cachestat_counters == (engine == Engine::cachestat));

    report.clear();
    CHECK(report.segments().empty());
    CHECK(report.total().size_pages == 0);
}

TEST_CASE("a missing segment file ends the fork", "[residency_report]") {
    TempDirectory dir;
    FakeFork fork(dir, "16385", {{segment_bytes(), true}, {segment_bytes(), true}});
    // A file after the gap must not be reported: md.c would never reach it.
    TempFile stray(dir, "16385.3");
    stray.append(page_size());

    ResidencyReport report(EngineChoice::automatic);
    scan_whole_fork(report, 0, fork.base_path());
    REQUIRE(report.segments().size() == 2);
    CHECK(report.segments().nth(1)->second.path == fork.file(1).path());
    CHECK(report.segments().count({0, 3}) == 0);
}

TEST_CASE("a fork without its first file adds no row", "[residency_report]") {
    const EngineChoice choice = GENERATE(EngineChoice::mincore, EngineChoice::automatic);
    TempDirectory dir;
    FakeFork fork(dir, "16386", {{page_size(), true}});

    ResidencyReport report(choice);
    scan_whole_fork(report, 0, fork.base_path());
    REQUIRE(report.segments().size() == 1);

    // The fsm fork does not exist: done at once, and the main fork's row stays.
    CHECK(report.step_fork(1, dir.file("16386_fsm"), segment_bytes()));
    CHECK(report.segments().size() == 1);
    CHECK(report.segments().count({1, 0}) == 0);
}

TEST_CASE("a missing relation file opens as an invalid descriptor, without an exception", "[residency_report]") {
    TempDirectory dir;
    TempFile present(dir, "16387");
    present.append(page_size());

    CHECK_FALSE(open_relation_file_if_present(dir.file("16387_vm")).valid());
    CHECK(open_relation_file_if_present(present.path()).valid());
    // open_relation_file still reports the missing file, and both refuse a directory.
    CHECK_THROWS_AS(open_relation_file(dir.file("16387_vm")), SystemError);
    CHECK_THROWS_AS(open_relation_file_if_present(dir.path()), UnsafeFile);
}

TEST_CASE("a scan stepped one unit at a time ends with the same counts as in one go", "[residency_report]") {
    const EngineChoice choice = GENERATE(EngineChoice::mincore, EngineChoice::cachestat, EngineChoice::automatic);
    INFO("engine choice: " << choice_name(choice));
    TempDirectory dir;
    FakeFork fork(dir, "16387", three_segments());
    if (!choice_runs_here(choice, fork.file(0).fd()))
        return;

    ResidencyReport uninterrupted(choice);
    scan_whole_fork(uninterrupted, 0, fork.base_path());

    // Every step must make progress, one window or one segment at a time.
    ResidencyReport interrupted(choice, small_window());
    // Two full segments of 16 windows and a last one that fits in one window;
    // a bound on the calls: one per window, plus one per segment file opened.
    const auto windows = static_cast<int>(2 * (segment_bytes() / small_window()) + 1);
    const int most_calls = windows + 3 + 1;
    int calls = 1;
    while (!interrupted.step_fork(0, fork.base_path(), segment_bytes())) {
        ++calls;
        REQUIRE(calls <= most_calls);
    }
    // Three segments are at least three units of work: it must have returned between them.
    CHECK(calls > 1);
    if (expected_engine(choice, fork.file(0).fd()) == Engine::mincore)
        CHECK(calls >= windows);

    REQUIRE(interrupted.segments().size() == uninterrupted.segments().size());
    auto want = uninterrupted.segments().begin();
    for (const auto &[key, row] : interrupted.segments()) {
        CHECK(key == want->first);
        check_same_row(row, want->second);
        ++want;
    }
    CHECK(interrupted.total().counts.os_pages == uninterrupted.total().counts.os_pages);
    CHECK(interrupted.total().counts.os_pages == fork.os_pages(0) + fork.os_pages(2));
}

TEST_CASE("a forced engine is used, or refused when the system lacks it", "[residency_report]") {
    TempDirectory dir;
    FakeFork fork(dir, "16389", {{4 * page_size(), true}});
    const int fd = fork.file(0).fd();

    ResidencyReport by_mincore(EngineChoice::mincore);
    scan_whole_fork(by_mincore, 0, fork.base_path());
    REQUIRE(by_mincore.segments().size() == 1);
    CHECK(by_mincore.segments().begin()->second.engine == Engine::mincore);
    CHECK(by_mincore.segments().begin()->second.counts.os_pages == 4);

    ResidencyReport by_cachestat(EngineChoice::cachestat);
    if (probe_cachestat_on(fd) == CachestatSupport::available) {
        scan_whole_fork(by_cachestat, 0, fork.base_path());
        REQUIRE(by_cachestat.segments().size() == 1);
        CHECK(by_cachestat.segments().begin()->second.engine == Engine::cachestat);
        CHECK(by_cachestat.segments().begin()->second.counts.os_pages == 4);
    } else {
        CHECK_THROWS_AS(by_cachestat.step_fork(0, fork.base_path(), segment_bytes()), NotSupported);
    }
}

TEST_CASE("a report refuses impossible arguments", "[residency_report]") {
    CHECK_THROWS_AS(ResidencyReport(EngineChoice::mincore, 0), InvalidArgument);
    CHECK_THROWS_AS(ResidencyReport(EngineChoice::mincore, page_size() + 1), InvalidArgument);

    ResidencyReport report(EngineChoice::mincore);
    CHECK_THROWS_AS(report.step_fork(0, "", segment_bytes()), InvalidArgument);
    CHECK_THROWS_AS(report.step_fork(0, "/nonexistent", 0), InvalidArgument);
    CHECK_THROWS_AS(report.step_fork(0, "/nonexistent", -1), InvalidArgument);
}

} // namespace
} // namespace pg_cachectl
