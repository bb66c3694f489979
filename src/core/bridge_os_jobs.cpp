// bridge_os_jobs.cpp — the noexcept C functions of os_jobs.h: the OS
// page-cache jobs that drop and prefetch a fork.
#include "pg_cachectl/os_jobs.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "fork_drop.hpp"
#include "fork_prefetch.hpp"
#include "throttle.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

// The opaque handles of os_jobs.h are the C++ jobs themselves.
struct cachectl_os_drop {
    pg_cachectl::ForkDrop job;
};

struct cachectl_os_prefetch {
    pg_cachectl::ForkPrefetch job;
};

namespace {

using pg_cachectl::run_captured;

pg_cachectl::ForkPrefetch::Options prefetch_options(const cachectl_prefetch_options *options) {
    if (options == nullptr)
        throw pg_cachectl::InvalidArgument("prefetch options are required");
    pg_cachectl::ForkPrefetch::Options converted;
    converted.engine = pg_cachectl::engine_choice(options->engine);
    if (options->max_bytes_per_second > 0)
        converted.throttle = pg_cachectl::Throttle(options->max_bytes_per_second);
    converted.wait = options->wait;
    return converted;
}

cachectl_call drop_call(pg_cachectl::DropCall call) {
    switch (call) {
    case pg_cachectl::DropCall::start_writeback:
        return CACHECTL_CALL_START_WRITEBACK;
    case pg_cachectl::DropCall::wait_writeback:
        return CACHECTL_CALL_WAIT_WRITEBACK;
    case pg_cachectl::DropCall::fsync:
        return CACHECTL_CALL_FSYNC;
    case pg_cachectl::DropCall::advise:
        return CACHECTL_CALL_FADVISE_DONTNEED;
    }
    return CACHECTL_CALL_FSYNC;
}

} // namespace

extern "C" {

cachectl_os_drop *cachectl_os_drop_create(const char *base_path, int64_t segment_bytes,
                                          cachectl_error *error) noexcept {
    cachectl_os_drop *created = nullptr;
    run_captured(error, [&] {
        if (base_path == nullptr)
            throw pg_cachectl::InvalidArgument("a path is required");
        created = std::make_unique<cachectl_os_drop>(cachectl_os_drop{pg_cachectl::ForkDrop(base_path, segment_bytes)})
                      .release(); // freed by the shim's memory-context callback
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_os_drop_free(cachectl_os_drop *drop) noexcept {
    std::unique_ptr<cachectl_os_drop> owned(drop);
}

cachectl_status cachectl_os_drop_step(cachectl_os_drop *drop, cachectl_step *step, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (drop == nullptr || step == nullptr || error == nullptr)
            throw pg_cachectl::InvalidArgument("a drop job, a step and an error are required");
        *step = cachectl_step{};
        switch (drop->job.step()) {
        case pg_cachectl::ForkDrop::Step::more:
            return CACHECTL_OK;
        case pg_cachectl::ForkDrop::Step::done:
            step->finished = true;
            return CACHECTL_OK;
        case pg_cachectl::ForkDrop::Step::failed:
            break;
        }
        const pg_cachectl::DropFailure &found = drop->job.failure();
        pg_cachectl::begin_error(error, CACHECTL_WRITE_BACK_FAILED);
        error->call = drop_call(found.call);
        error->saved_errno = found.error_number;
        pg_cachectl::copy_path(error, found.path);
        return CACHECTL_WRITE_BACK_FAILED;
    });
}

cachectl_status cachectl_os_drop_limit(cachectl_os_drop *drop, int64_t first_byte, int64_t end_byte,
                                       cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (drop == nullptr)
            throw pg_cachectl::InvalidArgument("a drop job is required");
        drop->job.limit_to(first_byte, end_byte);
        return CACHECTL_OK;
    });
}

int64_t cachectl_throttle_delay_us(double max_bytes_per_second, int64_t bytes_done, int64_t elapsed_us) noexcept {
    try {
        if (max_bytes_per_second <= 0)
            return 0;
        return pg_cachectl::Throttle(max_bytes_per_second)
            .delay_before_more(bytes_done, std::chrono::microseconds{elapsed_us})
            .count();
    } catch (...) {
        return 0; // an impossible rate: the shim validated it, so never here
    }
}

