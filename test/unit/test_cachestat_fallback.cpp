// Tests of the fallbacks from cachestat to mincore, with the system call
// replaced: a kernel without cachestat (ENOSYS), a seccomp filter (EPERM on
// every file), and a real EPERM on one relation file after a good probe.
#include "pg_cachectl/bridge.h"

#include "bridge_steps.hpp"
#include "core_errors.hpp"
#include "engine_choice.hpp"
#include "os_page_cache.hpp"
#include "residency_report.hpp"

#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

namespace {

using pg_cachectl::CachestatSupport;
using pg_cachectl::Engine;
using pg_cachectl::EngineChoice;

long kernel_without_cachestat(int, const void *, void *) {
    errno = ENOSYS;
    return -1;
}

long seccomp_filter(int, const void *, void *) {
    errno = EPERM;
    return -1;
}

// Puts a fake system call in place for one test and forgets what was probed.
class FakeCachestat {
  public:
    explicit FakeCachestat(pg_cachectl::CachestatCall fake) : previous_(pg_cachectl::set_cachestat_call(fake)) {
        pg_cachectl::forget_cachestat_support();
    }
    ~FakeCachestat() {
        pg_cachectl::set_cachestat_call(previous_);
        pg_cachectl::forget_cachestat_support();
    }

  private:
    pg_cachectl::CachestatCall previous_;
};

} // namespace

TEST_CASE("without cachestat in the kernel, auto measures with mincore", "[fallback]") {
    pg_cachectl::test::TempDirectory dir;
    pg_cachectl::test::TempFile file(dir, "seg");
    file.append(256 * 1024);
    FakeCachestat fake(&kernel_without_cachestat);

    CHECK(pg_cachectl::probe_cachestat_on(file.fd()) == CachestatSupport::missing);
    CHECK(pg_cachectl::choose_engine(EngineChoice::automatic, file.fd()) == Engine::mincore);
    CHECK_THROWS_AS(pg_cachectl::choose_engine(EngineChoice::cachestat, file.fd()), pg_cachectl::NotSupported);

    pg_cachectl::ResidencyReport report(EngineChoice::automatic);
    while (!report.step_fork(0, file.path(), 1 << 30)) {
    }
    REQUIRE(report.segments().size() == 1);
    CHECK(report.segments().begin()->second.engine == Engine::mincore);
    CHECK_FALSE(report.total().has_cachestat_counters);
}

TEST_CASE("a seccomp filter refusing cachestat is told apart and avoided", "[fallback]") {
    pg_cachectl::test::TempDirectory dir;
    pg_cachectl::test::TempFile owned(dir, "PG_VERSION");
    owned.append(3);
    pg_cachectl::test::TempFile segment(dir, "seg");
    segment.append(64 * 1024);
    FakeCachestat fake(&seccomp_filter);

    // the server's probe on a file it owns fails too: that is the filter
    CHECK(cachectl_probe_cachestat(owned.path().c_str()) == CACHECTL_CACHESTAT_FILTERED);
    CHECK(pg_cachectl::choose_engine(EngineChoice::automatic, segment.fd()) == Engine::mincore);

    // forcing cachestat says why it cannot work
    cachectl_error error{};
    cachectl_os_engine resolved = CACHECTL_ENGINE_AUTO;
    CHECK(cachectl_resolve_engine(CACHECTL_ENGINE_CACHESTAT, segment.path().c_str(), &resolved, &error) ==
          CACHECTL_NOT_SUPPORTED);
    CHECK(error.unsupported == CACHECTL_CACHESTAT_FILTERED);
    CHECK(cachectl_resolve_engine(CACHECTL_ENGINE_AUTO, segment.path().c_str(), &resolved, &error) == CACHECTL_OK);
    CHECK(resolved == CACHECTL_ENGINE_MINCORE);
}

TEST_CASE("EPERM on a relation file after a good probe is a file error", "[fallback]") {
    pg_cachectl::test::TempDirectory dir;
    pg_cachectl::test::TempFile segment(dir, "seg");
    segment.append(64 * 1024);
    // the probe succeeded earlier (as the server's does on PG_VERSION) ...
    pg_cachectl::forget_cachestat_support();
    pg_cachectl::remember_cachestat_support(CachestatSupport::available);
    // ... and only now does the call on this file fail
    pg_cachectl::CachestatCall previous = pg_cachectl::set_cachestat_call(&seccomp_filter);

    cachectl_error error{};
    cachectl_residency_report *report = cachectl_residency_report_create(CACHECTL_ENGINE_AUTO, &error);
    REQUIRE(report != nullptr);
    const cachectl_status status = scan_fork_to_end(report, 0, segment.path().c_str(), 1 << 30, &error);
    cachectl_residency_report_free(report);
    pg_cachectl::set_cachestat_call(previous);
    pg_cachectl::forget_cachestat_support();

    CHECK(status == CACHECTL_FILE_ERROR);
    CHECK(error.saved_errno == EPERM); // the shim maps it to 42501
    CHECK(error.call == CACHECTL_CALL_CACHESTAT);
    CHECK(std::string(error.path) == segment.path());
}
