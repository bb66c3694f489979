// bridge_restore_plans.cpp — the noexcept C functions of restore_plans.h.
#include "pg_cachectl/restore_plans.h"

#include "block_lists.hpp"
#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "restore_planner.hpp"

#include <memory>
#include <span>
#include <vector>

// The opaque handle: the rows added, the chunks made from them, and the runs
// of the chunk last handed out, in the C layout.
struct cachectl_restore_plan {
    pg_cachectl::RelationPlanOptions options;
    std::vector<pg_cachectl::RecordedFork> rows;
    std::vector<pg_cachectl::PlannedChunk> chunks;
    std::vector<cachectl_block_range> handed_out;
};

namespace {

using pg_cachectl::run_captured;

pg_cachectl::RunList run_list(const cachectl_block_range *runs, size_t count) {
    if (runs == nullptr && count > 0)
        throw pg_cachectl::InvalidArgument("block runs are required");
    pg_cachectl::RunList list;
    list.reserve(count);
    for (size_t index = 0; index < count; ++index) {
        if (runs[index].first < 0 || runs[index].count < 0)
            throw pg_cachectl::InvalidArgument("block runs must not be negative");
        list.push_back(pg_cachectl::BlockRange{runs[index].first, runs[index].count});
    }
    return list;
}

pg_cachectl::RecordedFork &last_row(cachectl_restore_plan *plan) {
    if (plan == nullptr || plan->rows.empty())
        throw pg_cachectl::InvalidArgument("a plan with a row is required");
    return plan->rows.back();
}

} // namespace

extern "C" {

cachectl_restore_plan *cachectl_restore_plan_create(bool both_layers, bool remapped, int64_t chunk_blocks,
                                                    cachectl_error *error) noexcept {
    cachectl_restore_plan *created = nullptr;
    run_captured(error, [&] {
        if (chunk_blocks <= 0)
            throw pg_cachectl::InvalidArgument("a chunk holds at least one block");
        auto plan = std::make_unique<cachectl_restore_plan>();
        plan->options = pg_cachectl::RelationPlanOptions{both_layers, remapped, chunk_blocks};
        created = plan.release();
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_restore_plan_free(cachectl_restore_plan *plan) noexcept {
    std::unique_ptr<cachectl_restore_plan> owned(plan);
}

cachectl_status cachectl_restore_plan_add_row(cachectl_restore_plan *plan, int fork, cachectl_snapshot_layer layer,
                                              int64_t recorded_blocks, int64_t now_blocks,
                                              const cachectl_block_range *runs, size_t count,
                                              cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (plan == nullptr || fork < 0 || fork >= CACHECTL_FORK_COUNT || recorded_blocks < 0 || now_blocks < 0)
            throw pg_cachectl::InvalidArgument("a plan, a fork and fork lengths are required");
        pg_cachectl::RecordedFork row;
        row.fork = fork;
        row.layer = layer == CACHECTL_SNAPSHOT_SHARED ? pg_cachectl::SnapshotLayer::shared
                                                      : pg_cachectl::SnapshotLayer::os;
        row.recorded_blocks = recorded_blocks;
        row.now_blocks = now_blocks;
        row.runs = pg_cachectl::normalized_runs(run_list(runs, count));
        plan->rows.push_back(std::move(row));
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_restore_plan_resident_runs(cachectl_restore_plan *plan, const cachectl_block_range *runs,
                                                    size_t count, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        last_row(plan).resident = pg_cachectl::normalized_runs(run_list(runs, count));
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_restore_plan_resident_blocks(cachectl_restore_plan *plan, const uint32_t *blocks,
                                                      size_t count, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (blocks == nullptr && count > 0)
            throw pg_cachectl::InvalidArgument("block numbers are required");
        last_row(plan).resident =
            pg_cachectl::normalized_runs(pg_cachectl::runs_of_blocks(std::span<const uint32_t>(blocks, count)));
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_restore_plan_make(cachectl_restore_plan *plan, size_t *chunk_count,
                                           cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (plan == nullptr || chunk_count == nullptr)
            throw pg_cachectl::InvalidArgument("a plan and a count are required");
        plan->chunks = pg_cachectl::plan_relation(plan->rows, plan->options);
        *chunk_count = plan->chunks.size();
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_restore_plan_chunk(cachectl_restore_plan *plan, size_t index,
                                            cachectl_planned_chunk *chunk, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (plan == nullptr || chunk == nullptr || index >= plan->chunks.size())
            throw pg_cachectl::InvalidArgument("a made plan and a chunk within it are required");
        const pg_cachectl::PlannedChunk &planned = plan->chunks[index];
        chunk->fork = planned.fork;
        chunk->layer = planned.layer == pg_cachectl::SnapshotLayer::shared ? CACHECTL_SNAPSHOT_SHARED
                                                                           : CACHECTL_SNAPSHOT_OS;
        chunk->drop_os_copy = planned.drop_os_copy;
        plan->handed_out.clear();
        for (const pg_cachectl::BlockRange &run : planned.runs)
            plan->handed_out.push_back(cachectl_block_range{run.first, run.count});
        chunk->runs = plan->handed_out.data();
        chunk->run_count = plan->handed_out.size();
        return CACHECTL_OK;
    });
}

} // extern "C"
