// test_os_page_cache.cpp — the cachestat and mincore engines against files
// whose page-cache state the test sets: written, synced, dropped, read back.
// Everything must pass whichever engine this kernel offers: the cachestat
// checks are skipped (with a warning) where cachestat cannot be trusted.
#include "core_errors.hpp"
#include "os_page_cache.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <linux/magic.h>
#include <optional>
#include <utility>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::pages_of;
using test::TempFile;

constexpr std::int64_t mib = std::int64_t{1} << 20;
constexpr std::int64_t file_bytes = 8 * mib;

// True when cachestat counts can be trusted for fd; warns why not otherwise.
bool cachestat_usable(int fd) {
    switch (probe_cachestat_on(fd)) {
    case CachestatSupport::missing:
        WARN("cachestat(2) is missing on this kernel: its checks are skipped");
        return false;
    case CachestatSupport::filtered:
        WARN("cachestat(2) is refused by a seccomp filter: its checks are skipped");
        return false;
    case CachestatSupport::available:
        break;
    }
    if (cachestat_unreliable_on(fd)) {
        WARN("cachestat(2) reports 0 cached pages on this filesystem: its checks are skipped");
        return false;
    }
    return true;
}

CacheCounts cachestat_of(int fd, std::int64_t offset, std::int64_t length) {
    int failure_errno = -1;
    std::optional<CacheCounts> counts = cachestat_range(fd, offset, length, &failure_errno);
    REQUIRE(counts.has_value());
    return *counts;
}

// The host's reclaim may take a clean page between the read that cached it
// and the count (a make test-all, four servers beside the unit suite, saw 4
// of 2,048 go): a state is read in and counted again, at most this many
// times, before its counts are checked.  A count that stays wrong still fails.
constexpr int reclaim_tries = 5;

// Reads the ranges again and counts them until `settled(counts)`, at most
// reclaim_tries times; returns the last counts.
template <typename ReadIn, typename Count, typename Settled>
auto count_settled(ReadIn read_in, Count count, Settled settled) {
    read_in();
    auto counts = count();
    for (int attempt = 1; attempt < reclaim_tries && !settled(counts); ++attempt) {
        read_in();
        counts = count();
    }
    return counts;
}

TEST_CASE("a written, synced and dropped file has no cached page", "[os_page_cache]") {
    TempFile file;
    file.append(file_bytes);
    file.sync();
    const std::int64_t pages = pages_of(file_bytes);

    // Writing cached every page: proves the drop below has something to drop.
    REQUIRE(mincore_resident_pages(file.fd(), 0, file_bytes) == pages);

    file.drop_from_cache();
    CHECK(mincore_resident_pages(file.fd(), 0, file_bytes) == 0);
    if (cachestat_usable(file.fd())) {
        const CacheCounts counts = cachestat_of(file.fd(), 0, file_bytes);
        CHECK(counts.os_pages == 0);
        CHECK(counts.os_dirty_pages == 0);
        CHECK(counts.os_writeback_pages == 0);
    }
}

TEST_CASE("reading part of a cold file caches at least that part", "[os_page_cache]") {
    TempFile file;
    file.append(file_bytes);
    file.drop_from_cache();
    const std::int64_t read_pages = pages_of(mib);
    const std::int64_t file_pages = pages_of(file_bytes);

    // The range read is cached exactly; readahead may add more after it, but
    // never more than the file has.
    CHECK(count_settled([&] { file.read_range(0, mib); },
                        [&] { return mincore_resident_pages(file.fd(), 0, mib); },
                        [&](std::int64_t resident) { return resident == read_pages; }) == read_pages);
    const std::int64_t resident = mincore_resident_pages(file.fd(), 0, file_bytes);
    CHECK(resident >= read_pages);
    CHECK(resident <= file_pages);

    if (cachestat_usable(file.fd())) {
        CHECK(cachestat_of(file.fd(), 0, mib).os_pages == read_pages);
        const CacheCounts counts = cachestat_of(file.fd(), 0, file_bytes);
        CHECK(counts.os_pages >= read_pages);
        CHECK(counts.os_pages <= file_pages);
        CHECK(counts.os_dirty_pages == 0);
    }
}

