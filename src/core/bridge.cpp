// bridge.cpp — the noexcept C functions of bridge.h.  Each runs its body in
// run_captured(), which turns every exception into a status and a message;
// those without a status to return run it in run_or() or count_or_remember()
// (see there for how their failures still reach the user).
#include "pg_cachectl/bridge.h"

#include "bridge_capture.hpp"
#include "buffer_scan.hpp"
#include "buffer_scan_handle.hpp"
#include "core_errors.hpp"
#include "fork_files.hpp"
#include "posix_handles.hpp"
#include "residency_report.hpp"
#include "segment_math.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

// The opaque handle of bridge.h is the C++ report itself.
struct cachectl_residency_report {
    explicit cachectl_residency_report(pg_cachectl::EngineChoice choice) : report(choice) {}
    pg_cachectl::ResidencyReport report;
};

namespace pg_cachectl {

EngineChoice engine_choice(const cachectl_os_engine &engine) {
    // The C side may hand over any int: read the bytes, since loading a value
    // outside the enum's range as the enum type is undefined in C++.
    int value = 0;
    static_assert(sizeof value == sizeof engine, "a C enum is an int here");
    std::memcpy(&value, &engine, sizeof value);
    switch (value) {
    case CACHECTL_ENGINE_CACHESTAT:
        return EngineChoice::cachestat;
    case CACHECTL_ENGINE_MINCORE:
        return EngineChoice::mincore;
    case CACHECTL_ENGINE_AUTO:
        return EngineChoice::automatic;
    }
    throw InvalidArgument("unknown OS cache engine");
}

} // namespace pg_cachectl

namespace {

using pg_cachectl::engine_choice;
using pg_cachectl::run_captured;

// For the calls with nothing but their result to report through: whatever
// the body throws becomes `fallback`, a value the caller already treats as
// "nothing here" (no row, no match).  None of them throws today; this keeps
// a future throw from unwinding into the server.
template <typename Result, typename Body>
Result run_or(Result fallback, Body &&body) noexcept {
    try {
        return body();
    } catch (...) {
        return fallback;
    }
}

// For the per-buffer calls of a pass: a failure is remembered in the scan,
// and cachectl_buffer_scan_finish() reports it as an internal error.
template <typename Body>
void count_or_remember(const cachectl_buffer_scan *scan, Body &&body) noexcept {
    try {
        body();
    } catch (...) {
        scan->lost_buffer = true;
    }
}

cachectl_residency_counts to_bridge_counts(std::int64_t size_bytes, std::int64_t os_pages,
                                           const pg_cachectl::CacheCounts &counts, bool has_cachestat_counters) {
    cachectl_residency_counts out{};
    out.size_bytes = size_bytes;
    out.os_pages = os_pages;
    out.cached_pages = counts.cached;
    out.dirty_pages = counts.dirty;
    out.writeback_pages = counts.writeback;
    out.evicted_pages = counts.evicted;
    out.recently_evicted_pages = counts.recently_evicted;
    out.has_cachestat_counters = has_cachestat_counters;
    return out;
}

pg_cachectl::RelationFileKey to_core_key(const cachectl_relation_file_key &key) {
    return pg_cachectl::RelationFileKey{key.tablespace, key.database, key.file_number};
}

bool copy_buffer_row(const cachectl_buffer_scan *scan, size_t index, cachectl_buffer_row *row) {
    if (scan == nullptr || row == nullptr || index >= scan->rows.size())
        return false;
    const pg_cachectl::BufferScan::Row &found = scan->rows[index];
    row->relation_id = found.relation_id;
    row->fork_number = found.fork;
    row->blocks = found.tally.blocks;
    row->buffers = found.tally.buffers;
    row->dirty = found.tally.dirty;
    row->pinned = found.tally.pinned;
    row->usage_count_sum = found.tally.usage_count_sum;
    row->evicted = found.tally.evicted;
    row->flushed = found.tally.flushed;
    row->skipped = found.tally.skipped;
    return true;
}

} // namespace

