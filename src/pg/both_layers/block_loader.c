/*
 * block_loader.c — loading the block ranges of a fork into either layer or
 * both, for prewarm(), prewarm_runs() and the snapshot loader (which hand it
 * a relation's runs: prewarm_relation_runs, at the end).
 *
 * Into the OS page cache it is os_prefetch's job.  Into shared buffers it
 * reads the blocks with the default buffer strategy (no ring: a ring would
 * recycle its own buffers and evict what it just loaded), while the same
 * OS prefetch job runs a window ahead of the reads, so they find their pages
 * read or in flight.  On 17 and later the blocks come through a read stream
 * (reads of up to io_combine_limit blocks at once; on 18 asynchronous, done
 * by the I/O workers or io_uring), as pg_prewarm reads them there; a load
 * held to a rate reads block by block, since a stream reads ahead of what
 * the rate allows.  One call fills at most cachectl.prewarm_max_share of
 * shared_buffers.  Reading into shared buffers also fills the OS cache:
 * drop_os_copy writes back and drops what was loaded from it, so a relation
 * can be warmed without being cached twice.
 */
#include "postgres.h"

#include "access/relation.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#endif
#include "utils/rel.h"
#include "utils/timestamp.h"

#include <math.h>

#include "api/api.h"
#include "api/version_compat.h"
#include "both_layers/block_loader.h"
#include "os_cache/os_cache.h"
#include "relation_set/relation_set.h"

/* How far the OS prefetch runs ahead of the buffer reads. */
#define READAHEAD_WINDOW_BYTES ((int64) 64 * 1024 * 1024)

/* Loading a fork's ranges into shared buffers, in order, within a budget. */
typedef struct SharedLoad
{
	Relation	rel;
	ForkNumber	fork;
	const cachectl_block_range *ranges;	/* sorted, disjoint, clipped */
	int			range_count;
	int64		budget;			/* blocks this call may load */
	double		rate;			/* bytes per second, 0 for no limit */
	cachectl_os_prefetch *readahead;
	bool		all_advised;
	ActionProgress *progress;
	int64		blocks_requested;
	TimestampTz started;
	/* the next block to hand out: ranges[range].first + offset */
	int			range;
	int64		offset;
	int64		handed_out;
	bool		budget_spent;	/* blocks were left for lack of budget */
	bool		stopped_early;	/* the progress's owner asked to stop */
	int64		shared_blocks_loaded;
} SharedLoad;

int64
smgr_fork_blocks(Relation rel, ForkNumber fork)
{
	SMgrRelation smgr = RelationGetSmgr(rel);

	if (!smgrexists(smgr, fork))
		return 0;
	return (int64) smgrnblocks(smgr, fork);
}

/*
 * Sleep until read_bytes since started no longer runs ahead of rate bytes/s.
 * One sleep is at most a short slice (so a cancel is seen), hence the loop:
 * a single slice let slow rates run at 16 blocks per slice.  False when the
 * progress's owner asked to stop early meanwhile.
 */
static bool
wait_for_rate(double rate, int64 read_bytes, TimestampTz started, const ActionProgress *progress)
{
	for (;;)
	{
		int64		delay_us = cachectl_throttle_delay_us(rate, read_bytes,
														  (int64) (GetCurrentTimestamp() - started));

		if (delay_us <= 0)
			return true;
		sleep_between_steps(delay_us);
		if (action_progress_stop_asked(progress))
			return false;
	}
}

/* Keeps the OS prefetch job a window ahead of `read_bytes` of the ranges. */
static void
advise_ahead(cachectl_os_prefetch *readahead, int64 read_bytes, bool *all_advised)
{
	cachectl_prefetch_result state;
	cachectl_error error = {0};

	while (!*all_advised)
	{
		cachectl_step step = {0};

		cachectl_os_prefetch_result_of(readahead, &state);
		if (state.pages_requested > 0 &&
			state.bytes_advised >= state.pages_requested * cachectl_os_page_size())
		{
			*all_advised = true;
			break;
		}
		if (state.pages_requested > 0 && state.bytes_advised >= read_bytes + READAHEAD_WINDOW_BYTES)
			break;
		if (cachectl_os_prefetch_step(readahead, &step, &error) != CACHECTL_OK)
			cachectl_raise_core_error(&error);
		if (step.finished)
			*all_advised = true;
	}
}

