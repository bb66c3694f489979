// restore_planner.hpp — what loading one relation of a cache snapshot back
// means: each recorded run list clipped to the fork as it is now (or remapped
// by its share of the fork when the relation was rewritten), less what is
// resident already when asked, OS runs before shared runs, the shared runs
// the snapshot had without an OS copy marked so, and all of it cut into
// chunks that one transaction loads.  restore() and the autowarm worker
// follow the same plan.
#pragma once
#include "server_free.hpp"

#include "run_lists.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pg_cachectl {

// The same share of a fork that had recorded_blocks blocks, at the same
// relative place, in a fork of now_blocks blocks: each run [a, b) becomes
// [floor(a * now / recorded), ceil(b * now / recorded)).  A fork recorded
// empty maps to nothing.
RunList remap_runs(const RunList &runs, std::int64_t recorded_blocks, std::int64_t now_blocks);

// Pieces of at most chunk_blocks blocks (each run cut from its own start),
// grouped by the multiple of chunk_blocks in which the running total of
// their blocks ends: a chunk holds fewer than twice chunk_blocks blocks.
std::vector<RunList> cut_into_chunks(const RunList &runs, std::int64_t chunk_blocks);

enum class SnapshotLayer { os, shared };

// One row of the snapshot for the relation (one fork in one layer).
struct RecordedFork {
    int fork = 0;
    SnapshotLayer layer = SnapshotLayer::os;
    std::int64_t recorded_blocks = 0; // the fork's length when it was recorded
    RunList runs;                     // normalized, within recorded_blocks
    std::int64_t now_blocks = 0;      // the fork's length now
    std::optional<RunList> resident;  // what the layer holds now, left out when given
};

struct RelationPlanOptions {
    bool both_layers = true; // the target is both layers (else rows are of one)
    bool remapped = false;   // the relation was rewritten or matched by name
    std::int64_t chunk_blocks = 4096;
};

struct PlannedChunk {
    int fork = 0;
    SnapshotLayer layer = SnapshotLayer::os;
    bool drop_os_copy = false; // shared blocks the snapshot had without an OS copy
    RunList runs;
};

// The chunks for the rows of one relation (rows of the target's layers):
// the OS rows first (so that buffer reads then find their pages cached),
// then the shared rows, each layer in the order of the rows.
std::vector<PlannedChunk> plan_relation(std::span<const RecordedFork> rows, const RelationPlanOptions &options);

} // namespace pg_cachectl
