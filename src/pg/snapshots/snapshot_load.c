/*
 * snapshot_load.c — loading a cache snapshot back: the one loader that
 * CALL cachectl.restore() (snapshot_restore.c) and the autowarm worker
 * (autowarm_load.c) share.
 *
 * The plan is cachectl_internal.restore_plan()'s (read as the caller, so row
 * security applies), taken in one step.  Then a chunk per step — a quarter
 * of a second's loading at the rate, 32 MB at most — each its own
 * transaction, so that the load never holds a snapshot or a relation's lock
 * for longer than a chunk: DDL waiting for a lock gets it between two
 * chunks, and replay on a standby is not delayed.
 *
 * The OS layer of every relation comes first, advised without waiting for
 * each chunk's reads (the next chunks' advice keeps the device's queue full;
 * waiting chunk by chunk kept one chunk in flight, a fifth of this machine's
 * device speed), then shared buffers, read from the page cache by then (a
 * buffer read waits for a page still in flight).  The label's blocks in
 * shared buffers fill at most a share of the pool (counting those already
 * there when only what is missing is loaded); when they do not all fit,
 * every relation gets the same share of its blocks, its hot blocks (used
 * again when recorded) first.  The rate paces the whole load, not only each
 * chunk (a label of 35,000 one-block runs once went at four times the rate,
 * each call throttling only itself), and is asked again before each chunk.
 * A relation dropped meanwhile is skipped and counted; one truncated or
 * rewritten is loaded as it is now.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include <math.h>

#include "api/action_progress.h"
#include "api/api.h"
#include "api/block_runs.h"
#include "both_layers/block_loader.h"
#include "snapshots/snapshot_load.h"

/* One row of restore_plan(), copied out of its transaction. */
typedef struct PlannedChunk
{
	int32		relation_number;
	char	   *relation_name;
	Oid			relation;
	char	   *skip_reason;	/* NULL unless skipped */
	bool		remapped;
	bool		has_runs;		/* false: a relation's row with nothing to load */
	ForkNumber	fork;
	bool		shared;			/* the layer: shared buffers, or the OS page cache */
	bool		drop_os_copy;
	/* the runs, and of a shared chunk those recorded hot and the others */
	cachectl_block_range *runs;
	int			run_count;
	int64		blocks;
	cachectl_block_range *hot_runs;
	int			hot_count;
	int64		hot_blocks;
	cachectl_block_range *cold_runs;
	int			cold_count;
	int64		cold_blocks;
} PlannedChunk;

/* What one pass over the plan takes of a chunk (see load_passes). */
typedef enum ChunkPart
{
	CHUNK_NOTHING, CHUNK_WHOLE, CHUNK_HOT, CHUNK_COLD
} ChunkPart;

/* The plan and what each relation may still load into shared buffers. */
typedef struct LoadPlan
{
	PlannedChunk *chunks;
	int			chunk_count;
	int32		relation_numbers;	/* the highest relation_number */
	int64		recorded_shared;	/* the label's blocks in shared buffers */
	int64		planned_shared;
	int64	   *shared_allowed; /* per relation_number */
	int64	   *shared_loaded;
	bool	   *shared_trimmed; /* less than all of its blocks allowed */
	bool	   *gone;			/* dropped (or failed) while the load ran */
} LoadPlan;

/* The whole load's pace: bytes asked for since origin, at the rate then. */
typedef struct LoadPace
{
	double		rate_mb_per_sec;
	TimestampTz origin;
	int64		bytes;
} LoadPace;

/* An int8multirange column as runs (NULL: none), in the current context. */
static cachectl_block_range *
runs_column(HeapTuple row, TupleDesc desc, int column, int *count)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, column, &isnull);

	*count = 0;
	if (isnull)
		return NULL;
	return block_runs_from_multirange(DatumGetMultirangeTypeP(value), PG_INT64_MAX, count);
}

