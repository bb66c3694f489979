// bridge_buffer_scan.cpp — the noexcept C functions of buffer_scan.h: a
// buffer-pool pass, its counts and the block numbers it found.
#include "pg_cachectl/buffer_scan.h"

#include "bridge_capture.hpp"
#include "buffer_scan.hpp"
#include "core_errors.hpp"

#include <array>
#include <memory>
#include <vector>

// The bridge's fork count is the core's (the shim ties it to MAX_FORKNUM).
static_assert(CACHECTL_FORK_COUNT == pg_cachectl::fork_count, "one fork count on both sides of the bridge");

// A buffer-pool pass and, once finished, its rows.
struct cachectl_buffer_scan {
    pg_cachectl::BufferScan scan;
    std::vector<pg_cachectl::BufferScan::Row> rows;
};

namespace {

using pg_cachectl::run_captured;

pg_cachectl::RelationFileKey to_core_key(const cachectl_relation_file_key &key) noexcept {
    return pg_cachectl::RelationFileKey{key.tablespace, key.database, key.file_number};
}

void copy_buffer_row(const cachectl_buffer_scan *scan, size_t index, cachectl_buffer_row *row) noexcept {
    if (scan == nullptr || row == nullptr || index >= scan->rows.size())
        return;
    const pg_cachectl::BufferScan::Row &found = scan->rows[index];
    row->relation_id = found.relation_id;
    row->fork_number = found.fork;
    row->size_blocks = found.tally.size_blocks;
    row->shared_blocks = found.tally.shared_blocks;
    row->shared_dirty_blocks = found.tally.shared_dirty_blocks;
    row->shared_pinned_blocks = found.tally.shared_pinned_blocks;
    row->usage_count_sum = found.tally.usage_count_sum;
    row->buffers_evicted = found.tally.buffers_evicted;
    row->buffers_flushed = found.tally.buffers_flushed;
    row->buffers_skipped = found.tally.buffers_skipped;
}

} // namespace

extern "C" {

cachectl_buffer_scan *cachectl_buffer_scan_create(cachectl_error *error) noexcept {
    cachectl_buffer_scan *created = nullptr;
    run_captured(error, [&] {
        created = std::make_unique<cachectl_buffer_scan>().release(); // freed by the shim's callback
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_buffer_scan_free(cachectl_buffer_scan *scan) noexcept {
    std::unique_ptr<cachectl_buffer_scan> owned(scan);
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
    return scan->scan.match(to_core_key(*key), fork_number);
}

void cachectl_buffer_scan_count_resident(cachectl_buffer_scan *scan, int slot, bool dirty, bool pinned,
                                         int usage_count) noexcept {
    if (scan == nullptr)
        return;
    scan->scan.count_resident(slot, dirty, pinned, usage_count);
}

void cachectl_buffer_scan_count_eviction(cachectl_buffer_scan *scan, int slot,
                                         cachectl_eviction_outcome outcome) noexcept {
    if (scan == nullptr)
        return;
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
}

cachectl_status cachectl_buffer_scan_finish(cachectl_buffer_scan *scan, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr)
            throw pg_cachectl::InvalidArgument("a scan is required");
        scan->rows = scan->scan.rows();
        return CACHECTL_OK;
    });
}

size_t cachectl_buffer_scan_row_count(const cachectl_buffer_scan *scan) noexcept {
    return scan == nullptr ? 0 : scan->rows.size();
}

void cachectl_buffer_scan_row(const cachectl_buffer_scan *scan, size_t index, cachectl_buffer_row *row) noexcept {
    copy_buffer_row(scan, index, row);
}

cachectl_status cachectl_buffer_scan_collect_blocks(cachectl_buffer_scan *scan, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr)
            throw pg_cachectl::InvalidArgument("a scan is required");
        scan->scan.collect_blocks();
        return CACHECTL_OK;
    });
}

bool cachectl_buffer_scan_count_resident_block(cachectl_buffer_scan *scan, int slot, uint32_t block, bool dirty,
                                               bool pinned, int usage_count) noexcept {
    if (scan == nullptr)
        return false;
    return scan->scan.count_resident_block(slot, block, dirty, pinned, usage_count);
}

bool cachectl_buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32_t **blocks,
                                     size_t *count) noexcept {
    if (scan == nullptr || blocks == nullptr || count == nullptr || index >= scan->rows.size() ||
        !scan->scan.blocks_complete())
        return false;
    const pg_cachectl::BufferScan::Row &row = scan->rows[index];
    const std::vector<std::uint32_t> &found = scan->scan.blocks_of(row.relation_id, row.fork);
    *blocks = found.data();
    *count = found.size();
    return true;
}

bool cachectl_buffer_scan_row_hot_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32_t **blocks,
                                         size_t *count) noexcept {
    if (scan == nullptr || blocks == nullptr || count == nullptr || index >= scan->rows.size() ||
        !scan->scan.blocks_complete())
        return false;
    const pg_cachectl::BufferScan::Row &row = scan->rows[index];
    const std::vector<std::uint32_t> &found = scan->scan.hot_blocks_of(row.relation_id, row.fork);
    *blocks = found.data();
    *count = found.size();
    return true;
}

} // extern "C"
