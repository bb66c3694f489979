/*
 * os_cache.c — the backend's side of the core's long jobs: the one step
 * loop (see os_cache.h, which also says what the os_cache area owns), and the
 * drop and prefetch jobs it runs.
 *
 * The write-back sequence of a drop is the one DESIGN.md prescribes, and
 * the one PostgreSQL applies to its own files: start writeback with
 * sync_file_range (a failure raised like pg_flush_data raises it,
 * data_sync_elevel(WARNING)), fsync each segment (a failure raised at
 * data_sync_elevel(ERROR), as the checkpointer would), and only then
 * DONTNEED.  fsync reports a write error once: whoever sees it must make
 * sure it is not lost, and with data_sync_retry off that means a PANIC and
 * WAL replay (each failure is worded and raised in core_errors.c).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "api/api.h"
#include "os_cache/os_cache.h"

/* The longest single sleep, so a cancel is seen well within a second. */
#define LONGEST_SLEEP_MS 100

static void
free_drop(void *drop)
{
	cachectl_os_drop_free((cachectl_os_drop *) drop);
}

static void
free_prefetch(void *prefetch)
{
	cachectl_os_prefetch_free((cachectl_os_prefetch *) prefetch);
}

void
sleep_between_steps(int64 delay_us)
{
	long		timeout_ms = (long) Min((delay_us + 999) / 1000, LONGEST_SLEEP_MS);

	if (timeout_ms > 0)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(timeout_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	CHECK_FOR_INTERRUPTS();
}

void
run_core_job(CoreJobStep step_job, void *job, CoreJobAfterStep after_step, void *arg)
{
	cachectl_step step = {0};
	cachectl_error error = {0};

	do
	{
		CHECK_FOR_INTERRUPTS();
		step.delay_us = 0;
		switch (step_job(job, &step, &error))
		{
			case CACHECTL_OK:
				break;
			case CACHECTL_WRITE_BACK_FAILED:
				/* returns only where PostgreSQL goes on; the job moved past it */
				cachectl_report_write_back_failure(&error);
				break;
			default:
				cachectl_raise_core_error(&error);
		}
		if (after_step != NULL && !after_step(job, arg))
			break;
		if (!step.finished && step.delay_us > 0)
			sleep_between_steps(step.delay_us);
	} while (!step.finished);
}

void
os_drop_fork(const char *base_path, const char *relation_name, const char *fork_name,
			 ActionProgress *progress)
{
	os_drop_fork_blocks(base_path, -1, 0, relation_name, fork_name, progress);
}

static cachectl_status
step_drop(void *drop, cachectl_step *step, cachectl_error *error)
{
	return cachectl_os_drop_step(drop, step, error);
}

typedef struct DropProgress
{
	const char *relation_name;
	const char *fork_name;
	ActionProgress *progress;
} DropProgress;

/* A drop, once begun, goes to its end: it is writing dirty pages back. */
static bool
report_drop_progress(void *drop, void *arg)
{
	DropProgress *told = (DropProgress *) arg;

	if (action_progress_due(told->progress))
		ereport(NOTICE,
				(errmsg("cachectl.os_drop: relation \"%s\" fork %s: %.0f MB written back so far",
						told->relation_name, told->fork_name,
						(double) cachectl_os_drop_bytes_written_back(drop) / (1024.0 * 1024.0))));
	return true;
}

void
os_drop_fork_blocks(const char *base_path, int64 first_block, int64 block_count,
					const char *relation_name, const char *fork_name, ActionProgress *progress)
{
	MemoryContext owner = CurrentMemoryContext;
	cachectl_error error = {0};
	cachectl_os_drop *drop;
	MemoryContextCallback *callback;
	DropProgress told = {relation_name, fork_name, progress};

	callback = cachectl_reserve_free_callback(owner);
	drop = cachectl_os_drop_create(base_path, CACHECTL_SEGMENT_BYTES, &error);
	if (drop == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, callback, free_drop, drop);
	if (first_block >= 0 &&
		cachectl_os_drop_limit(drop, first_block * BLCKSZ, (first_block + block_count) * BLCKSZ,
							   &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);

	run_core_job(step_drop, drop, report_drop_progress, &told);
	progress->bytes += cachectl_os_drop_bytes_written_back(drop);
}

cachectl_os_prefetch *
os_prefetch_create(MemoryContext owner, const char *base_path, const OsPrefetchBlocks *blocks,
				   double max_bytes_per_second, bool wait)
{
	cachectl_prefetch_options options;
	cachectl_error error = {0};
	MemoryContextCallback *reserved;
	cachectl_os_prefetch *job;

	options.engine = (cachectl_os_engine) cachectl_os_engine_setting;
	options.max_bytes_per_second = max_bytes_per_second;
	options.wait = wait;
	/* the callback first: an out-of-memory then cannot leak the job */
	reserved = cachectl_reserve_free_callback(owner);
	if (blocks->map != NULL)
		job = cachectl_os_prefetch_create_from_map(base_path, CACHECTL_SEGMENT_BYTES, BLCKSZ,
												   blocks->map, blocks->map_bits, &options, &error);
	else
		job = cachectl_os_prefetch_create(base_path, CACHECTL_SEGMENT_BYTES, BLCKSZ,
										  blocks->ranges, blocks->range_count, &options, &error);
	if (job == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, reserved, free_prefetch, job);
	return job;
}

static cachectl_status
step_prefetch(void *job, cachectl_step *step, cachectl_error *error)
{
	return cachectl_os_prefetch_step(job, step, error);
}

typedef struct PrefetchProgress
{
	const char *relation_name;
	const char *fork_name;
	ActionProgress *progress;
	cachectl_prefetch_result *result;
	bool		caveat_told;
} PrefetchProgress;

static bool
report_prefetch_progress(void *job, void *arg)
{
	PrefetchProgress *told = (PrefetchProgress *) arg;
	cachectl_prefetch_result *result = told->result;

	if (!told->caveat_told && cachectl_os_prefetch_caveat(job) != CACHECTL_CAVEAT_NONE)
	{
		ereport(NOTICE,
				(errmsg("advice may not load relation \"%s\" fork %s into memory", told->relation_name, told->fork_name),
				 cachectl_os_prefetch_caveat(job) == CACHECTL_CAVEAT_TMPFS ?
				 errdetail("The files are on tmpfs, which keeps them in memory and ignores cache advice.") :
				 errdetail("The files are on ZFS, whose ARC caches them apart from the page cache; advice reaches only the page cache.")));
		told->caveat_told = true;
	}
	if (action_progress_due(told->progress))
	{
		double		requested_mb;

		cachectl_os_prefetch_result_of(job, result);
		requested_mb = (double) result->pages_requested * cachectl_os_page_size() / (1024.0 * 1024.0);
		if (result->bytes_advised < result->pages_requested * cachectl_os_page_size())
			ereport(NOTICE,
					(errmsg("cachectl.%s: relation \"%s\" fork %s: %.0f of %.0f MB asked for",
							told->progress->action, told->relation_name, told->fork_name,
							(double) result->bytes_advised / (1024.0 * 1024.0), requested_mb)));
		else
			ereport(NOTICE,
					(errmsg("cachectl.%s: relation \"%s\" fork %s: %.0f of %.0f MB read",
							told->progress->action, told->relation_name, told->fork_name,
							(double) result->os_pages_after * cachectl_os_page_size() / (1024.0 * 1024.0),
							requested_mb)));
	}
	return !action_progress_stop_asked(told->progress);
}

void
os_run_prefetch(cachectl_os_prefetch *job, const char *relation_name, const char *fork_name,
				ActionProgress *progress, cachectl_prefetch_result *result)
{
	PrefetchProgress told = {relation_name, fork_name, progress, result, false};

	run_core_job(step_prefetch, job, report_prefetch_progress, &told);
	cachectl_os_prefetch_result_of(job, result);
	progress->bytes += result->bytes_advised;
	/* a call that told its progress tells its end: what was read, not the last look */
	if (progress->noticed)
		ereport(NOTICE,
				(errmsg("cachectl.%s: relation \"%s\" fork %s: %.0f of %.0f MB read, done in %.3f s",
						progress->action, relation_name, fork_name,
						(double) result->os_pages_after * cachectl_os_page_size() / (1024.0 * 1024.0),
						(double) result->pages_requested * cachectl_os_page_size() / (1024.0 * 1024.0),
						action_progress_seconds(progress))));
	if (result->stalled)
		ereport(WARNING,
				(errmsg("%lld pages of relation \"%s\" fork %s were still not read when %s stopped waiting",
						(long long) (result->pages_requested - result->os_pages_after),
						relation_name, fork_name, progress->action),
				 errdetail("No page was read for seconds: the device may be saturated or memory short."),
				 errhint("Their count is in os_pages_pending.")));
}
