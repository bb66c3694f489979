/*
 * os_cache.h — the os_cache area: the OS page cache of relation forks, seen and
 * changed from SQL.  It owns driving the core's long jobs from a backend (this
 * file and os_cache.c: one bounded step at a time, interrupts checked between
 * steps, sleeps on the latch, progress reported, write-back failures raised at
 * PostgreSQL's level), the residency report and block map of a fork that every
 * family measures with (fork_residency), and the SQL functions: os_residency,
 * os_map and os_draw, os_drop, os_prefetch and os_restore (os_residency,
 * os_map, os_control).  It uses the api and relation_set areas.
 *
 * This header: the step loop and the drop and prefetch jobs it runs.
 */
#ifndef PG_CACHECTL_OS_CACHE_JOBS_H
#define PG_CACHECTL_OS_CACHE_JOBS_H

#include "pg_cachectl/os_jobs.h"

#include "api/action_progress.h"

/*
 * The one loop every long core job runs in (residency reports, block maps,
 * drops, prefetches): interrupts are checked before each step, a step's
 * delay is slept on the latch, after_step (NULL for none) reports progress
 * between steps and may end the job there (false), and a failed step raises
 * its error.
 */
typedef cachectl_status (*CoreJobStep) (void *job, cachectl_step *step, cachectl_error *error);
typedef bool (*CoreJobAfterStep) (void *job, void *arg);

extern void run_core_job(CoreJobStep step, void *job, CoreJobAfterStep after_step, void *arg);

/*
 * Writes back, fsyncs and drops from the OS page cache every segment file
 * of the fork at base_path (relative to the data directory).  A failed
 * writeback is raised at data_sync_elevel(): a PANIC unless data_sync_retry
 * is on, so the data reaches crash recovery instead of a stale read.
 */
extern void os_drop_fork(const char *base_path, const char *relation_name, const char *fork_name,
						 ActionProgress *progress);

/* The same for blocks [first_block, first_block + block_count) of the fork only. */
extern void os_drop_fork_blocks(const char *base_path, int64 first_block, int64 block_count,
								const char *relation_name, const char *fork_name,
								ActionProgress *progress);

/*
 * Runs a prefetch job (created in owner's lifetime) to its end, or until
 * the progress's owner asks to stop early (what was advised stays advised).
 */
extern void os_run_prefetch(cachectl_os_prefetch *job, const char *relation_name, const char *fork_name,
							ActionProgress *progress, cachectl_prefetch_result *result);

/*
 * Sleeps on the latch (at most 100 ms, so a cancel or statement_timeout is
 * seen within a second), then checks interrupts.
 */
extern void sleep_between_steps(int64 delay_us);

/* What a prefetch job reads: block ranges, or the set bits of a block map. */
typedef struct OsPrefetchBlocks
{
	const cachectl_block_range *ranges; /* sorted, disjoint */
	size_t		range_count;
	const uint8 *map;			/* used instead of ranges when set (varbit order) */
	int64		map_bits;
} OsPrefetchBlocks;

/*
 * A prefetch job of the fork at base_path under the session's engine, freed
 * with owner on success or error alike; max_bytes_per_second as
 * rate_argument() gives it (0: no limit), wait for the reads or only ask.
 */
extern cachectl_os_prefetch *os_prefetch_create(MemoryContext owner, const char *base_path,
												const OsPrefetchBlocks *blocks,
												double max_bytes_per_second, bool wait);

#endif							/* PG_CACHECTL_OS_CACHE_JOBS_H */