extern "C" {

cachectl_residency_report *cachectl_residency_report_create(cachectl_os_engine engine, cachectl_error *error) noexcept {
    cachectl_residency_report *created = nullptr;
    run_captured(error, [&] {
        auto report = std::make_unique<cachectl_residency_report>(engine_choice(engine));
        created = report.release(); // owned by the shim's memory-context callback from here on
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_residency_report_free(cachectl_residency_report *report) noexcept {
    // a destructor that threw would leak the rest of the report, no more
    run_or(0, [&] {
        std::unique_ptr<cachectl_residency_report> owned(report);
        return 0;
    });
}

void cachectl_residency_report_clear(cachectl_residency_report *report) noexcept {
    if (report == nullptr)
        return;
    // clearing a flat map and a position does not allocate; should it ever
    // fail, the next scan_fork starts from a fresh position anyway
    run_or(0, [&] {
        report->report.clear();
        return 0;
    });
}

cachectl_status cachectl_residency_report_scan_fork(cachectl_residency_report *report, int fork_number,
                                                    const char *base_path, int64_t segment_bytes,
                                                    const volatile sig_atomic_t *cancel_flag,
                                                    cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (report == nullptr || base_path == nullptr)
            throw pg_cachectl::InvalidArgument("a report and a path are required");
        bool finished = report->report.scan_fork(fork_number, base_path, segment_bytes, cancel_flag);
        return finished ? CACHECTL_OK : CACHECTL_CANCELLED;
    });
}

size_t cachectl_residency_report_row_count(const cachectl_residency_report *report) noexcept {
    return run_or(std::size_t{0}, [&] { return report == nullptr ? 0 : report->report.segments().size(); });
}

// false (the shim raises "row missing") if the row cannot be read
bool cachectl_residency_report_row(const cachectl_residency_report *report, size_t index,
                                   cachectl_segment_row *row) noexcept {
    return run_or(false, [&] {
        if (report == nullptr || row == nullptr || index >= report->report.segments().size())
            return false;
        const auto &[key, segment] = *report->report.segments().nth(index);
        const bool by_cachestat = segment.engine == pg_cachectl::Engine::cachestat;
        row->fork_number = key.first;
        row->segment = key.second;
        row->path = segment.path.c_str();
        row->engine = by_cachestat ? CACHECTL_ENGINE_CACHESTAT : CACHECTL_ENGINE_MINCORE;
        row->counts = to_bridge_counts(segment.size_bytes, segment.os_pages, segment.counts, by_cachestat);
        return true;
    });
}

// all zero if the sum cannot be made (summing integers does not throw today)
void cachectl_residency_report_total(const cachectl_residency_report *report,
                                     cachectl_residency_counts *total) noexcept {
    if (total == nullptr)
        return;
    *total = cachectl_residency_counts{};
    if (report == nullptr)
        return;
    run_or(0, [&] {
        pg_cachectl::ResidencyTotal sum = report->report.total();
        *total = to_bridge_counts(sum.size_bytes, sum.os_pages, sum.counts, sum.has_cachestat_counters);
        return 0;
    });
}

cachectl_cachestat_support cachectl_probe_cachestat(const char *owned_file_path) noexcept {
    cachectl_cachestat_support result = CACHECTL_CACHESTAT_MISSING;
    cachectl_error ignored{};
    cachectl_status status = run_captured(&ignored, [&] {
        if (auto remembered = pg_cachectl::remembered_cachestat_support()) {
            result = static_cast<cachectl_cachestat_support>(*remembered);
            return CACHECTL_OK;
        }
        pg_cachectl::UniqueFd fd = pg_cachectl::open_relation_file(owned_file_path);
        pg_cachectl::CachestatSupport support = pg_cachectl::probe_cachestat_on(fd.get());
        pg_cachectl::remember_cachestat_support(support);
        result = static_cast<cachectl_cachestat_support>(support);
        return CACHECTL_OK;
    });
    // A probe that could not even open its file proves nothing: say missing,
    // so the automatic engine falls back to mincore, which always works.
    return status == CACHECTL_OK ? result : CACHECTL_CACHESTAT_MISSING;
}

cachectl_status cachectl_resolve_engine(cachectl_os_engine choice, const char *path, cachectl_os_engine *resolved,
                                        cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (path == nullptr || resolved == nullptr)
            throw pg_cachectl::InvalidArgument("a path and a result are required");
        pg_cachectl::UniqueFd fd = pg_cachectl::open_relation_file(path);
        pg_cachectl::Engine engine = pg_cachectl::choose_engine(engine_choice(choice), fd.get());
        *resolved = engine == pg_cachectl::Engine::cachestat ? CACHECTL_ENGINE_CACHESTAT : CACHECTL_ENGINE_MINCORE;
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_fork_size(const char *base_path, int64_t segment_bytes, int64_t *size_bytes,
                                   cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (base_path == nullptr || size_bytes == nullptr)
            throw pg_cachectl::InvalidArgument("a path and a result are required");
        *size_bytes = pg_cachectl::fork_size_bytes(base_path, segment_bytes).value_or(-1);
        return CACHECTL_OK;
    });
}

cachectl_buffer_scan *cachectl_buffer_scan_create(cachectl_error *error) noexcept {
    cachectl_buffer_scan *created = nullptr;
    run_captured(error, [&] {
        created = std::make_unique<cachectl_buffer_scan>().release(); // freed by the shim's callback
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_buffer_scan_free(cachectl_buffer_scan *scan) noexcept {
    run_or(0, [&] {
        std::unique_ptr<cachectl_buffer_scan> owned(scan);
        return 0;
    });
}

cachectl_status cachectl_buffer_scan_want(cachectl_buffer_scan *scan, const cachectl_relation_file_key *key,
                                          uint32_t relation_id, const int64_t fork_blocks[CACHECTL_FORK_COUNT],
                                          cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr || key == nullptr || fork_blocks == nullptr)
            throw pg_cachectl::InvalidArgument("a scan, a key and fork sizes are required");
        std::array<std::int64_t, pg_cachectl::fork_count> blocks{};
        for (int fork = 0; fork < pg_cachectl::fork_count; ++fork)
            blocks[fork] = fork_blocks[fork];
        scan->scan.want(to_core_key(*key), relation_id, blocks);
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_buffer_scan_seal(cachectl_buffer_scan *scan, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr)
            throw pg_cachectl::InvalidArgument("a scan is required");
        scan->scan.seal();
        return CACHECTL_OK;
    });
}

int cachectl_buffer_scan_match(const cachectl_buffer_scan *scan, const cachectl_relation_file_key *key,
                               int fork_number) noexcept {
    if (scan == nullptr || key == nullptr)
        return -1;
    int slot = -1;
    count_or_remember(scan, [&] { slot = scan->scan.match(to_core_key(*key), fork_number); });
    return slot;
}

void cachectl_buffer_scan_count_resident(cachectl_buffer_scan *scan, int slot, bool dirty, bool pinned,
                                         int usage_count) noexcept {
    if (scan == nullptr)
        return;
    count_or_remember(scan, [&] { scan->scan.count_resident(slot, dirty, pinned, usage_count); });
}

void cachectl_buffer_scan_count_eviction(cachectl_buffer_scan *scan, int slot,
                                         cachectl_eviction_outcome outcome) noexcept {
    if (scan == nullptr)
        return;
    count_or_remember(scan, [&] {
        switch (outcome) {
        case CACHECTL_EVICTED:
            scan->scan.count_eviction(slot, pg_cachectl::EvictionOutcome::evicted);
            break;
        case CACHECTL_FLUSHED_AND_EVICTED:
            scan->scan.count_eviction(slot, pg_cachectl::EvictionOutcome::flushed_and_evicted);
            break;
        case CACHECTL_SKIPPED:
            scan->scan.count_eviction(slot, pg_cachectl::EvictionOutcome::skipped);
            break;
        }
    });
}

cachectl_status cachectl_buffer_scan_finish(cachectl_buffer_scan *scan, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr)
            throw pg_cachectl::InvalidArgument("a scan is required");
        if (scan->lost_buffer)
            throw std::runtime_error("a buffer could not be matched or counted: the totals would be short");
        scan->rows = scan->scan.rows();
        return CACHECTL_OK;
    });
}

size_t cachectl_buffer_scan_row_count(const cachectl_buffer_scan *scan) noexcept {
    return run_or(std::size_t{0}, [&] { return scan == nullptr ? 0 : scan->rows.size(); });
}

// false (the shim raises "row missing") if the row cannot be read
bool cachectl_buffer_scan_row(const cachectl_buffer_scan *scan, size_t index, cachectl_buffer_row *row) noexcept {
    return run_or(false, [&] { return copy_buffer_row(scan, index, row); });
}

int64_t cachectl_os_page_size() noexcept {
    try {
        return pg_cachectl::os_page_size();
    } catch (...) {
        return -1; // sysconf failed: the shim reports it
    }
}

const char *cachectl_engine_name(cachectl_os_engine engine) noexcept {
    switch (engine) {
    case CACHECTL_ENGINE_CACHESTAT:
        return "cachestat";
    case CACHECTL_ENGINE_MINCORE:
        return "mincore";
    case CACHECTL_ENGINE_AUTO:
        return "auto";
    }
    return "unknown";
}

} // extern "C"
