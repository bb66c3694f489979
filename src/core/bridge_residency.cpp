// bridge_residency.cpp — the noexcept C functions of residency.h: the
// residency report of a relation's segment files, and a fork's size.
#include "pg_cachectl/residency.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "fork_files.hpp"
#include "residency_report.hpp"

#include <memory>

// The opaque handle of residency.h is the C++ report itself.
struct cachectl_residency_report {
    explicit cachectl_residency_report(pg_cachectl::EngineChoice choice) : report(choice) {}
    pg_cachectl::ResidencyReport report;
};

namespace {

using pg_cachectl::engine_choice;
using pg_cachectl::run_captured;

cachectl_residency_counts to_bridge_counts(std::int64_t size_bytes, std::int64_t size_pages,
                                           const pg_cachectl::CacheCounts &counts, bool has_cachestat_counters) {
    cachectl_residency_counts out{};
    out.size_bytes = size_bytes;
    out.size_pages = size_pages;
    out.os_pages = counts.os_pages;
    out.os_dirty_pages = counts.os_dirty_pages;
    out.os_writeback_pages = counts.os_writeback_pages;
    out.os_evicted_pages = counts.os_evicted_pages;
    out.os_recently_evicted_pages = counts.os_recently_evicted_pages;
    out.has_cachestat_counters = has_cachestat_counters;
    return out;
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

// Destructors are noexcept: nothing here can throw, as below but for the steps.
void cachectl_residency_report_free(cachectl_residency_report *report) noexcept {
    std::unique_ptr<cachectl_residency_report> owned(report);
}

void cachectl_residency_report_clear(cachectl_residency_report *report) noexcept {
    if (report != nullptr)
        report->report.clear();
}

cachectl_status cachectl_residency_report_step_fork(cachectl_residency_report *report, int fork_number,
                                                    const char *base_path, int64_t segment_bytes, cachectl_step *step,
                                                    cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (report == nullptr || base_path == nullptr || step == nullptr)
            throw pg_cachectl::InvalidArgument("a report, a path and a step are required");
        step->finished = report->report.step_fork(fork_number, base_path, segment_bytes);
        step->delay_us = 0;
        return CACHECTL_OK;
    });
}

size_t cachectl_residency_report_row_count(const cachectl_residency_report *report) noexcept {
    return report == nullptr ? 0 : report->report.segments().size();
}

void cachectl_residency_report_row(const cachectl_residency_report *report, size_t index,
                                   cachectl_segment_row *row) noexcept {
    if (report == nullptr || row == nullptr || index >= report->report.segments().size())
        return;
    const auto &[key, segment] = *report->report.segments().nth(index);
    const bool by_cachestat = segment.engine == pg_cachectl::Engine::cachestat;
    row->fork_number = key.first;
    row->segment = key.second;
    row->path = segment.path.c_str();
    row->engine = by_cachestat ? CACHECTL_ENGINE_CACHESTAT : CACHECTL_ENGINE_MINCORE;
    row->counts = to_bridge_counts(segment.size_bytes, segment.size_pages, segment.counts, by_cachestat);
}

void cachectl_residency_report_total(const cachectl_residency_report *report,
                                     cachectl_residency_counts *total) noexcept {
    if (total == nullptr)
        return;
    *total = cachectl_residency_counts{};
    if (report == nullptr)
        return;
    const pg_cachectl::ResidencyTotal sum = report->report.total();
    *total = to_bridge_counts(sum.size_bytes, sum.size_pages, sum.counts, sum.has_cachestat_counters);
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

} // extern "C"
