/*
 * autowarm_load.c — the autowarm worker loading a snapshot back: the plan
 * from cachectl_internal.restore_plan() (the one restore() follows), then a chunk per
 * transaction through cachectl_internal.prewarm_runs(), so that the worker never
 * holds a snapshot or a relation's lock for longer than a chunk (a quarter
 * of a second at the rate, 32 MB at most): DDL waiting for a lock gets it
 * between two chunks, and replay on a standby is not delayed.  A relation
 * dropped meanwhile, or that cannot be loaded (its error logged), is skipped
 * and counted; one truncated or rewritten is loaded as it is now.  The OS
 * layer of every relation is loaded first, then shared buffers (from the
 * page cache by then), the smallest relations first; the snapshot's blocks
 * in shared buffers fill at most cachectl.autowarm_max_share of the pool,
 * those an earlier load left there included (a standby's own readers keep
 * the rest), each relation the same share of its blocks when they do not
 * all fit, its hot blocks (used again when recorded) first.
 * cachectl.autowarm_max_mb_per_sec paces the whole load, not each call: a
 * label of 35,000 one-block runs once went at four times the rate, each
 * call throttling only itself.  The label is read once per load,
 * so a reload that changes it meanwhile does not mix two snapshots.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include <math.h>

#include "action_progress.h"
#include "autowarm_settings.h"
#include "autowarm_start_marker.h"
#include "autowarm_worker.h"
#include "cachectl.h"

/* One row of restore_plan(), copied out of its transaction. */
typedef struct PlannedChunk
{
	int32		relation_number;
	char	   *relation_name;
	Oid			relation;
	char	   *skip_reason;	/* NULL unless skipped */
	char	   *fork;			/* NULL: nothing to load */
	char	   *layer;
	char	   *runs;			/* int8multirange as text */
	bool		drop_os_copy;
	int64		blocks;			/* in runs */
	/* a shared chunk's runs the snapshot recorded hot, and the others */
	char	   *hot_runs;
	int64		hot_blocks;
	char	   *cold_runs;
	int64		cold_blocks;
} PlannedChunk;

/*
 * What a pass over the plan loads of a chunk: all of it, or of a relation
 * that cannot come back whole its hot blocks in the first pass and the rest
 * in the second.
 */
typedef enum ChunkPart
{
	CHUNK_NOTHING, CHUNK_WHOLE, CHUNK_HOT, CHUNK_COLD
} ChunkPart;

typedef struct LoadCounts
{
	int64		shared_blocks;
	int64		os_blocks;
	int64		relations_skipped;
} LoadCounts;

/* The load under way, if any, and the rows it planned from (for autowarm_load_abandon). */
static bool load_in_progress = false;
static char planned_fingerprint[AUTOWARM_FINGERPRINT_LENGTH];

static void
begin_statement_transaction(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

static void
end_statement_transaction(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
}

static char *
text_column(HeapTuple row, TupleDesc desc, int column, MemoryContext into)
{
	char	   *value = SPI_getvalue(row, desc, column);

	return value ? MemoryContextStrdup(into, value) : NULL;
}

/* Inside a transaction with SPI connected: count and newest taken_at of the label. */
static void
fingerprint_now(const char *label, char *fingerprint, size_t size)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(label)};
	char	   *value;

	if (SPI_execute_with_args("SELECT pg_catalog.count(*)::pg_catalog.text OPERATOR(pg_catalog.||) '/' "
							  "OPERATOR(pg_catalog.||) COALESCE(pg_catalog.max(s.taken_at)::pg_catalog.text, '') "
							  "FROM cachectl.snapshot AS s WHERE s.label OPERATOR(pg_catalog.=) $1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the autowarm snapshot's rows");
	value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	strlcpy(fingerprint, value, size);
	if (strncmp(fingerprint, "0/", 2) == 0)
		fingerprint[0] = '\0';
}

