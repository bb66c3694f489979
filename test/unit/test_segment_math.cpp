// test_segment_math.cpp — forks → segment files → OS pages → mincore windows.
#include "core_errors.hpp"
#include "segment_math.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>

namespace pg_cachectl {
namespace {

TEST_CASE("os_page_size is the kernel's page size", "[segment_math]") {
    const std::int64_t page = os_page_size();
    CHECK(page == ::sysconf(_SC_PAGESIZE));
    CHECK((page & (page - 1)) == 0); // a power of two, so windows can be page aligned
}

TEST_CASE("pages_spanned counts a partial last page as a whole one", "[segment_math]") {
    const std::int64_t page = os_page_size();

    SECTION("an empty file spans no page") {
        CHECK(pages_spanned(0, page) == 0);
    }
    SECTION("a partial page counts as one") {
        CHECK(pages_spanned(1, page) == 1);
        CHECK(pages_spanned(page - 1, page) == 1);
        CHECK(pages_spanned(3 * page + 1, page) == 4);
    }
    SECTION("exact multiples add no extra page") {
        CHECK(pages_spanned(page, page) == 1);
        CHECK(pages_spanned(10 * page, page) == 10);
    }
    SECTION("sizes past 32 bits do not overflow") {
        // A full 1 GiB segment, and a 1 TiB file measured as one range.
        CHECK(pages_spanned(std::int64_t{1} << 30, 4096) == std::int64_t{1} << 18);
        CHECK(pages_spanned(std::int64_t{1} << 40, 8192) == std::int64_t{1} << 27);
    }
    SECTION("a page size that is not positive is refused") {
        CHECK_THROWS_AS(pages_spanned(100, 0), InvalidArgument);
        CHECK_THROWS_AS(pages_spanned(100, -4096), InvalidArgument);
    }
}

TEST_CASE("segment_path names segment files as md.c does", "[segment_math]") {
    CHECK(segment_path("base/5/16384", 0) == "base/5/16384");
    CHECK(segment_path("base/5/16384", 1) == "base/5/16384.1");
    CHECK(segment_path("base/5/16384", 3) == "base/5/16384.3");
    CHECK(segment_path("base/5/16384_fsm", 12) == "base/5/16384_fsm.12");
}

TEST_CASE("window_at cuts a file into bounded, page-aligned windows", "[segment_math]") {
    const std::int64_t page = os_page_size();
    const std::int64_t window = 4 * page;
    const std::int64_t file = 10 * page + 100; // ends in a partial page

    SECTION("the first window starts at 0 and is full") {
        const ByteRange range = window_at(0, file, window);
        CHECK(range.offset == 0);
        CHECK(range.length == window);
    }
    SECTION("a window in the middle is full") {
        const ByteRange range = window_at(4 * page, file, window);
        CHECK(range.offset == 4 * page);
        CHECK(range.length == window);
    }
    SECTION("the last window stops at the end of the file, partial page included") {
        const ByteRange range = window_at(8 * page, file, window);
        CHECK(range.offset == 8 * page);
        CHECK(range.length == 2 * page + 100);
    }
    SECTION("an offset at or past the end gives an empty window") {
        CHECK(window_at(file, file, window).length == 0);
        CHECK(window_at(file + page, file, window).length == 0);
        CHECK(window_at(0, 0, window).length == 0);
    }
    SECTION("a window larger than the file covers the whole file") {
        const ByteRange range = window_at(0, 3 * page + 5, std::int64_t{128} << 20);
        CHECK(range.offset == 0);
        CHECK(range.length == 3 * page + 5);
    }
    SECTION("walking the windows covers the file exactly once") {
        std::int64_t offset = 0;
        int windows = 0;
        for (ByteRange range = window_at(offset, file, window); range.length > 0;
             range = window_at(offset, file, window)) {
            REQUIRE(range.offset == offset);
            REQUIRE(range.offset % page == 0); // mmap needs aligned offsets
            offset += range.length;
            ++windows;
            REQUIRE(windows <= 3);
        }
        CHECK(offset == file);
        CHECK(windows == 3);
    }
    SECTION("a window size that is not positive is refused") {
        CHECK_THROWS_AS(window_at(0, file, 0), InvalidArgument);
    }
}

} // namespace
} // namespace pg_cachectl
