// restore_planner.cpp — remapping, chunking and the chunks of one relation's
// restore.
#include "restore_planner.hpp"

#include "core_errors.hpp"

#include <algorithm>

namespace pg_cachectl {

RunList remap_runs(const RunList &runs, std::int64_t recorded_blocks, std::int64_t now_blocks) {
    if (recorded_blocks < 0 || now_blocks < 0)
        throw InvalidArgument("fork lengths must not be negative");
    RunList mapped;
    if (recorded_blocks == 0)
        return mapped;
    // exact: a block number times a fork length can pass 2^63
    using wide = __int128;
    for (const BlockRange &run : runs) {
        const wide first = static_cast<wide>(run.first) * now_blocks / recorded_blocks;
        const wide end = (static_cast<wide>(run.end()) * now_blocks + recorded_blocks - 1) / recorded_blocks;
        mapped.push_back(BlockRange{static_cast<std::int64_t>(first), static_cast<std::int64_t>(end - first)});
    }
    return normalized_runs(std::move(mapped));
}

std::vector<RunList> cut_into_chunks(const RunList &runs, std::int64_t chunk_blocks) {
    if (chunk_blocks <= 0)
        throw InvalidArgument("a chunk holds at least one block");
    std::vector<RunList> chunks;
    std::int64_t loaded = 0; // blocks in the pieces so far
    std::int64_t chunk_number = -1;
    for (const BlockRange &run : runs) {
        for (std::int64_t first = run.first; first < run.end(); first += chunk_blocks) {
            const BlockRange piece{first, std::min(chunk_blocks, run.end() - first)};
            loaded += piece.count;
            // a piece belongs to the chunk in which its last block falls
            const std::int64_t number = (loaded - 1) / chunk_blocks;
            if (number != chunk_number) {
                chunks.emplace_back();
                chunk_number = number;
            }
            RunList &chunk = chunks.back();
            if (!chunk.empty() && chunk.back().end() == piece.first)
                chunk.back().count += piece.count;
            else
                chunk.push_back(piece);
        }
    }
    return chunks;
}

namespace {

// The runs of a row to load: clipped to the fork now (or remapped), less
// what is resident already.
RunList runs_to_load(const RecordedFork &row, bool remapped) {
    RunList runs = remapped ? remap_runs(row.runs, row.recorded_blocks, row.now_blocks) : normalized_runs(row.runs);
    runs = intersect_runs(runs, RunList{BlockRange{0, row.now_blocks}});
    if (row.resident)
        runs = subtract_runs(runs, normalized_runs(*row.resident));
    return runs;
}

const RecordedFork *os_row_of(std::span<const RecordedFork> rows, int fork) {
    for (const RecordedFork &row : rows)
        if (row.layer == SnapshotLayer::os && row.fork == fork)
            return &row;
    return nullptr;
}

void add_chunks(std::vector<PlannedChunk> &plan, const RecordedFork &row, bool drop_os_copy, const RunList &runs,
                std::int64_t chunk_blocks) {
    for (RunList &chunk : cut_into_chunks(runs, chunk_blocks))
        plan.push_back(PlannedChunk{row.fork, row.layer, drop_os_copy, std::move(chunk)});
}

} // namespace

std::vector<PlannedChunk> plan_relation(std::span<const RecordedFork> rows, const RelationPlanOptions &options) {
    std::vector<PlannedChunk> plan;
    for (SnapshotLayer layer : {SnapshotLayer::os, SnapshotLayer::shared}) {
        for (const RecordedFork &row : rows) {
            if (row.layer != layer)
                continue;
            const RunList runs = runs_to_load(row, options.remapped);
            if (runs.empty())
                continue;
            // Reading into shared buffers brings each block into the OS
            // cache too: the blocks the snapshot had in shared buffers only
            // are loaded with their OS copy dropped, so both layers come back
            // as they were (by block, so not for a remapped relation).
            if (layer == SnapshotLayer::shared && options.both_layers && !options.remapped) {
                const RecordedFork *os_row = os_row_of(rows, row.fork);
                const RunList os_runs = os_row != nullptr ? normalized_runs(os_row->runs) : RunList{};
                add_chunks(plan, row, false, intersect_runs(runs, os_runs), options.chunk_blocks);
                add_chunks(plan, row, true, subtract_runs(runs, os_runs), options.chunk_blocks);
            } else {
                add_chunks(plan, row, false, runs, options.chunk_blocks);
            }
        }
    }
    return plan;
}

} // namespace pg_cachectl