/*
 * The next block of the ranges to read into shared buffers, or -1 when
 * they are done or the budget is (budget_spent says which).
 */
static int64
next_shared_block(SharedLoad *load)
{
	while (load->range < load->range_count &&
		   load->offset >= load->ranges[load->range].count)
	{
		load->range++;
		load->offset = 0;
	}
	if (load->range >= load->range_count || load->stopped_early)
		return -1;
	if (load->handed_out >= load->budget)
	{
		load->budget_spent = true;
		return -1;
	}
	load->handed_out++;
	return load->ranges[load->range].first + load->offset++;
}

/* Counts one block now in shared buffers: progress, and the rate's pace. */
static void
count_shared_block(SharedLoad *load)
{
	load->shared_blocks_loaded++;
	load->progress->bytes += BLCKSZ;
	if (load->rate > 0 && load->shared_blocks_loaded % 16 == 0 &&
		!wait_for_rate(load->rate, load->shared_blocks_loaded * BLCKSZ, load->started, load->progress))
		load->stopped_early = true;
	if (action_progress_due(load->progress))
		ereport(NOTICE,
				(errmsg("cachectl.prewarm: relation \"%s\" fork %s: " INT64_FORMAT " of " INT64_FORMAT " blocks in shared buffers",
						RelationGetRelationName(load->rel), forkNames[load->fork],
						load->shared_blocks_loaded, load->blocks_requested)));
}

/* Before each read: interrupts, and the OS job a window ahead. */
static void
before_shared_read(SharedLoad *load)
{
	CHECK_FOR_INTERRUPTS();
	if (!load->all_advised)
		advise_ahead(load->readahead, load->shared_blocks_loaded * BLCKSZ, &load->all_advised);
}

static void
load_shared_block_by_block(SharedLoad *load)
{
	for (;;)
	{
		int64		block;

		before_shared_read(load);
		block = next_shared_block(load);
		if (block < 0)
			break;
		ReleaseBuffer(ReadBufferExtended(load->rel, load->fork, (BlockNumber) block,
										 RBM_NORMAL, NULL));
		count_shared_block(load);
	}
}

#if PG_VERSION_NUM >= 170000
static BlockNumber
next_block_for_stream(ReadStream *stream, void *load, void *per_buffer_data)
{
	int64		block = next_shared_block((SharedLoad *) load);

	return block < 0 ? InvalidBlockNumber : (BlockNumber) block;
}

/*
 * The stream reads ahead of what this loop has received, up to its own
 * distance; an error (a cancel) ends the transaction, which releases the
 * pins of what it had read ahead.
 */
static void
load_shared_by_stream(SharedLoad *load)
{
	int			flags = READ_STREAM_MAINTENANCE | READ_STREAM_FULL;
	ReadStream *stream;

#ifdef READ_STREAM_USE_BATCHING
	flags |= READ_STREAM_USE_BATCHING;	/* the callback does no I/O */
#endif
	stream = read_stream_begin_relation(flags, NULL, load->rel, load->fork,
										next_block_for_stream, load, 0);
	for (;;)
	{
		Buffer		buffer;

		before_shared_read(load);
		buffer = read_stream_next_buffer(stream, NULL);
		if (!BufferIsValid(buffer))
			break;
		ReleaseBuffer(buffer);
		count_shared_block(load);
	}
	read_stream_end(stream);
}
#endif

