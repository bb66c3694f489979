/*
 * prewarm.c — loading block ranges into either layer or both: prewarm()
 * for a relation (or block range), prewarm_runs() for the runs a snapshot
 * recorded.
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

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#endif
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/rangetypes.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include <math.h>

#include "action_progress.h"
#include "cachectl.h"
#include "call_arguments.h"
#include "os_cache_jobs.h"
#include "relation_set.h"
#include "version_compat.h"

PG_FUNCTION_INFO_V1(pg_cachectl_prewarm);
PG_FUNCTION_INFO_V1(pg_cachectl_prewarm_runs);
PG_FUNCTION_INFO_V1(pg_cachectl_rate_bytes_per_second);

#define PREWARM_COLUMNS 6
#define PREWARM_RUNS_COLUMNS 2

/* How far the OS prefetch runs ahead of the buffer reads. */
#define READAHEAD_WINDOW_BYTES ((int64) 64 * 1024 * 1024)

typedef enum PrewarmTarget
{
	PREWARM_OS,
	PREWARM_SHARED,
	PREWARM_BOTH
} PrewarmTarget;

typedef struct PrewarmResult
{
	int64		blocks_requested;	/* of the ranges, inside the fork */
	int64		shared_loaded;
	int64		os_loaded;
} PrewarmResult;

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
	int64		loaded;
} SharedLoad;

static PrewarmTarget
target_argument(FunctionCallInfo fcinfo, int argno)
{
	char	   *target = text_to_cstring(PG_GETARG_TEXT_PP(argno));

	if (strcmp(target, "os") == 0)
		return PREWARM_OS;
	if (strcmp(target, "shared") == 0)
		return PREWARM_SHARED;
	if (strcmp(target, "both") == 0)
		return PREWARM_BOTH;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid prewarm target \"%s\"", target),
			 errhint("The target is \"os\", \"shared\" or \"both\".")));
	pg_unreachable();
}

/* The fork's size in blocks as the buffer manager reads it, 0 when it has no file. */
static int64
smgr_fork_blocks(Relation rel, ForkNumber fork)
{
	SMgrRelation smgr = RelationGetSmgr(rel);

	if (!smgrexists(smgr, fork))
		return 0;
	return (int64) smgrnblocks(smgr, fork);
}

/* Clips ranges to [0, blocks) in place; returns how many are left. */
static int
clip_ranges(cachectl_block_range *ranges, int count, int64 blocks)
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

/*
 * Sleep until read_bytes since started no longer runs ahead of rate bytes/s.
 * One sleep is at most a short slice (so a cancel is seen), hence the loop:
 * a single slice let slow rates run at 16 blocks per slice.
 */
