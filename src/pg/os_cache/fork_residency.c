/*
 * fork_residency.c — measuring what of a fork the OS page cache holds, for
 * every SQL function that reports or acts on it: the residency report (per
 * segment, summed per fork) and the block map (see fork_residency.h).
 */
#include "postgres.h"

#include "storage/lmgr.h"
#include "utils/memutils.h"

#include "api/api.h"
#include "os_cache/fork_residency.h"
#include "os_cache/os_cache.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"

#include "pg_cachectl/block_maps.h"

void
probe_os_engine(void)
{
	/* PG_VERSION lies in the data directory, the server's working directory */
	(void) cachectl_probe_cachestat("PG_VERSION");
}

static void
free_report(void *report)
{
	cachectl_residency_report_free((cachectl_residency_report *) report);
}

cachectl_residency_report *
os_residency_report_create(MemoryContext owner)
{
	cachectl_error error = {0};
	cachectl_residency_report *report;
	MemoryContextCallback *callback;

	probe_os_engine();
	callback = cachectl_reserve_free_callback(owner);
	report = cachectl_residency_report_create((cachectl_os_engine) cachectl_os_engine_setting,
											  &error);
	if (report == NULL)
		cachectl_raise_core_error(&error);

	cachectl_free_with_context(owner, callback, free_report, report);
	return report;
}

/* One fork of a report, as a job for run_core_job(). */
typedef struct ForkScan
{
	cachectl_residency_report *report;
	int			fork;
	const char *base_path;
} ForkScan;

static cachectl_status
step_fork_scan(void *job, cachectl_step *step, cachectl_error *error)
{
	ForkScan   *scan = (ForkScan *) job;

	return cachectl_residency_report_step_fork(scan->report, scan->fork, scan->base_path,
											   CACHECTL_SEGMENT_BYTES, step, error);
}

void
os_residency_scan_path(cachectl_residency_report *report, int fork, const char *base_path)
{
	ForkScan	scan = {report, fork, base_path};

	run_core_job(step_fork_scan, &scan, NULL, NULL);
}

void
os_residency_scan_relation(cachectl_residency_report *report, Oid relid, int only_fork)
{
	cachectl_residency_report_clear(report);
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		char	   *base_path;

		if (only_fork != InvalidForkNumber && fork != only_fork)
			continue;
		base_path = relation_fork_path(relid, (ForkNumber) fork);
		os_residency_scan_path(report, fork, base_path);
		pfree(base_path);
	}
}

bool
os_residency_fork_total(const cachectl_residency_report *report, int fork,
						cachectl_residency_counts *total)
{
	size_t		rows = cachectl_residency_report_row_count(report);
	bool		found = false;

	memset(total, 0, sizeof(*total));
	total->has_cachestat_counters = true;
	for (size_t i = 0; i < rows; i++)
	{
		cachectl_segment_row row;

		cachectl_residency_report_row(report, i, &row);
		if (row.fork_number != fork)
			continue;
		found = true;
		total->size_bytes += row.counts.size_bytes;
		total->size_pages += row.counts.size_pages;
		total->os_pages += row.counts.os_pages;
		total->os_dirty_pages += row.counts.os_dirty_pages;
		total->os_writeback_pages += row.counts.os_writeback_pages;
		total->os_evicted_pages += row.counts.os_evicted_pages;
		total->os_recently_evicted_pages += row.counts.os_recently_evicted_pages;
		if (!row.counts.has_cachestat_counters)
			total->has_cachestat_counters = false;
	}
	return found;
}

static void
free_map(void *map)
{
	cachectl_os_map_free((cachectl_os_map *) map);
}

static cachectl_status
step_map(void *map, cachectl_step *step, cachectl_error *error)
{
	return cachectl_os_map_step(map, step, error);
}

bool
os_map_fill(uint8 *bits, int64 bit_count, const char *path, int64 *os_dirty_pages)
{
	MemoryContext owner = CurrentMemoryContext;
	MemoryContextCallback *callback;
	cachectl_error error = {0};
	cachectl_os_map *map;
	int64		counted = 0;
	bool		dirty_known;

	callback = cachectl_reserve_free_callback(owner);
	map = cachectl_os_map_create(bits, bit_count, path, CACHECTL_SEGMENT_BYTES,
								 BLCKSZ, (cachectl_os_engine) cachectl_os_engine_setting, &error);
	if (map == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, callback, free_map, map);

	run_core_job(step_map, map, NULL, NULL);
	dirty_known = cachectl_os_map_os_dirty_pages(map, &counted);
	if (os_dirty_pages != NULL)
		*os_dirty_pages = counted;
	return dirty_known;
}

uint8 *
os_map_of(const char *path, int64 blocks, int64 *os_dirty_pages, bool *os_dirty_known)
{
	uint8	   *bits = palloc0(Max((blocks + 7) / 8, 1));
	int64		counted = 0;
	/* an empty fork too: the map job alone says whether dirty pages are known */
	bool		known = os_map_fill(bits, Max(blocks, 0), path, &counted);

	if (os_dirty_pages != NULL)
		*os_dirty_pages = counted;
	if (os_dirty_known != NULL)
		*os_dirty_known = known;
	return bits;
}

cachectl_block_range *
os_cached_runs(Oid relid, ForkNumber fork, const char *function, size_t *count)
{
	char	   *path;
	int64		blocks;
	uint8	   *bits;
	cachectl_block_range *runs;
	cachectl_error error = {0};

	lock_one_relation(relid, function, RELATION_SET_REPORT);
	path = relation_fork_path(relid, fork);
	blocks = Max(fork_blocks_from_files(path), 0);
	bits = os_map_of(path, blocks, NULL, NULL);
	if (cachectl_map_runs(bits, blocks, NULL, 0, count, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	runs = palloc(sizeof(cachectl_block_range) * Max(*count, 1));
	if (cachectl_map_runs(bits, blocks, runs, *count, count, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	pfree(bits);

	/*
	 * Let the lock go now, not at the end of the transaction: snapshot() and
	 * restore_plan() ask for every cached relation of a database, more than
	 * the lock table may hold; the map is taken, nothing else here reads it.
	 */
	UnlockRelationOid(relid, AccessShareLock);
	return runs;
}