static char *
text_column(HeapTuple row, TupleDesc desc, int column)
{
	char	   *value = SPI_getvalue(row, desc, column);

	return value ? pstrdup(value) : NULL;
}

/* Inside the plan's step: the blocks the label recorded in shared buffers. */
static int64
recorded_shared_blocks(const char *label)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(label)};
	bool		isnull;
	Datum		value;

	if (SPI_execute_with_args("SELECT LEAST(pg_catalog.sum(s.block_count), 9223372036854775807)::pg_catalog.int8 "
							  "FROM cachectl.snapshot AS s "
							  "WHERE s.label OPERATOR(pg_catalog.=) $1 AND s.layer OPERATOR(pg_catalog.=) 'shared'",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the rows of cache snapshot \"%s\"", label);
	value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt64(value);
}

/*
 * Inside the plan's step: restore_plan()'s chunks, the OS layer of every
 * relation first, then shared buffers, each layer smallest relation first;
 * copied into `into`.
 */
static void
read_plan(const SnapshotLoadRequest *request, double rate, MemoryContext into, LoadPlan *plan)
{
	Oid			types[4] = {TEXTOID, TEXTOID, FLOAT8OID, BOOLOID};
	Datum		values[4];
	char		nulls[5] = "    ";
	MemoryContext caller_context;

	/* a NULL label or target: restore_plan() says what is wrong */
	values[0] = request->label ? CStringGetTextDatum(request->label) : (Datum) 0;
	nulls[0] = request->label ? ' ' : 'n';
	values[1] = request->target ? CStringGetTextDatum(request->target) : (Datum) 0;
	nulls[1] = request->target ? ' ' : 'n';
	values[2] = Float8GetDatum(rate);
	if (rate <= 0)
		nulls[2] = 'n';
	values[3] = BoolGetDatum(request->missing_only);
	if (SPI_execute_with_args("SELECT p.relation_number, p.relation_name, p.rel::pg_catalog.oid, p.skip_reason, "
							  "p.remapped, p.fork, p.layer OPERATOR(pg_catalog.=) 'shared', p.drop_os_copy, "
							  "p.runs, h.hot, p.runs OPERATOR(pg_catalog.-) h.hot "
							  "FROM cachectl_internal.restore_plan($1, $2, $3, $4) AS p, "
							  "LATERAL (SELECT COALESCE(p.hot_runs, '{}') AS hot) AS h "
							  "ORDER BY p.layer OPERATOR(pg_catalog.=) 'shared', p.relation_number",
							  4, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not plan the load of cache snapshot \"%s\"", request->label);

	caller_context = MemoryContextSwitchTo(into);
	plan->chunk_count = (int) SPI_processed;
	plan->chunks = palloc0(sizeof(PlannedChunk) * Max(plan->chunk_count, 1));
	for (int i = 0; i < plan->chunk_count; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		PlannedChunk *chunk = &plan->chunks[i];
		bool		isnull;
		Datum		value;
		char	   *fork;

		chunk->relation_number = DatumGetInt32(SPI_getbinval(row, desc, 1, &isnull));
		chunk->relation_name = text_column(row, desc, 2);
		value = SPI_getbinval(row, desc, 3, &isnull);
		chunk->relation = isnull ? InvalidOid : DatumGetObjectId(value);
		chunk->skip_reason = text_column(row, desc, 4);
		value = SPI_getbinval(row, desc, 5, &isnull);
		chunk->remapped = !isnull && DatumGetBool(value);
		fork = text_column(row, desc, 6);
		chunk->has_runs = fork != NULL && chunk->skip_reason == NULL;
		chunk->fork = fork ? forkname_to_number(fork) : MAIN_FORKNUM;
		value = SPI_getbinval(row, desc, 7, &isnull);
		chunk->shared = !isnull && DatumGetBool(value);
		value = SPI_getbinval(row, desc, 8, &isnull);
		chunk->drop_os_copy = !isnull && DatumGetBool(value);
		chunk->runs = runs_column(row, desc, 9, &chunk->run_count);
		chunk->blocks = block_runs_blocks(chunk->runs, chunk->run_count);
		chunk->hot_runs = runs_column(row, desc, 10, &chunk->hot_count);
		chunk->hot_blocks = block_runs_blocks(chunk->hot_runs, chunk->hot_count);
		chunk->cold_runs = runs_column(row, desc, 11, &chunk->cold_count);
		chunk->cold_blocks = block_runs_blocks(chunk->cold_runs, chunk->cold_count);
		plan->relation_numbers = Max(plan->relation_numbers, chunk->relation_number);
	}
	MemoryContextSwitchTo(caller_context);
	if (plan->chunk_count > 0 && request->missing_only)
		plan->recorded_shared = recorded_shared_blocks(request->label);
}

/*
 * Inside the plan's step: how the label's rows the caller sees are matched
 * to relations: by block where this cluster (or its primary) recorded them
 * all, by name where another cluster did, or mixed.
 */
static const char *
matched_by(const char *label)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(label)};
	char	   *value;

	if (SPI_execute_with_args("SELECT CASE WHEN pg_catalog.bool_and(s.system_identifier OPERATOR(pg_catalog.=) i.id) THEN 'block' "
							  "            WHEN pg_catalog.bool_or(s.system_identifier OPERATOR(pg_catalog.=) i.id) THEN 'mixed' "
							  "            ELSE 'name' END "
							  "FROM cachectl.snapshot AS s, (SELECT cachectl_internal.system_identifier() AS id) AS i "
							  "WHERE s.label OPERATOR(pg_catalog.=) $1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the rows of cache snapshot \"%s\"", label);
	value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	return strcmp(value, "block") == 0 ? "block" : strcmp(value, "mixed") == 0 ? "mixed" : "name";
}

