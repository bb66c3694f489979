/*
 * restore_plans.h — the restore-plan handle of the bridge: the chunks that
 * load one relation of a cache snapshot back (restore_planner.hpp), planned
 * from the rows the shim read and the fork lengths it measured.
 */
#ifndef PG_CACHECTL_RESTORE_PLANS_H
#define PG_CACHECTL_RESTORE_PLANS_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef enum cachectl_snapshot_layer
{
	CACHECTL_SNAPSHOT_OS = 0,
	CACHECTL_SNAPSHOT_SHARED
} cachectl_snapshot_layer;

typedef struct cachectl_restore_plan cachectl_restore_plan;

/*
 * A plan for one relation.  both_layers: the target is both layers;
 * remapped: rewritten or matched by name, its runs mapped by share of the
 * fork; chunk_blocks: the most blocks one chunk holds.
 */
CACHECTL_BRIDGE_API cachectl_restore_plan *cachectl_restore_plan_create(bool both_layers, bool remapped,
																		 int64_t chunk_blocks,
																		 cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_restore_plan_free(cachectl_restore_plan *plan) CACHECTL_NOEXCEPT;

/* One snapshot row of the relation: its fork, layer, length then and now, runs. */
CACHECTL_BRIDGE_API cachectl_status cachectl_restore_plan_add_row(cachectl_restore_plan *plan, int fork,
																  cachectl_snapshot_layer layer,
																  int64_t recorded_blocks, int64_t now_blocks,
																  const cachectl_block_range *runs, size_t count,
																  cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * What the layer of the last row added holds now, left out of its chunks:
 * as runs, or as sorted block numbers (found in shared buffers).
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_restore_plan_resident_runs(cachectl_restore_plan *plan,
																		const cachectl_block_range *runs,
																		size_t count,
																		cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API cachectl_status cachectl_restore_plan_resident_blocks(cachectl_restore_plan *plan,
																		  const uint32_t *blocks, size_t count,
																		  cachectl_error *error) CACHECTL_NOEXCEPT;

/* Plans the chunks of the rows added; sets how many there are. */
CACHECTL_BRIDGE_API cachectl_status cachectl_restore_plan_make(cachectl_restore_plan *plan, size_t *chunk_count,
															   cachectl_error *error) CACHECTL_NOEXCEPT;

/* One chunk of a made plan; its runs are the plan's until the next call. */
typedef struct cachectl_planned_chunk
{
	int			fork;
	cachectl_snapshot_layer layer;
	bool		drop_os_copy;
	const cachectl_block_range *runs;
	size_t		run_count;
} cachectl_planned_chunk;

CACHECTL_BRIDGE_API cachectl_status cachectl_restore_plan_chunk(cachectl_restore_plan *plan, size_t index,
																cachectl_planned_chunk *chunk,
																cachectl_error *error) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_RESTORE_PLANS_H */
