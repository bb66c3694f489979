// test_waits_use_mincore.cpp — DESIGN.md's ruling on cachestat, through the
// system-call seams of os_page_cache.hpp: a report's block map may take a
// window cachestat counts wholly cached as cached without asking mincore,
// while a wait (ForkPrefetch: behind os_prefetch, os_restore and prewarm
// with wait, through cachectl_os_prefetch_create and _create_from_map)
// believes only mincore.  The fake cachestat counts every page of every
// range as cached — what it says of pages whose read is still in flight —
// and the fake mincore says no page is read yet.
#include "bitmap.hpp"
#include "fork_block_map.hpp"
#include "fork_prefetch.hpp"
#include "os_page_cache.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace pg_cachectl {
namespace {

using test::page_size;
using test::TempDirectory;
using test::TempFile;

constexpr std::int64_t block_size = 8192;
constexpr std::int64_t fork_blocks = 64;

std::int64_t segment_bytes() {
    return 512 * block_size;
}

// The kernel's cachestat ABI, as the fake reads and fills it.
struct RangeArgument {
    std::uint64_t offset;
    std::uint64_t length;
};
struct CountsResult {
    std::uint64_t cached;
    std::uint64_t dirty;
    std::uint64_t writeback;
    std::uint64_t evicted;
    std::uint64_t recently_evicted;
};

int cachestat_calls = 0;
int mincore_calls = 0;

long everything_cached(int, const void *range, void *stat) {
    ++cachestat_calls;
    RangeArgument asked{};
    std::memcpy(&asked, range, sizeof asked);
    CountsResult counts{};
    const auto page = static_cast<std::uint64_t>(page_size());
    counts.cached = (asked.length + page - 1) / page;
    std::memcpy(stat, &counts, sizeof counts);
    return 0;
}

int nothing_read_yet(void *, std::size_t length, unsigned char *vector) {
    ++mincore_calls;
    const auto page = static_cast<std::size_t>(page_size());
    std::memset(vector, 0, (length + page - 1) / page);
    return 0;
}

// Both fakes in place for one test; the probe result forgotten around it.
class PagesInFlight {
  public:
    PagesInFlight()
        : previous_cachestat_(set_cachestat_call(&everything_cached)),
          previous_mincore_(set_mincore_call(&nothing_read_yet)) {
        forget_cachestat_support();
        cachestat_calls = 0;
        mincore_calls = 0;
    }
    ~PagesInFlight() {
        set_cachestat_call(previous_cachestat_);
        set_mincore_call(previous_mincore_);
        forget_cachestat_support();
    }
    PagesInFlight(const PagesInFlight &) = delete;
    PagesInFlight &operator=(const PagesInFlight &) = delete;

  private:
    CachestatCall previous_cachestat_;
    MincoreCall previous_mincore_;
};

struct Map {
    explicit Map(std::int64_t blocks) : bytes(static_cast<std::size_t>(bitmap_bytes(blocks))), view(bytes, blocks) {}
    std::vector<std::uint8_t> bytes;
    BitmapView view;
};

} // namespace

TEST_CASE("a report takes a window cachestat counts wholly cached as cached, without mincore", "[waits]") {
    TempDirectory dir;
    TempFile fork(dir, "900");
    fork.append(fork_blocks * block_size);
    fork.drop_from_cache();
    PagesInFlight fakes;

    Map map(fork_blocks);
    ForkBlockMap report(map.view, fork.path(), segment_bytes(), block_size, EngineChoice::automatic);
    while (!report.step()) {
    }
    CHECK(map.view.count() == fork_blocks);
    CHECK(report.windows_full() == 1);
    CHECK(report.windows_mapped() == 0);
    CHECK(cachestat_calls > 0);
    CHECK(mincore_calls == 0);

    // the mincore engine (kernels without cachestat) maps every window, as before
    Map by_mincore(fork_blocks);
    ForkBlockMap mapped(by_mincore.view, fork.path(), segment_bytes(), block_size, EngineChoice::mincore);
    while (!mapped.step()) {
    }
    CHECK(by_mincore.view.count() == 0);
    CHECK(mapped.windows_mapped() == 1);
    CHECK(mincore_calls == 1);
}

TEST_CASE("a wait believes only mincore, whatever cachestat counts", "[waits]") {
    TempDirectory dir;
    TempFile fork(dir, "901");
    fork.append(fork_blocks * block_size);
    fork.drop_from_cache();
    PagesInFlight fakes;

    ForkPrefetch::Options options;
    options.engine = EngineChoice::automatic;
    options.wait = true;
    options.poll_interval = std::chrono::milliseconds(5);
    options.stall_timeout = std::chrono::milliseconds(90);
    ForkPrefetch wait(fork.path(), segment_bytes(), block_size, {BlockRange{0, fork_blocks}}, options);
    bool finished = false;
    for (int steps = 0; steps < 10000 && !finished; ++steps) {
        const ForkPrefetch::Step step = wait.step();
        finished = step.finished;
        std::this_thread::sleep_for(std::min(step.delay, std::chrono::microseconds{10000}));
    }
    REQUIRE(finished);
    CHECK(cachestat_calls > 0); // advising asked it how much each call queued
    CHECK(mincore_calls >= 2);  // every poll of the wait asked mincore
    CHECK(wait.os_pages_after() == 0);
    CHECK(wait.pages_requested() == fork_blocks * block_size / page_size());
    CHECK(wait.stalled()); // nothing read, so it gave up rather than trust cachestat
}

} // namespace pg_cachectl