TEST_CASE("cachestat and mincore agree page for page", "[os_page_cache]") {
    TempFile file;
    file.append(file_bytes);
    file.drop_from_cache();
    if (!cachestat_usable(file.fd()))
        return;
    // Readahead still in flight is counted by cachestat but not yet by mincore
    // (which wants up-to-date pages): without readahead every cached page is
    // read when pread returns, so the two must agree exactly.
    file.disable_readahead();
    const std::int64_t page = page_size();
    const auto read_parts = [&] {
        file.read_range(0, mib);
        file.read_range(3 * mib, 5 * page);
        file.read_range(file_bytes - page, page);
    };

    struct Range {
        std::int64_t offset, length;
    };
    const Range ranges[] = {{0, file_bytes}, {0, mib}, {mib, 2 * mib}, {3 * mib, mib}, {4 * mib, 4 * mib}};
    // per range: mincore, cachestat, mincore again (equal unless reclaim took a page meanwhile)
    struct Counted {
        std::int64_t before, cachestat, after;
    };
    const auto count_ranges = [&] {
        std::vector<Counted> counted;
        for (const Range &range : ranges)
            counted.push_back(Counted{mincore_resident_pages(file.fd(), range.offset, range.length),
                                      cachestat_of(file.fd(), range.offset, range.length).os_pages,
                                      mincore_resident_pages(file.fd(), range.offset, range.length)});
        return counted;
    };
    const std::int64_t read_pages = pages_of(mib) + 5 + 1;
    const std::vector<Counted> counted = count_settled(read_parts, count_ranges, [&](const std::vector<Counted> &all) {
        return all.front().after >= read_pages &&
               std::all_of(all.begin(), all.end(), [](const Counted &one) { return one.before == one.after; });
    });
    for (std::size_t index = 0; index < counted.size(); ++index) {
        INFO("range at " << ranges[index].offset << ", " << ranges[index].length << " bytes");
        CHECK(counted[index].cachestat == counted[index].after);
    }
    const std::int64_t resident = counted.front().after;
    CHECK(resident >= read_pages);
    CHECK(resident <= pages_of(file_bytes));

    // Once everything is read, both see the whole file.
    const auto [whole_by_mincore, whole_by_cachestat] = count_settled(
        [&] { file.read_range(0, file_bytes); },
        [&] {
            return std::pair{mincore_resident_pages(file.fd(), 0, file_bytes),
                             cachestat_of(file.fd(), 0, file_bytes).os_pages};
        },
        [&](const auto &both) { return both.first == pages_of(file_bytes) && both.second == pages_of(file_bytes); });
    CHECK(whole_by_mincore == pages_of(file_bytes));
    CHECK(whole_by_cachestat == pages_of(file_bytes));
}

TEST_CASE("cachestat counts dirty pages until they are written back", "[os_page_cache]") {
    TempFile file;
    if (!cachestat_usable(file.fd()))
        return;
    file.append(file_bytes);

    // Nothing was synced: the flusher waits tens of seconds before writing.
    CacheCounts counts = cachestat_of(file.fd(), 0, file_bytes);
    CHECK(counts.os_pages == pages_of(file_bytes));
    CHECK(counts.os_dirty_pages > 0);
    CHECK(counts.os_dirty_pages <= pages_of(file_bytes));

    file.sync();
    counts = cachestat_of(file.fd(), 0, file_bytes);
    CHECK(counts.os_dirty_pages == 0);
    CHECK(counts.os_writeback_pages == 0); // fsync waits for the writeback it started
    CHECK(counts.os_pages == pages_of(file_bytes));
}

TEST_CASE("mincore over an empty range counts nothing", "[os_page_cache]") {
    TempFile file;
    CHECK(mincore_resident_pages(file.fd(), 0, 0) == 0); // an empty file cannot even be mapped

    file.append(2 * page_size());
    REQUIRE(mincore_resident_pages(file.fd(), 0, 2 * page_size()) == 2);
    CHECK(mincore_resident_pages(file.fd(), 0, 0) == 0);
    CHECK(mincore_resident_pages(file.fd(), page_size(), 0) == 0);
}

TEST_CASE("mincore refuses a window that mmap cannot map", "[os_page_cache]") {
    TempFile file;
    file.append(2 * page_size());
    CHECK_THROWS_AS(mincore_resident_pages(file.fd(), 1, page_size()), InvalidArgument);
    CHECK_THROWS_AS(mincore_resident_pages(file.fd(), 0, -1), InvalidArgument);
}

TEST_CASE("a partial last page is counted as a page", "[os_page_cache]") {
    TempFile file;
    file.append(3 * page_size() + 100);
    file.sync();
    CHECK(mincore_resident_pages(file.fd(), 0, file.size()) == 4);
    if (cachestat_usable(file.fd()))
        CHECK(cachestat_of(file.fd(), 0, file.size()).os_pages == 4);
}

TEST_CASE("probe_cachestat_on matches what cachestat_range does", "[os_page_cache]") {
    TempFile file;
    file.append(page_size());
    int failure_errno = -1;
    const std::optional<CacheCounts> counts = cachestat_range(file.fd(), 0, page_size(), &failure_errno);

    switch (probe_cachestat_on(file.fd())) {
    case CachestatSupport::available:
        CHECK(counts.has_value());
        CHECK(failure_errno == 0);
        break;
    case CachestatSupport::missing:
        WARN("cachestat(2) is missing on this kernel");
        CHECK_FALSE(counts.has_value());
        CHECK(failure_errno == ENOSYS);
        break;
    case CachestatSupport::filtered:
        WARN("cachestat(2) is refused by a seccomp filter");
        CHECK_FALSE(counts.has_value());
        CHECK(failure_errno == EPERM);
        break;
    }
}

TEST_CASE("cachestat_unreliable_on flags overlayfs only", "[os_page_cache]") {
    TempFile file;
    const long type = test::filesystem_type(file.fd());
    if (type == EXT4_SUPER_MAGIC) {
        CHECK_FALSE(cachestat_unreliable_on(file.fd()));
    } else if (type == OVERLAYFS_SUPER_MAGIC) {
        CHECK(cachestat_unreliable_on(file.fd()));
    } else {
        WARN("the test directory is neither ext4 nor overlayfs: nothing to check");
    }
}

TEST_CASE("CacheCounts add up field by field", "[os_page_cache]") {
    CacheCounts sum{1, 2, 3, 4, 5};
    sum += CacheCounts{10, 20, 30, 40, 50};
    CHECK(sum.os_pages == 11);
    CHECK(sum.os_dirty_pages == 22);
    CHECK(sum.os_writeback_pages == 33);
    CHECK(sum.os_evicted_pages == 44);
    CHECK(sum.os_recently_evicted_pages == 55);
}

} // namespace
} // namespace pg_cachectl