int64_t cachectl_os_drop_bytes_written_back(const cachectl_os_drop *drop) noexcept {
    return drop == nullptr ? 0 : drop->job.bytes_written_back();
}

cachectl_os_prefetch *cachectl_os_prefetch_create(const char *base_path, int64_t segment_bytes, int64_t block_size,
                                                  const cachectl_block_range *ranges, size_t range_count,
                                                  const cachectl_prefetch_options *options,
                                                  cachectl_error *error) noexcept {
    cachectl_os_prefetch *created = nullptr;
    run_captured(error, [&] {
        if (base_path == nullptr || (ranges == nullptr && range_count > 0))
            throw pg_cachectl::InvalidArgument("a path and block ranges are required");
        std::vector<pg_cachectl::BlockRange> blocks;
        blocks.reserve(range_count);
        for (size_t index = 0; index < range_count; ++index)
            blocks.push_back(pg_cachectl::BlockRange{ranges[index].first, ranges[index].count});
        created = std::make_unique<cachectl_os_prefetch>(
                      cachectl_os_prefetch{pg_cachectl::ForkPrefetch(base_path, segment_bytes, block_size,
                                                                     std::move(blocks), prefetch_options(options))})
                      .release();
        return CACHECTL_OK;
    });
    return created;
}

cachectl_os_prefetch *cachectl_os_prefetch_create_from_map(const char *base_path, int64_t segment_bytes,
                                                           int64_t block_size, const uint8_t *bits, int64_t bit_count,
                                                           const cachectl_prefetch_options *options,
                                                           cachectl_error *error) noexcept {
    cachectl_os_prefetch *created = nullptr;
    run_captured(error, [&] {
        if (base_path == nullptr || (bits == nullptr && bit_count > 0) || bit_count < 0)
            throw pg_cachectl::InvalidArgument("a path and a bit string are required");
        // The view is read only here; BitmapView takes mutable bytes for maps it builds.
        std::span<std::uint8_t> bytes(const_cast<std::uint8_t *>(bits),
                                      static_cast<std::size_t>(pg_cachectl::bitmap_bytes(bit_count)));
        const pg_cachectl::BitmapView map(bytes, bit_count);
        created = std::make_unique<cachectl_os_prefetch>(
                      cachectl_os_prefetch{pg_cachectl::ForkPrefetch(base_path, segment_bytes, block_size, map,
                                                                     prefetch_options(options))})
                      .release();
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_os_prefetch_free(cachectl_os_prefetch *prefetch) noexcept {
    std::unique_ptr<cachectl_os_prefetch> owned(prefetch);
}

cachectl_status cachectl_os_prefetch_step(cachectl_os_prefetch *prefetch, cachectl_step *step,
                                          cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (prefetch == nullptr || step == nullptr)
            throw pg_cachectl::InvalidArgument("a prefetch job and a step are required");
        const pg_cachectl::ForkPrefetch::Step done = prefetch->job.step();
        step->finished = done.finished;
        step->delay_us = done.delay.count();
        return CACHECTL_OK;
    });
}

void cachectl_os_prefetch_result_of(const cachectl_os_prefetch *prefetch, cachectl_prefetch_result *result) noexcept {
    if (result == nullptr)
        return;
    *result = cachectl_prefetch_result{};
    if (prefetch == nullptr)
        return;
    const pg_cachectl::ForkPrefetch &job = prefetch->job;
    result->blocks_requested = job.blocks_requested();
    result->blocks_past_end = job.blocks_past_end();
    result->pages_requested = job.pages_requested();
    result->os_pages_after = job.os_pages_after();
    result->bytes_advised = job.bytes_advised();
    result->stalled = job.stalled();
}

cachectl_advice_caveat cachectl_os_prefetch_caveat(const cachectl_os_prefetch *prefetch) noexcept {
    if (prefetch == nullptr)
        return CACHECTL_CAVEAT_NONE;
    switch (prefetch->job.filesystem()) {
    case pg_cachectl::FilesystemKind::tmpfs:
        return CACHECTL_CAVEAT_TMPFS;
    case pg_cachectl::FilesystemKind::zfs:
        return CACHECTL_CAVEAT_ZFS;
    case pg_cachectl::FilesystemKind::overlayfs:
    case pg_cachectl::FilesystemKind::ordinary:
        break;
    }
    return CACHECTL_CAVEAT_NONE;
}

} // extern "C"