void
prewarm_fork(Relation rel, ForkNumber fork, cachectl_block_range *ranges, int range_count,
			 PrewarmTarget target, double rate, bool drop_os_copy, bool os_wait,
			 ActionProgress *progress, PrewarmResult *result)
{
	MemoryContext owner = CurrentMemoryContext;
	const char *name = RelationGetRelationName(rel);
	char	   *path = CACHECTL_RELATION_FORK_PATH(rel, fork);
	OsPrefetchBlocks advised = {0};
	cachectl_os_prefetch *readahead;
	cachectl_prefetch_result os_result;
	int64		budget = (int64) floor(cachectl_prewarm_max_share_setting * NBuffers);
	cachectl_block_range *advised_ranges = ranges;
	int			advised_count = range_count;

	memset(result, 0, sizeof(*result));
	for (int i = 0; i < range_count; i++)
		result->blocks_requested += ranges[i].count;

	/*
	 * The OS job waits for its reads only when the OS layer is a target; when
	 * it only reads ahead for shared buffers, it asks for no more than the
	 * budget lets them load.
	 */
	if (target == PREWARM_SHARED)
	{
		int64		allowed = budget;
		int			within = 0;

		advised_ranges = palloc(sizeof(cachectl_block_range) * Max(range_count, 1));
		for (int i = 0; i < range_count && allowed > 0; i++)
		{
			advised_ranges[within].first = ranges[i].first;
			advised_ranges[within].count = Min(ranges[i].count, allowed);
			allowed -= advised_ranges[within].count;
			within++;
		}
		advised_count = within;
	}
	advised.ranges = advised_ranges;
	advised.range_count = (size_t) advised_count;
	readahead = os_prefetch_create(owner, path, &advised, target == PREWARM_OS ? rate : 0,
								   target != PREWARM_SHARED && os_wait);

	if (target != PREWARM_OS)
	{
		SharedLoad	load = {
			.rel = rel,
			.fork = fork,
			.ranges = ranges,
			.range_count = range_count,
			.budget = budget,
			.rate = rate,
			.readahead = readahead,
			.progress = progress,
			.blocks_requested = result->blocks_requested,
			.started = GetCurrentTimestamp(),
		};

#if PG_VERSION_NUM >= 170000
		if (rate <= 0)
			load_shared_by_stream(&load);
		else
#endif
			load_shared_block_by_block(&load);
		result->shared_blocks_loaded = load.shared_blocks_loaded;
		if (load.budget_spent)
			ereport(NOTICE,
					(errmsg("prewarm stopped loading relation \"%s\" fork %s into shared buffers after " INT64_FORMAT " blocks",
							name, forkNames[fork], load.shared_blocks_loaded),
					 errdetail("One call fills at most cachectl.prewarm_max_share (%g) of shared_buffers.",
							   cachectl_prewarm_max_share_setting)));
	}

	if (target != PREWARM_SHARED)
	{
		/* the rest of the ranges (all of them for 'os'), then wait for the reads (os_wait) */
		os_run_prefetch(readahead, name, forkNames[fork], progress, &os_result);
		result->os_blocks_loaded = os_result.blocks_requested;
	}

	if (drop_os_copy && result->shared_blocks_loaded > 0)
	{
		int64		left = result->shared_blocks_loaded;

		for (int i = 0; i < range_count && left > 0; i++)
		{
			int64		count = Min(ranges[i].count, left);

			os_drop_fork_blocks(path, ranges[i].first, count, name, forkNames[fork], progress);
			left -= count;
		}
	}
	pfree(path);
}

int
clip_block_ranges(cachectl_block_range *ranges, int count, int64 blocks)
{
	int			kept = 0;

	for (int i = 0; i < count; i++)
	{
		int64		first = Max(ranges[i].first, 0);
		int64		end = Min(ranges[i].first + ranges[i].count, blocks);

		if (first < end)
		{
			ranges[kept].first = first;
			ranges[kept].count = end - first;
			kept++;
		}
	}
	return kept;
}

Relation
open_relation_for_runs(Oid relid, const char *function)
{
	lock_one_relation(relid, function, RELATION_SET_ACTION);
	return relation_open(relid, NoLock);	/* locked by the set */
}

void
prewarm_relation_runs(Oid relid, ForkNumber fork, cachectl_block_range *ranges, int range_count,
					  PrewarmTarget target, bool drop_os_copy, bool os_wait, double rate,
					  ActionProgress *progress, PrewarmResult *result)
{
	Relation	rel = open_relation_for_runs(relid, "restore");
	cachectl_block_range *clipped;

	/* the caller's runs are not changed: a later pass may load them again */
	clipped = palloc(sizeof(cachectl_block_range) * Max(range_count, 1));
	memcpy(clipped, ranges, sizeof(cachectl_block_range) * range_count);
	prewarm_fork(rel, fork, clipped, clip_block_ranges(clipped, range_count, smgr_fork_blocks(rel, fork)),
				 target, rate, drop_os_copy, os_wait, progress, result);
	progress->forks++;
	pfree(clipped);
	relation_close(rel, NoLock);
}