/*
 * The budget of shared buffers: the label's blocks there fill at most the
 * share of the pool, counting those already there when only what is missing
 * is loaded (the plan leaves them out as resident: the recorded count less
 * what it loads).  Every relation gets the same share of what it has to
 * load: a pool too small for the whole hot set holds part of each relation,
 * not all of the first ones and none of the rest (the smallest-first order
 * gave a standby 11 % of pgbench_accounts' hot buffers and all of its index).
 */
static void
share_budget(const SnapshotLoadRequest *request, LoadPlan *plan)
{
	int32		numbers = plan->relation_numbers + 1;
	int64		budget = (int64) floor(request->shared_share * NBuffers);

	plan->shared_allowed = palloc0(sizeof(int64) * numbers);
	plan->shared_loaded = palloc0(sizeof(int64) * numbers);
	plan->shared_trimmed = palloc0(sizeof(bool) * numbers);
	plan->gone = palloc0(sizeof(bool) * numbers);
	for (int i = 0; i < plan->chunk_count; i++)
		if (plan->chunks[i].has_runs && plan->chunks[i].shared)
		{
			plan->planned_shared += plan->chunks[i].blocks;
			plan->shared_allowed[plan->chunks[i].relation_number] += plan->chunks[i].blocks;
		}
	if (request->missing_only)
		budget -= Max(plan->recorded_shared - plan->planned_shared, 0);
	budget = Max(budget, 0);
	if (plan->planned_shared <= budget)
		return;
	for (int r = 0; r < numbers; r++)
	{
		int64		all = plan->shared_allowed[r];

		/* in integers where they fit: a share that is whole stays whole */
		if (budget == 0 || all <= PG_INT64_MAX / budget)
			plan->shared_allowed[r] = all * budget / plan->planned_shared;
		else
			plan->shared_allowed[r] = (int64) floor((double) all * budget / plan->planned_shared);
		plan->shared_trimmed[r] = plan->shared_allowed[r] < all;
	}
}

/*
 * After a chunk of blocks: waits until the rate allows the next, waking at
 * least every 250 ms (and at once on a signal) to see whether the load
 * should stop.  False when it should.
 */
