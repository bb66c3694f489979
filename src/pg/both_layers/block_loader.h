/*
 * block_loader.h — loading the (sorted, disjoint, clipped) block ranges of
 * a locked relation's fork into the OS page cache, shared buffers or both,
 * with progress, a rate limit and the share of shared_buffers one call may
 * fill (see block_loader.c).
 */
#ifndef PG_CACHECTL_BLOCK_LOADER_H
#define PG_CACHECTL_BLOCK_LOADER_H

#include "common/relpath.h"
#include "utils/relcache.h"

#include "pg_cachectl/bridge_common.h"

#include "api/action_progress.h"

typedef enum PrewarmTarget
{
	PREWARM_OS,
	PREWARM_SHARED,
	PREWARM_BOTH
} PrewarmTarget;

typedef struct PrewarmResult
{
	int64		blocks_requested;	/* of the ranges, inside the fork */
	int64		shared_blocks_loaded;
	int64		os_blocks_loaded;
} PrewarmResult;

/* The fork's size in blocks as the buffer manager reads it, 0 when it has no file. */
extern int64 smgr_fork_blocks(Relation rel, ForkNumber fork);

/*
 * Loads the ranges into the target layer(s); drop_os_copy then writes back
 * and drops the OS copy of what was loaded into shared buffers.  With
 * os_wait off, a load into the OS layer only advises the kernel and returns
 * with its reads in flight (a snapshot load keeps the device's queue full
 * that way, and waits once at the end).
 */
extern void prewarm_fork(Relation rel, ForkNumber fork, cachectl_block_range *ranges, int range_count,
						 PrewarmTarget target, double rate, bool drop_os_copy, bool os_wait,
						 ActionProgress *progress, PrewarmResult *result);

/* A relation whose runs are to be loaded: SELECT checked, locked for the call, opened. */
extern Relation open_relation_for_runs(Oid relid, const char *function);

/* Clips ranges to [0, blocks) in place; returns how many are left. */
extern int	clip_block_ranges(cachectl_block_range *ranges, int count, int64 blocks);

/*
 * Loads runs of a relation's fork (sorted, disjoint) as prewarm_runs() and
 * snapshot loads do: SELECT checked on its table, locked for the call,
 * clipped to the fork as it is now.  A relation dropped meanwhile: 42P01.
 */
extern void prewarm_relation_runs(Oid relid, ForkNumber fork, cachectl_block_range *ranges, int range_count,
								  PrewarmTarget target, bool drop_os_copy, bool os_wait, double rate,
								  ActionProgress *progress, PrewarmResult *result);

#endif							/* PG_CACHECTL_BLOCK_LOADER_H */