void
autowarm_snapshot_fingerprint(char *fingerprint, size_t size)
{
	begin_statement_transaction();
	fingerprint_now(cachectl_autowarm_label_setting, fingerprint, size);
	end_statement_transaction();
}

/* The rate argument of restore_plan() (its chunk sizes): NULL for no limit. */
static void
rate_argument(Datum *value, char *null)
{
	*value = Float8GetDatum(cachectl_autowarm_max_mb_per_sec_setting);
	*null = cachectl_autowarm_max_mb_per_sec_setting > 0 ? ' ' : 'n';
}

/*
 * The load's pace: bytes asked for since origin, at the rate in force then.
 * A reload that changes the rate starts a new origin.
 */
typedef struct LoadPace
{
	double		rate_mb_per_sec;
	TimestampTz origin;
	int64		bytes;
} LoadPace;

/*
 * After a chunk of blocks: waits until the rate allows the next, waking at
 * least every 250 ms (and at once on a signal) to see whether the worker
 * should stop.  False when it should.
 */
static bool
pace_load(LoadPace *pace, int64 blocks)
{
	pace->bytes += blocks * BLCKSZ;
	for (;;)
	{
		TimestampTz now;
		TimestampTz due;

		CHECK_FOR_INTERRUPTS();
		if (autowarm_should_stop())
			return false;
		now = GetCurrentTimestamp();
		if (cachectl_autowarm_max_mb_per_sec_setting != pace->rate_mb_per_sec)
		{
			pace->rate_mb_per_sec = cachectl_autowarm_max_mb_per_sec_setting;
			pace->origin = now;
			pace->bytes = 0;
			return true;
		}
		if (pace->rate_mb_per_sec <= 0)
			return true;
		due = pace->origin +
			(TimestampTz) ((double) pace->bytes / (pace->rate_mb_per_sec * 1024.0 * 1024.0) * USECS_PER_SEC);
		if (now >= due)
			return true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min((due - now) / 1000 + 1, 250), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* Inside the plan's transaction: the blocks the label has in shared buffers. */
static int64
recorded_shared_blocks(const char *label)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(label)};
	bool		isnull;
	Datum		value;

	if (SPI_execute_with_args("SELECT LEAST(pg_catalog.sum(s.block_count), 9223372036854775807)::pg_catalog.int8 FROM cachectl.snapshot AS s "
							  "WHERE s.label OPERATOR(pg_catalog.=) $1 AND s.layer OPERATOR(pg_catalog.=) 'shared'",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the autowarm snapshot's rows");
	value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt64(value);
}

/* The plan, in load_context; returns its chunk count (0 when the label has no rows). */
static int
plan_load(const char *label, bool missing_only, MemoryContext load_context, PlannedChunk **chunks,
		  char *fingerprint, int64 *recorded_shared)
{
	Oid			types[3] = {TEXTOID, FLOAT8OID, BOOLOID};
	Datum		values[3];
	char		nulls[4] = "   ";
	int			count = 0;

	begin_statement_transaction();
	fingerprint_now(label, fingerprint, AUTOWARM_FINGERPRINT_LENGTH);
	if (fingerprint[0] != '\0')
	{
		values[0] = CStringGetTextDatum(label);
		rate_argument(&values[1], &nulls[1]);
		values[2] = BoolGetDatum(missing_only);
		/*
		 * The OS layer of every relation first, then shared buffers (read
		 * from the page cache by then): the device reads the whole hot set
		 * at its own pace before any buffer read waits for it.
		 */
		if (SPI_execute_with_args("SELECT p.relation_number, p.relation_name, p.rel::pg_catalog.oid, p.skip_reason, "
								  "p.fork, p.layer, p.runs::pg_catalog.text, p.drop_os_copy, "
								  "(SELECT pg_catalog.sum(pg_catalog.upper(r) OPERATOR(pg_catalog.-) pg_catalog.lower(r)) "
								  "   FROM pg_catalog.unnest(p.runs) AS r)::pg_catalog.int8, "
								  "h.hot::pg_catalog.text, "
								  "(SELECT pg_catalog.sum(pg_catalog.upper(r) OPERATOR(pg_catalog.-) pg_catalog.lower(r)) "
								  "   FROM pg_catalog.unnest(h.hot) AS r)::pg_catalog.int8, "
								  "(p.runs OPERATOR(pg_catalog.-) h.hot)::pg_catalog.text, "
								  "(SELECT pg_catalog.sum(pg_catalog.upper(r) OPERATOR(pg_catalog.-) pg_catalog.lower(r)) "
								  "   FROM pg_catalog.unnest(p.runs OPERATOR(pg_catalog.-) h.hot) AS r)::pg_catalog.int8 "
								  "FROM cachectl_internal.restore_plan($1, 'both', $2, $3) AS p, "
								  "LATERAL (SELECT COALESCE(p.hot_runs, '{}') AS hot) AS h "
								  "ORDER BY p.layer OPERATOR(pg_catalog.=) 'shared', p.relation_number",
								  3, types, values, nulls, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not plan the autowarm load");
		count = (int) SPI_processed;
		*chunks = MemoryContextAllocZero(load_context, sizeof(PlannedChunk) * Max(count, 1));
		for (int i = 0; i < count; i++)
		{
			HeapTuple	row = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			PlannedChunk *chunk = &(*chunks)[i];
			bool		isnull;
			Datum		value;

			chunk->relation_number = DatumGetInt32(SPI_getbinval(row, desc, 1, &isnull));
			chunk->relation_name = text_column(row, desc, 2, load_context);
			value = SPI_getbinval(row, desc, 3, &isnull);
			chunk->relation = isnull ? InvalidOid : DatumGetObjectId(value);
			chunk->skip_reason = text_column(row, desc, 4, load_context);
			chunk->fork = text_column(row, desc, 5, load_context);
			chunk->layer = text_column(row, desc, 6, load_context);
			chunk->runs = text_column(row, desc, 7, load_context);
			value = SPI_getbinval(row, desc, 8, &isnull);
			chunk->drop_os_copy = !isnull && DatumGetBool(value);
			value = SPI_getbinval(row, desc, 9, &isnull);
			chunk->blocks = isnull ? 0 : DatumGetInt64(value);
			chunk->hot_runs = text_column(row, desc, 10, load_context);
			value = SPI_getbinval(row, desc, 11, &isnull);
			chunk->hot_blocks = isnull ? 0 : DatumGetInt64(value);
			chunk->cold_runs = text_column(row, desc, 12, load_context);
			value = SPI_getbinval(row, desc, 13, &isnull);
			chunk->cold_blocks = isnull ? 0 : DatumGetInt64(value);
		}
		if (count > 0)
			*recorded_shared = recorded_shared_blocks(label);
	}
	end_statement_transaction();
	return count;
}

/*
 * Loads one chunk in its own transaction; false if its relation was
 * dropped meanwhile or could not be loaded (logged; a cancel ends the
 * worker).
 */
static bool
load_chunk(const PlannedChunk *chunk, const char *runs, int64 keep_blocks, MemoryContext load_context,
		   LoadCounts *counts)
{
	Oid			types[6] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, FLOAT8OID, INT8OID};
	Datum		values[6];
	char		nulls[7] = "    nn";	/* no rate: the load paces itself (pace_load) */
	bool		loaded = true;

	begin_statement_transaction();
	values[0] = ObjectIdGetDatum(chunk->relation);
	values[1] = CStringGetTextDatum(chunk->fork);
	values[2] = CStringGetTextDatum(runs);
	values[3] = CStringGetTextDatum(chunk->layer);
	values[4] = (Datum) 0;
	values[5] = Int64GetDatum(keep_blocks);
	if (keep_blocks >= 0)
		nulls[5] = ' ';
	PG_TRY();
	{
		char		query[1536];

		/*
		 * The OS layer is advised without waiting for each chunk's reads
		 * (os_prefetch with wait off, a run at a time): the next chunks'
		 * advice keeps the device's queue full, and the shared chunks that
		 * follow wait for any page still in flight.  (prewarm_runs waits
		 * for its OS reads: one chunk in flight at a time, a fifth of this
		 * machine's device speed.)
		 */
		if (strcmp(chunk->layer, "os") == 0)
			snprintf(query, sizeof(query),
					 "SELECT 0::pg_catalog.int8, COALESCE(pg_catalog.sum(p.blocks_requested), 0)::pg_catalog.int8 "
					 "FROM pg_catalog.unnest($3::pg_catalog.int8multirange) AS r, "
					 "LATERAL cachectl.os_prefetch($1::pg_catalog.regclass, $2, pg_catalog.lower(r), "
					 "pg_catalog.upper(r) OPERATOR(pg_catalog.-) 1, $5, false) AS p "
					 "WHERE $4 IS NOT NULL");
		else

			/*
			 * The chunk's first $6 blocks when its relation's share of the
			 * budget ends inside it (all of them when $6 is NULL).
			 */
			snprintf(query, sizeof(query),
					 "SELECT r.shared_blocks_loaded, r.os_blocks_loaded "
					 "FROM (SELECT COALESCE(pg_catalog.range_agg(CASE WHEN $6 IS NULL OR t.upto OPERATOR(pg_catalog.<=) $6 THEN t.x "
					 "        ELSE pg_catalog.int8range(pg_catalog.lower(t.x), pg_catalog.upper(t.x) OPERATOR(pg_catalog.-) "
					 "                                  (t.upto OPERATOR(pg_catalog.-) $6)) END), '{}') AS runs "
					 "      FROM (SELECT x, CAST(pg_catalog.sum(pg_catalog.upper(x) OPERATOR(pg_catalog.-) pg_catalog.lower(x)) "
					 "                    OVER (ORDER BY pg_catalog.lower(x)) AS pg_catalog.int8) AS upto "
					 "              FROM pg_catalog.unnest($3::pg_catalog.int8multirange) AS x) AS t "
					 "     WHERE $6 IS NULL OR t.upto OPERATOR(pg_catalog.-) "
					 "           (pg_catalog.upper(t.x) OPERATOR(pg_catalog.-) pg_catalog.lower(t.x)) OPERATOR(pg_catalog.<) $6) AS k, "
					 "     LATERAL cachectl_internal.prewarm_runs($1::pg_catalog.regclass, $2, k.runs, $4, $5, %s) AS r",
					 chunk->drop_os_copy ? "true" : "false");
		if (SPI_execute_with_args(query, 6, types, values, nulls, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not load an autowarm chunk");
		else
		{
			bool		isnull;
			Datum		value;

			value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
			counts->shared_blocks += isnull ? 0 : DatumGetInt64(value);
			value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
			counts->os_blocks += isnull ? 0 : DatumGetInt64(value);
		}
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(load_context);
		error = CopyErrorData();
		/* a cancel ends the load; an error of this relation only skips it */
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED || error->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		AbortCurrentTransaction();
		if (error->sqlerrcode != ERRCODE_UNDEFINED_TABLE)
			ereport(LOG,
					(errmsg("pg_cachectl autowarm: skipping relation \"%s\": %s", chunk->relation_name, error->message)));
		FreeErrorData(error);
		loaded = false;
	}
	PG_END_TRY();
	if (loaded)
		end_statement_transaction();
	return loaded;
}

/* What pass 0 or 1 of a load takes of a chunk (see ChunkPart). */
static ChunkPart
chunk_part(const PlannedChunk *chunk, int pass, bool relation_trimmed)
{
	if (strcmp(chunk->layer, "shared") != 0 || !relation_trimmed)
		return pass == 0 ? CHUNK_WHOLE : CHUNK_NOTHING;
	return pass == 0 ? CHUNK_HOT : CHUNK_COLD;
}

/* Where a load's figures go: the start load's or the last follow load's. */
static AutowarmLoadFigures *
figures_of(AutowarmDatabase *slot, bool start)
{
	return start ? &slot->start_load : &slot->follow_load;
}

bool
autowarm_load(AutowarmDatabase *slot, bool missing_only, bool start, const char *why)
{
	MemoryContext load_context = AllocSetContextCreate(TopMemoryContext, "pg_cachectl autowarm load",
													   ALLOCSET_DEFAULT_SIZES);
	MemoryContext caller_context = MemoryContextSwitchTo(load_context);
	char	   *label = pstrdup(cachectl_autowarm_label_setting);
	char		fingerprint[AUTOWARM_FINGERPRINT_LENGTH];
	PlannedChunk *chunks = NULL;
	int			chunk_count;
	LoadCounts	counts = {0};
	int64		recorded_shared = 0;
	int64		planned_shared = 0;
	int64		shared_budget;
	int64	   *shared_allowed;
	int64	   *shared_loaded;
	bool	   *shared_trimmed;
	int64		keep_blocks;
	int32		relation_numbers = 0;
	bool	   *relation_gone;
	bool		stopped = false;
	LoadPace	pace;
	TimestampTz started = GetCurrentTimestamp();
	TimestampTz finished;
	double		seconds;
	AutowarmLoadFigures *figures = figures_of(slot, start);

	AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_LOADING);
	pgstat_report_activity(STATE_RUNNING, "pg_cachectl autowarm: loading");
	chunk_count = plan_load(label, missing_only, load_context, &chunks, fingerprint, &recorded_shared);
	strlcpy(planned_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH);
	load_in_progress = true;
	if (fingerprint[0] == '\0')
	{
		/* nothing recorded yet under the label */
		load_in_progress = false;
		AUTOWARM_UPDATE(slot,
						slot->phase = AUTOWARM_IDLE;
						strlcpy(slot->loaded_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
		MemoryContextSwitchTo(caller_context);
		MemoryContextDelete(load_context);
		return true;
	}
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: loading cache snapshot \"%s\" into database \"%s\" (%s)",
					label, slot->database_name, why)));
	AUTOWARM_UPDATE(slot,
					memset(figures, 0, sizeof(*figures));
					figures->started = started);

	/*
	 * The snapshot's blocks in shared buffers fill at most
	 * cachectl.autowarm_max_share of the pool, counting those already there
	 * (a following standby's earlier loads): what the plan leaves out as
	 * resident is the recorded count less what it loads.
	 */
	for (int i = 0; i < chunk_count; i++)
	{
		relation_numbers = Max(relation_numbers, chunks[i].relation_number);
		if (chunks[i].layer != NULL && strcmp(chunks[i].layer, "shared") == 0)
			planned_shared += chunks[i].blocks;
	}
	shared_budget = (int64) floor(cachectl_autowarm_max_share_setting * NBuffers);
	if (missing_only)
		shared_budget -= Max(recorded_shared - planned_shared, 0);
	relation_gone = palloc0(sizeof(bool) * (relation_numbers + 1));

	/*
	 * Every relation gets the same share of what it has to load: a pool too
	 * small for the whole hot set holds part of each relation, not all of
	 * the first ones and none of the rest (the smallest-first order gave a
	 * standby 11 % of pgbench_accounts' hot buffers and all of its index).
	 */
	shared_allowed = palloc0(sizeof(int64) * (relation_numbers + 1));
	shared_loaded = palloc0(sizeof(int64) * (relation_numbers + 1));
	for (int i = 0; i < chunk_count; i++)
		if (chunks[i].layer != NULL && strcmp(chunks[i].layer, "shared") == 0)
			shared_allowed[chunks[i].relation_number] += chunks[i].blocks;
	shared_trimmed = palloc0(sizeof(bool) * (relation_numbers + 1));
	if (planned_shared > Max(shared_budget, 0))
	{
		double		share = (double) Max(shared_budget, 0) / planned_shared;

		for (int r = 0; r <= relation_numbers; r++)
		{
			int64		all = shared_allowed[r];

			shared_allowed[r] = (int64) floor(all * share);
			shared_trimmed[r] = shared_allowed[r] < all;
		}
	}

	pace.rate_mb_per_sec = cachectl_autowarm_max_mb_per_sec_setting;
	pace.origin = GetCurrentTimestamp();
	pace.bytes = 0;

	/*
	 * A relation whose share is less than its blocks brings its hot blocks
	 * first (those the snapshot saw used again), in a first pass over the
	 * plan, and the others with what its share has left in a second.
	 */
	for (int pass = 0; pass < 2 && !stopped; pass++)
	{
		for (int i = 0; i < chunk_count; i++)
		{
			const PlannedChunk *chunk = &chunks[i];
			ChunkPart	part;
			const char *runs;
			int64		blocks;

			CHECK_FOR_INTERRUPTS();
			if (autowarm_should_stop())
			{
				stopped = true;
				break;
			}
			if (chunk->skip_reason != NULL)
			{
				if (pass == 0)
					counts.relations_skipped++;
				continue;
			}
			if (chunk->fork == NULL || relation_gone[chunk->relation_number])
				continue;
			part = chunk_part(chunk, pass, shared_trimmed[chunk->relation_number]);
			runs = part == CHUNK_HOT ? chunk->hot_runs : part == CHUNK_COLD ? chunk->cold_runs : chunk->runs;
			blocks = part == CHUNK_HOT ? chunk->hot_blocks : part == CHUNK_COLD ? chunk->cold_blocks : chunk->blocks;
			if (part == CHUNK_NOTHING || runs == NULL || blocks <= 0)
				continue;
			keep_blocks = -1;
			if (strcmp(chunk->layer, "shared") == 0)
			{
				int64		left = shared_allowed[chunk->relation_number] - shared_loaded[chunk->relation_number];

				if (left <= 0)
					continue;
				if (blocks > left)
					keep_blocks = left;
				shared_loaded[chunk->relation_number] += Min(blocks, left);
			}
			if (!load_chunk(chunk, runs, keep_blocks, load_context, &counts))
			{
				relation_gone[chunk->relation_number] = true;
				counts.relations_skipped++;
				continue;
			}
			if (!pace_load(&pace, keep_blocks >= 0 ? keep_blocks : blocks))
			{
				stopped = true;
				break;
			}
		}
	}

	finished = GetCurrentTimestamp();
	seconds = seconds_between(started, finished);
	/*
	 * A load stopped midway (shutdown, autowarm off) has not loaded this
	 * snapshot: its fingerprint is not kept, so a following standby loads it
	 * again.
	 */
	AUTOWARM_UPDATE(slot,
					figures->finished = finished;
					figures->shared_blocks = counts.shared_blocks;
					figures->os_blocks = counts.os_blocks;
					figures->relations_skipped = counts.relations_skipped;
					figures->seconds = seconds;
					slot->loads_done++;
					if (!stopped)
						strlcpy(slot->loaded_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: %s cache snapshot \"%s\" into database \"%s\": "
					INT64_FORMAT " shared and " INT64_FORMAT " OS blocks, " INT64_FORMAT " relations skipped, in %.3f s",
					stopped ? "stopped loading" : "loaded",
					label, slot->database_name,
					counts.shared_blocks, counts.os_blocks, counts.relations_skipped, seconds)));
	load_in_progress = false;
	pgstat_report_activity(STATE_IDLE, NULL);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(load_context);
	return !stopped;
}

void
autowarm_load_abandon(AutowarmDatabase *slot)
{
	if (!load_in_progress)
		return;
	AUTOWARM_UPDATE(slot,
					slot->start_load_done = true;
					strlcpy(slot->loaded_fingerprint, planned_fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
	/* an ERROR, recorded, is not a crash: the next server start may try */
	autowarm_start_marker_clear(MyDatabaseId);
	load_in_progress = false;
}