static bool
pace_load(LoadPace *pace, int64 blocks, const SnapshotLoadDriver *driver)
{
	pace->bytes += blocks * BLCKSZ;
	for (;;)
	{
		TimestampTz now;
		TimestampTz due;
		double		rate;

		CHECK_FOR_INTERRUPTS();
		if (driver->should_stop != NULL && driver->should_stop())
			return false;
		now = GetCurrentTimestamp();
		rate = driver->rate_mb_per_sec(driver->rate_arg);
		if (rate != pace->rate_mb_per_sec)
		{
			/* a reload changed it: a new origin */
			pace->rate_mb_per_sec = rate;
			pace->origin = now;
			pace->bytes = 0;
			return true;
		}
		if (rate <= 0)
			return true;
		due = pace->origin + (TimestampTz) ((double) pace->bytes / (rate * 1024.0 * 1024.0) * USECS_PER_SEC);
		if (now >= due)
			return true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min((due - now) / 1000 + 1, 250), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * Loads runs of a chunk in a subtransaction of the step's: false when its
 * relation was dropped meanwhile, or (for the worker) could not be loaded
 * (logged).  A cancel, a shutdown and, for a user, any other error end the
 * whole load.
 */
static bool
load_runs(const SnapshotLoadRequest *request, const PlannedChunk *chunk, cachectl_block_range *runs,
		  int run_count, PrewarmTarget target, bool os_wait, double rate_mb_per_sec, ActionProgress *progress,
		  PrewarmResult *result)
{
	MemoryContext step_context = CurrentMemoryContext;
	ResourceOwner step_owner = CurrentResourceOwner;
	bool		loaded = true;

	memset(result, 0, sizeof(*result));
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(step_context);
	PG_TRY();
	{
		/*
		 * The chunk holds to the rate too, so that the load reads at an even
		 * pace, not in bursts between waits (pace_load then rarely waits).
		 */
		prewarm_relation_runs(chunk->relation, chunk->fork, runs, run_count, target,
							  chunk->drop_os_copy && target == PREWARM_SHARED, os_wait,
							  rate_mb_per_sec > 0 ? rate_mb_per_sec * 1024.0 * 1024.0 : 0,
							  progress, result);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(step_context);
		CurrentResourceOwner = step_owner;
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(step_context);
		error = CopyErrorData();
		FlushErrorState();
		/* the subtransaction goes first, whatever happens next (as PL/pgSQL's blocks do) */
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(step_context);
		CurrentResourceOwner = step_owner;
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED || error->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN ||
			(request->for_user && error->sqlerrcode != ERRCODE_UNDEFINED_TABLE))
			ReThrowError(error);
		if (request->for_user)
			ereport(NOTICE,
					(errmsg("skipping relation \"%s\": dropped while the call ran", chunk->relation_name)));
		else if (error->sqlerrcode != ERRCODE_UNDEFINED_TABLE)
			ereport(LOG,
					(errmsg("pg_cachectl autowarm: skipping relation \"%s\": %s",
							chunk->relation_name, error->message)));
		FreeErrorData(error);
		loaded = false;
	}
	PG_END_TRY();
	return loaded;
}

/* What pass 0 or 1 takes of a chunk: a trimmed relation's hot blocks first. */
static ChunkPart
chunk_part(const PlannedChunk *chunk, int pass, bool relation_trimmed)
{
	if (!chunk->shared || !relation_trimmed)
		return pass == 0 ? CHUNK_WHOLE : CHUNK_NOTHING;
	return pass == 0 ? CHUNK_HOT : CHUNK_COLD;
}

/* The first `keep` blocks of runs, in place; returns how many runs are left. */
static int
first_blocks(cachectl_block_range *runs, int count, int64 keep)
{
	for (int i = 0; i < count; i++)
	{
		if (runs[i].count >= keep)
		{
			runs[i].count = keep;
			return keep > 0 ? i + 1 : i;
		}
		keep -= runs[i].count;
	}
	return count;
}

static void
progress_notice(const SnapshotLoadRequest *request, ActionProgress *progress, int done, int chunks)
{
	if (!request->for_user || !action_progress_due(progress))
		return;
	ereport(NOTICE,
			(errmsg("cachectl.%s: cache snapshot \"%s\": %d of %d chunks, %.1f MB loaded",
					request->progress_name, request->label, done, chunks,
					(double) progress->bytes / (1024.0 * 1024.0))));
}

/*
 * The two passes over the plan: the whole of every chunk in the first, but
 * for the shared chunks of a relation whose share is less than its blocks:
 * their hot blocks in the first pass, the others with what the share has
 * left in the second.
 */
static void
load_passes(const SnapshotLoadRequest *request, const SnapshotLoadDriver *driver, LoadPlan *plan,
			ActionProgress *progress, SnapshotLoadResult *result)
{
	LoadPace	pace = {.rate_mb_per_sec = driver->rate_mb_per_sec(driver->rate_arg),
	.origin = GetCurrentTimestamp()};
	MemoryContext load_context = CurrentMemoryContext;
	int			done = 0;

	for (int pass = 0; pass < 2 && !result->stopped; pass++)
	{
		for (int i = 0; i < plan->chunk_count; i++)
		{
			PlannedChunk *chunk = &plan->chunks[i];
			ChunkPart	part;
			cachectl_block_range *runs;
			int			run_count;
			int64		blocks;
			int64		left;
			PrewarmResult loaded;
			MemoryContext chunk_context;
			bool		ok;

			if (!chunk->has_runs || plan->gone[chunk->relation_number])
				continue;
			part = chunk_part(chunk, pass, plan->shared_trimmed[chunk->relation_number]);
			runs = part == CHUNK_HOT ? chunk->hot_runs : part == CHUNK_COLD ? chunk->cold_runs : chunk->runs;
			run_count = part == CHUNK_HOT ? chunk->hot_count : part == CHUNK_COLD ? chunk->cold_count : chunk->run_count;
			blocks = part == CHUNK_HOT ? chunk->hot_blocks : part == CHUNK_COLD ? chunk->cold_blocks : chunk->blocks;
			if (part == CHUNK_NOTHING || runs == NULL || blocks <= 0)
				continue;
			if (chunk->shared)
			{
				left = plan->shared_allowed[chunk->relation_number] - plan->shared_loaded[chunk->relation_number];
				if (left <= 0)
				{
					result->shared_blocks_left += blocks;
					continue;
				}
				if (blocks > left)
				{
					result->shared_blocks_left += blocks - left;
					run_count = first_blocks(runs, run_count, left);
					blocks = left;
				}
				plan->shared_loaded[chunk->relation_number] += blocks;
			}

			driver->begin_step();
			/*
			 * The chunk's work (its OS job, its open files) belongs to the
			 * step's transaction: an error that ends the load frees it with
			 * that transaction (a CALL's own memory outlives it).
			 */
			chunk_context = AllocSetContextCreate(TopTransactionContext, "pg_cachectl snapshot chunk",
												 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(chunk_context);
			ok = load_runs(request, chunk, runs, run_count, chunk->shared ? PREWARM_SHARED : PREWARM_OS,
						   false, pace.rate_mb_per_sec, progress, &loaded);
			MemoryContextSwitchTo(load_context);
			MemoryContextDelete(chunk_context); /* frees the OS job, closes its file */
			/* the relation's lock and the snapshot go with each chunk */
			driver->end_step();
			if (!ok)
			{
				plan->gone[chunk->relation_number] = true;
				continue;
			}
			result->shared_blocks_loaded += loaded.shared_blocks_loaded;
			result->os_blocks_loaded += loaded.os_blocks_loaded;
			progress_notice(request, progress, ++done, plan->chunk_count);
			if (!pace_load(&pace, blocks, driver))
			{
				result->stopped = true;
				break;
			}
		}
	}
}

/* The blocks of runs not in minus (both sorted and disjoint), palloc'd. */
static cachectl_block_range *
runs_without(const cachectl_block_range *runs, int count, const cachectl_block_range *minus, int minus_count,
			 int *left_count)
{
	cachectl_block_range *left = palloc(sizeof(cachectl_block_range) * (count + minus_count + 1));
	int			m = 0;

	*left_count = 0;
	for (int i = 0; i < count; i++)
	{
		int64		first = runs[i].first;
		int64		end = runs[i].first + runs[i].count;

		while (m < minus_count && minus[m].first + minus[m].count <= first)
			m++;
		for (int k = m; k < minus_count && minus[k].first < end && first < end; k++)
		{
			if (minus[k].first > first)
			{
				left[*left_count].first = first;
				left[*left_count].count = minus[k].first - first;
				(*left_count)++;
			}
			first = Max(first, minus[k].first + minus[k].count);
		}
		if (first < end)
		{
			left[*left_count].first = first;
			left[*left_count].count = end - first;
			(*left_count)++;
		}
	}
	return left;
}

/*
 * The runs of an OS chunk still to be waited for: those its relation's
 * shared chunks of the same fork did not read (a block read into shared
 * buffers went through the page cache: it is in), all of them where the
 * relation's shared blocks were cut by the budget.
 */
static cachectl_block_range *
runs_not_read(const LoadPlan *plan, const PlannedChunk *os_chunk, int first_shared, int *left_count)
{
	cachectl_block_range *left = os_chunk->runs;

	*left_count = os_chunk->run_count;
	if (plan->shared_trimmed[os_chunk->relation_number])
		return left;
	for (int i = first_shared; i < plan->chunk_count && *left_count > 0; i++)
	{
		const PlannedChunk *chunk = &plan->chunks[i];

		if (!chunk->shared || chunk->relation_number != os_chunk->relation_number)
			break;
		if (chunk->has_runs && chunk->fork == os_chunk->fork && !chunk->drop_os_copy)
			left = runs_without(left, *left_count, chunk->runs, chunk->run_count, left_count);
	}
	return left;
}

/*
 * For a user's CALL: the OS chunks' reads were only asked for; wait until
 * they are in, so that what restore() reports loaded is cached when it
 * returns (the same advice again finds the pages in, or in flight, and
 * waits for those).  Only what shared buffers did not read since.
 */
static void
wait_for_os_reads(const SnapshotLoadRequest *request, const SnapshotLoadDriver *driver, LoadPlan *plan,
				  ActionProgress *progress)
{
	MemoryContext load_context = CurrentMemoryContext;
	int32	   *first_shared = palloc(sizeof(int32) * (plan->relation_numbers + 1));

	/* the plan lists a relation's shared chunks together: where they start */
	for (int r = 0; r <= plan->relation_numbers; r++)
		first_shared[r] = -1;
	for (int i = plan->chunk_count - 1; i >= 0; i--)
		if (plan->chunks[i].shared)
			first_shared[plan->chunks[i].relation_number] = i;

	for (int i = 0; i < plan->chunk_count; i++)
	{
		PlannedChunk *chunk = &plan->chunks[i];
		PrewarmResult again;
		MemoryContext chunk_context;
		cachectl_block_range *runs;
		int			run_count;
		bool		ok;

		if (!chunk->has_runs || chunk->shared || plan->gone[chunk->relation_number])
			continue;
		chunk_context = AllocSetContextCreate(load_context, "pg_cachectl snapshot wait runs",
											 ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(chunk_context);
		if (first_shared[chunk->relation_number] >= 0)
			runs = runs_not_read(plan, chunk, first_shared[chunk->relation_number], &run_count);
		else
		{
			runs = chunk->runs;
			run_count = chunk->run_count;
		}
		MemoryContextSwitchTo(load_context);
		if (run_count > 0)
		{
			MemoryContext step_context;

			driver->begin_step();
			step_context = AllocSetContextCreate(TopTransactionContext, "pg_cachectl snapshot wait",
												 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(step_context);
			ok = load_runs(request, chunk, runs, run_count, PREWARM_OS, true, 0, progress, &again);
			MemoryContextSwitchTo(load_context);
			MemoryContextDelete(step_context);
			driver->end_step();
			if (!ok)
				plan->gone[chunk->relation_number] = true;
		}
		MemoryContextDelete(chunk_context);
	}
}

/* For a user: the relations the plan skips, before anything is loaded. */
static void
tell_skips(const SnapshotLoadRequest *request, const LoadPlan *plan)
{
	if (!request->for_user)
		return;
	for (int i = 0; i < plan->chunk_count; i++)
		if (plan->chunks[i].skip_reason != NULL)
			ereport(NOTICE,
					(errmsg("skipping relation \"%s\": %s",
							plan->chunks[i].relation_name, plan->chunks[i].skip_reason)));
}

/*
 * Relations warmed, skipped and remapped, once the load is over: a relation
 * has rows in both layers, counted once.
 */
static void
count_relations(const LoadPlan *plan, SnapshotLoadResult *result)
{
	bool	   *counted = palloc0(sizeof(bool) * (plan->relation_numbers + 1));

	for (int i = 0; i < plan->chunk_count; i++)
	{
		const PlannedChunk *chunk = &plan->chunks[i];

		if (counted[chunk->relation_number])
			continue;
		counted[chunk->relation_number] = true;
		if (chunk->skip_reason != NULL || plan->gone[chunk->relation_number])
			result->relations_skipped++;
		else
		{
			result->relations_warmed++;
			if (chunk->remapped)
				result->relations_remapped++;
		}
	}
}

void
snapshot_load(const SnapshotLoadRequest *request, const SnapshotLoadDriver *driver, SnapshotLoadResult *result)
{
	MemoryContext load_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl snapshot load",
													   ALLOCSET_DEFAULT_SIZES);
	MemoryContext caller_context = MemoryContextSwitchTo(load_context);
	LoadPlan	plan = {0};
	ActionProgress progress;

	memset(result, 0, sizeof(*result));
	result->started = GetCurrentTimestamp();
	action_progress_begin(&progress, request->progress_name);
	/* asked inside a chunk too: at a slow rate one chunk takes seconds */
	progress.stop_early = driver->should_stop;

	driver->begin_step();
	read_plan(request, driver->rate_mb_per_sec(driver->rate_arg), load_context, &plan);
	if (plan.chunk_count > 0)
		result->matched_by = matched_by(request->label);
	driver->end_step();
	MemoryContextSwitchTo(load_context);
	result->chunks_planned = plan.chunk_count;
	if (request->for_user && result->matched_by != NULL && strcmp(result->matched_by, "name") == 0)
		ereport(NOTICE,
				(errmsg("cache snapshot \"%s\" was taken by another cluster: relations are matched by name, blocks by their share of each fork",
						request->label)));
	else if (request->for_user && result->matched_by != NULL && strcmp(result->matched_by, "mixed") == 0)
		ereport(NOTICE,
				(errmsg("cache snapshot \"%s\" holds rows taken by another cluster: their relations are matched by name, blocks by their share of each fork",
						request->label)));

	share_budget(request, &plan);
	tell_skips(request, &plan);
	load_passes(request, driver, &plan, &progress, result);
	if (request->for_user && !result->stopped)
		wait_for_os_reads(request, driver, &plan, &progress);
	count_relations(&plan, result);
	if (request->for_user && result->shared_blocks_left > 0)
		ereport(NOTICE,
				(errmsg("cache snapshot \"%s\": " INT64_FORMAT " blocks were left out of shared buffers",
						request->label, result->shared_blocks_left),
				 errdetail("Its blocks in shared buffers fill at most %g of shared_buffers; each relation got the same share, its hot blocks first.",
						   request->shared_share)));
	result->finished = GetCurrentTimestamp();
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(load_context);
}
