/*
 * block_runs.h — runs of 8 kB block numbers as SQL holds them (int8multirange)
 * and as the core takes them (cachectl_block_range), both ways.
 */
#ifndef PG_CACHECTL_BLOCK_RUNS_H
#define PG_CACHECTL_BLOCK_RUNS_H

#include "utils/multirangetypes.h"

#include "pg_cachectl/bridge_common.h"

/*
 * The runs of a multirange below `limit` (the last one clipped there), in
 * order, palloc'd; *count of them.  A negative block number: 22023.
 * Cancellable, however many runs there are.
 */
extern cachectl_block_range *block_runs_from_multirange(const MultirangeType *runs, int64 limit, int *count);

/* An int8multirange of the runs (sorted or not, touching or not). */
extern Datum block_runs_to_multirange(const cachectl_block_range *runs, size_t count);

/* How many blocks the runs hold. */
extern int64 block_runs_blocks(const cachectl_block_range *runs, size_t count);

/* The blocks in both of two sorted, disjoint run lists, as runs (palloc'd). */
extern cachectl_block_range *block_runs_intersect(const cachectl_block_range *left, size_t left_count,
												  const cachectl_block_range *right, size_t right_count,
												  size_t *count);

#endif							/* PG_CACHECTL_BLOCK_RUNS_H */