static void
wait_for_rate(double rate, int64 read_bytes, TimestampTz started)
{
	for (;;)
	{
		int64		delay_us = cachectl_throttle_delay_us(rate, read_bytes,
														  (int64) (GetCurrentTimestamp() - started));

		if (delay_us <= 0)
			break;
		sleep_between_steps(delay_us);
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
	if (load->range >= load->range_count)
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
	load->loaded++;
	load->progress->bytes += BLCKSZ;
	if (load->rate > 0 && load->loaded % 16 == 0)
		wait_for_rate(load->rate, load->loaded * BLCKSZ, load->started);
	if (action_progress_due(load->progress))
		ereport(NOTICE,
				(errmsg("prewarm: %s fork %s: " INT64_FORMAT " of " INT64_FORMAT " blocks in shared buffers",
						RelationGetRelationName(load->rel), forkNames[load->fork],
						load->loaded, load->blocks_requested)));
}

/* Before each read: interrupts, and the OS job a window ahead. */
static void
before_shared_read(SharedLoad *load)
{
	CHECK_FOR_INTERRUPTS();
	if (!load->all_advised)
		advise_ahead(load->readahead, load->loaded * BLCKSZ, &load->all_advised);
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

/*
 * Loads the (sorted, disjoint, clipped) ranges of a locked relation's fork
 * into the target layer(s).
 */
static void
prewarm_fork(Relation rel, ForkNumber fork, cachectl_block_range *ranges, int range_count,
			 PrewarmTarget target, double rate, bool drop_os_copy, ActionProgress *progress,
			 PrewarmResult *result)
{
	MemoryContext owner = CurrentMemoryContext;
	const char *name = RelationGetRelationName(rel);
	char	   *path = CACHECTL_RELATION_FORK_PATH(rel, fork);
	cachectl_prefetch_options options;
	cachectl_error error = {0};
	cachectl_os_prefetch *readahead;
	MemoryContextCallback *reserved;
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
	options = os_prefetch_options(target == PREWARM_OS ? rate : 0, target != PREWARM_SHARED);
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
	/* the callback first: an out-of-memory then cannot leak the job */
	reserved = cachectl_reserve_free_callback(owner);
	readahead = cachectl_os_prefetch_create(path, CACHECTL_SEGMENT_BYTES, BLCKSZ, advised_ranges, (size_t) advised_count, &options, &error);
	readahead = os_prefetch_register(owner, reserved, readahead, &error);

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
		result->shared_loaded = load.loaded;
		if (load.budget_spent)
			ereport(NOTICE,
					(errmsg("prewarm stopped loading %s fork %s into shared buffers after " INT64_FORMAT " blocks",
							name, forkNames[fork], load.loaded),
					 errdetail("One call fills at most cachectl.prewarm_max_share (%g) of shared_buffers.",
							   cachectl_prewarm_max_share_setting)));
	}

	if (target != PREWARM_SHARED)
	{
		/* the rest of the ranges (all of them for 'os'), then wait for the reads */
		os_run_prefetch(readahead, name, forkNames[fork], progress, &os_result);
		result->os_loaded = os_result.blocks_requested;
	}

	if (drop_os_copy && result->shared_loaded > 0)
	{
		int64		left = result->shared_loaded;

		for (int i = 0; i < range_count && left > 0; i++)
		{
			int64		count = Min(ranges[i].count, left);

			os_drop_fork_blocks(path, ranges[i].first, count, name, forkNames[fork], progress);
			left -= count;
		}
	}
	pfree(path);
}

/* One row of prewarm(). */
static void
put_prewarm_row(ReturnSetInfo *rsinfo, Oid relid, ForkNumber fork, const PrewarmResult *result,
				TimestampTz started)
{
	Datum		values[PREWARM_COLUMNS];
	bool		nulls[PREWARM_COLUMNS] = {0};

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(forkNames[fork]);
	values[2] = Int64GetDatum(result->blocks_requested);
	values[3] = Int64GetDatum(result->shared_loaded);
	values[4] = Int64GetDatum(result->os_loaded);
	values[5] = Float8GetDatum((double) (GetCurrentTimestamp() - started) / USECS_PER_SEC);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl.prewarm(rel regclass, target text DEFAULT 'both', fork text DEFAULT 'main',
 *                  first_block int8 DEFAULT NULL, last_block int8 DEFAULT NULL,
 *                  max_mb_per_sec float8 DEFAULT NULL, drop_os_copy boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, blocks_requested int8,
 *                  shared_blocks_loaded int8, os_blocks_loaded int8, seconds float8)
 */
Datum
pg_cachectl_prewarm(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	PrewarmTarget target;
	ForkNumber	fork;
	BlockRangeArgument range_argument;
	double		rate;
	bool		drop_os_copy;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	ActionProgress progress;

	InitMaterializedSRF(fcinfo, 0);
	for (int argno = 0; argno < 7; argno++)
		if (argno != 3 && argno != 4 && argno != 5 && PG_ARGISNULL(argno))
			PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	target = target_argument(fcinfo, 1);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	range_argument = block_range_argument(fcinfo, 3, 4);
	rate = rate_argument(fcinfo, 5);
	drop_os_copy = PG_GETARG_BOOL(6);
	if (range_argument.given)
		require_unpartitioned(relid, "a block range");

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl prewarm",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "prewarm");
	set = relation_set_build(&relid, 1, false, RELATION_SET_ACTION);
	while (relation_set_lock_next_batch(set))
	{
		for (int member = set->locked_from; member < set->locked_to; member++)
		{
			Oid			member_relid = set->relids[member];
			Relation	rel;
			int64		blocks;
			cachectl_block_range range;
			PrewarmResult result;
			TimestampTz started = GetCurrentTimestamp();
			MemoryContext fork_context;

			if (!OidIsValid(member_relid))
				continue;
			rel = relation_open(member_relid, NoLock);	/* locked by the set */
			blocks = smgr_fork_blocks(rel, fork);
			range = block_range_in_fork(&range_argument, blocks, RelationGetRelationName(rel), forkNames[fork]);

			fork_context = AllocSetContextCreate(work_context, "pg_cachectl prewarm fork",
												 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(fork_context);
			prewarm_fork(rel, fork, &range, clip_ranges(&range, 1, blocks), target, rate, drop_os_copy,
						 &progress, &result);
			progress.forks++;
			MemoryContextSwitchTo(work_context);
			put_prewarm_row(rsinfo, member_relid, fork, &result, started);
			MemoryContextDelete(fork_context);	/* frees the OS job, closes its file */
			relation_close(rel, NoLock);
		}
	}
	action_progress_end(&progress);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl.prewarm_runs(rel regclass, fork text, runs int8multirange,
 *                       target text DEFAULT 'both', max_mb_per_sec float8 DEFAULT NULL,
 *                       drop_os_copy boolean DEFAULT false)
 *   RETURNS record (shared_blocks_loaded int8, os_blocks_loaded int8)
 *
 * Loads the block runs of a snapshot into the target layer(s); blocks past
 * the fork's end are left out.  drop_os_copy as in prewarm(): for the runs
 * a snapshot had in shared buffers only.  Internal: what restore() calls.
 */
Datum
pg_cachectl_prewarm_runs(PG_FUNCTION_ARGS)
{
	Oid			relid;
	ForkNumber	fork;
	MultirangeType *runs;
	PrewarmTarget target;
	double		rate;
	bool		drop_os_copy;
	TupleDesc	result_desc;
	TypeCacheEntry *typcache;
	int			run_count;
	int64		fork_blocks;
	cachectl_block_range *ranges;
	Relation	rel;
	PrewarmResult result;
	ActionProgress progress;
	Datum		values[PREWARM_RUNS_COLUMNS];
	bool		nulls[PREWARM_RUNS_COLUMNS] = {false, false};

	for (int argno = 0; argno < 6; argno++)
		if (argno != 4 && PG_ARGISNULL(argno))
			PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	runs = PG_GETARG_MULTIRANGE_P(2);
	target = target_argument(fcinfo, 3);
	rate = rate_argument(fcinfo, 4);
	drop_os_copy = PG_GETARG_BOOL(5);
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "prewarm_runs must return a composite");

	lock_one_relation(relid, "prewarm_runs", RELATION_SET_ACTION);

	action_progress_begin(&progress, "prewarm_runs");
	rel = relation_open(relid, NoLock); /* locked by the set */
	fork_blocks = smgr_fork_blocks(rel, fork);

	/*
	 * The runs are the caller's: only those inside the fork are kept (a
	 * multirange's runs are sorted and disjoint, so they are at most half the
	 * fork's blocks), read in place without a copy of each, and a cancel is
	 * seen however many there are.
	 */
	typcache = lookup_type_cache(MultirangeTypeGetOid(runs), TYPECACHE_MULTIRANGE_INFO);
	ranges = MemoryContextAllocHuge(CurrentMemoryContext,
									sizeof(cachectl_block_range) * Min(Max(runs->rangeCount, 1), Max(fork_blocks, 1)));
	run_count = 0;
	for (uint32 i = 0; i < runs->rangeCount; i++)
	{
		RangeBound	lower;
		RangeBound	upper;
		int64		first;
		int64		end;

		CHECK_FOR_INTERRUPTS();
		multirange_get_bounds(typcache->rngtype, runs, i, &lower, &upper);
		/* no block has a negative number; refusing them also keeps end - first from overflowing */
		if (!lower.infinite && DatumGetInt64(lower.val) < 0)
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("block runs must not hold negative block numbers"));
		first = lower.infinite ? 0 : DatumGetInt64(lower.val) + (lower.inclusive ? 0 : 1);
		if (first >= fork_blocks)
			break;				/* this run and all later ones lie past the fork's end */
		end = upper.infinite ? PG_INT64_MAX : DatumGetInt64(upper.val) + (upper.inclusive ? 1 : 0);
		ranges[run_count].first = first;
		ranges[run_count].count = Min(end, fork_blocks) - first;
		run_count++;
	}
	prewarm_fork(rel, fork, ranges, run_count, target, rate, drop_os_copy, &progress, &result);
	progress.forks++;
	relation_close(rel, NoLock);
	action_progress_end(&progress);

	values[0] = Int64GetDatum(result.shared_loaded);
	values[1] = Int64GetDatum(result.os_loaded);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}

/*
 * cachectl.rate_bytes_per_second(max_mb_per_sec float8) RETURNS float8
 *
 * max_mb_per_sec checked as every action checks it, in bytes per second.
 * Internal: restore() sizes its chunks with it, so that it refuses the
 * rates the C functions refuse, with the same words.
 */
Datum
pg_cachectl_rate_bytes_per_second(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(rate_argument(fcinfo, 0));
}
