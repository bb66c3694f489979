/*
 * snapshot_plan.c — cachectl_internal.restore_plan(): the chunks that load a
 * cache snapshot back, which the loader of restore() and the autowarm worker
 * follows (snapshot_load.c).  The label's
 * rows are read with SPI as the caller, so row security shows only those of
 * tables it may SELECT; each relation is found as it is now, and the core
 * plans its chunks (restore_planner.hpp: clipped, remapped, sorted, less
 * what is resident, OS copies marked).
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/tuplestore.h"

#include <math.h>

#include "api/api.h"
#include "api/block_runs.h"
#include "api/call_arguments.h"
#include "api/internal_entry.h"
#include "os_cache/fork_residency.h"
#include "relation_set/database_relations.h"
#include "shared_buffers/buffer_scan_setup.h"
#include "snapshots/snapshots.h"

#include "pg_cachectl/restore_plans.h"

PG_FUNCTION_INFO_V1(pg_cachectl_restore_plan);

#define RESTORE_PLAN_COLUMNS 10

/*
 * The label's relations, smallest first (most relations are warm soonest,
 * an index before its table, which every lookup reads first), each found
 * now by the one matching rule (snapshot_match.c): by OID where this cluster
 * recorded it and it still exists (remapped if rewritten since), else by
 * name (remapped).  A label can hold rows of several clusters (a restored
 * dump of another one, then a local snapshot() of some relations): an OID
 * means something only in the cluster that recorded it.  %s is the rule.
 */
static const char *const relations_query =
"SELECT g.relation, g.relation_name, g.system_identifier, f.rel,"
"       CASE WHEN o.by_oid THEN pg_catalog.pg_relation_filenode(f.rel) IS DISTINCT FROM g.relfilenode"
"            ELSE true END AS remapped,"
"       c.relpersistence"
"  FROM (SELECT s.relation, s.relation_name, s.relfilenode, s.system_identifier,"
"               sum(s.block_count) AS blocks"
"          FROM cachectl.snapshot AS s WHERE s.label = $1"
"         GROUP BY s.relation, s.relation_name, s.relfilenode, s.system_identifier) AS g"
" CROSS JOIN LATERAL (SELECT %s AS rel) AS f"
" CROSS JOIN LATERAL (SELECT g.system_identifier = $2 AND f.rel::pg_catalog.oid = g.relation AS by_oid) AS o"
"  LEFT JOIN pg_catalog.pg_class AS c ON c.oid = f.rel"
" ORDER BY g.blocks, g.relation, g.system_identifier";

/* The rule since 1.1, one function the row-security policy uses too. */
static const char *const matching_rule =
"cachectl_internal.snapshot_row_relation(g.system_identifier, g.relation, g.relation_name)";

/*
 * The same rule written out, for a database still at 1.0 (the library is
 * installed before ALTER EXTENSION ... UPDATE, and a standby's worker loads
 * snapshots meanwhile).
 */
static const char *const matching_rule_1_0 =
"CASE WHEN g.system_identifier = $2"
"           AND EXISTS (SELECT FROM pg_catalog.pg_class AS k WHERE k.oid = g.relation)"
"     THEN g.relation::pg_catalog.regclass ELSE pg_catalog.to_regclass(g.relation_name) END";

static bool
matching_function_installed(void)
{
	Oid			argument_types[3] = {TEXTOID, OIDOID, TEXTOID};
	List	   *name = list_make2(makeString("cachectl_internal"), makeString("snapshot_row_relation"));

	return OidIsValid(LookupFuncName(name, 3, argument_types, true));
}

enum
{
	RELATION_OID = 1, RELATION_NAME, RELATION_SYSTEM, RELATION_NOW, RELATION_REMAPPED,
	RELATION_PERSISTENCE
};

/* A relation's rows in the target's layers, with each fork's length now. */
static const char *const rows_query =
"SELECT s.fork, s.layer, s.fork_blocks, s.blocks,"
"       COALESCE(CASE WHEN s.fork IN ('main', 'fsm', 'vm', 'init')"
"                     THEN pg_catalog.pg_relation_size($3, s.fork) / $5 END, 0) AS now_blocks,"
"       s.hot_blocks"
"  FROM cachectl.snapshot AS s"
" WHERE s.label = $1 AND s.relation = $2 AND s.system_identifier = $4"
"   AND ($6 = 'both' OR s.layer = $6)"
" ORDER BY s.layer = 'shared', s.fork";

enum
{
	ROW_FORK = 1, ROW_LAYER, ROW_RECORDED_BLOCKS, ROW_RUNS, ROW_NOW_BLOCKS, ROW_HOT_BLOCKS
};

/*
 * The runs a relation's shared rows recorded as hot, per fork: a chunk of
 * shared buffers says which of its blocks they are (hot_runs), so that a
 * load that cannot bring back all of the relation brings those first.  None
 * for a remapped relation (its blocks are placed by share, not by number).
 */
typedef struct HotRuns
{
	cachectl_block_range *runs[MAX_FORKNUM + 1];
	int			count[MAX_FORKNUM + 1];
} HotRuns;

/* Where a fork's blocks are in a finished pass over shared buffers. */
typedef struct SharedRowKey
{
	Oid			relid;
	int			fork;
} SharedRowKey;

typedef struct SharedRowEntry
{
	SharedRowKey key;
	size_t		index;
} SharedRowEntry;

typedef struct SharedResidency
{
	cachectl_buffer_scan *scan;
	HTAB	   *rows;
} SharedResidency;

/* What the caller asked for. */
typedef struct PlanRequest
{
	text	   *label;
	const char *target_name;
	PrewarmTarget target;
	bool		missing_only;
	int64		chunk_blocks;
} PlanRequest;

/* A chunk: a quarter of a second's loading at the rate, 32 MB at most. */
static int64
chunk_blocks_at(double rate_bytes)
{
	int64		most = (int64) 32 * 1024 * 1024 / BLCKSZ;

	if (rate_bytes <= 0)
		return most;
	return Min(most, Max(16, (int64) floor(rate_bytes / 4 / BLCKSZ)));
}

/* What shared buffers hold now, of the relations the caller may read: one pass. */
static SharedResidency
shared_residency_now(MemoryContext owner)
{
	SharedResidency residency;
	int			relation_count;
	DatabaseRelation *relations = database_relations_list(DATABASE_RELATIONS_SELECTABLE, &relation_count);
	size_t		rows;
	HASHCTL		hash = {0};

	residency.scan = buffer_scan_pass_database(owner, relations, relation_count);
	rows = cachectl_buffer_scan_row_count(residency.scan);
	hash.keysize = sizeof(SharedRowKey);
	hash.entrysize = sizeof(SharedRowEntry);
	hash.hcxt = owner;
	residency.rows = hash_create("pg_cachectl shared rows", Max(rows, 16), &hash,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (size_t i = 0; i < rows; i++)
	{
		cachectl_buffer_row row;
		SharedRowKey key = {0};
		SharedRowEntry *entry;

		cachectl_buffer_scan_row(residency.scan, i, &row);
		key.relid = row.relation_id;
		key.fork = row.fork_number;
		entry = hash_search(residency.rows, &key, HASH_ENTER, NULL);
		entry->index = i;
	}
	return residency;
}

static void
free_plan(void *plan)
{
	cachectl_restore_plan_free((cachectl_restore_plan *) plan);
}

/* An empty plan for one relation, freed with owner. */
static cachectl_restore_plan *
restore_plan_create(MemoryContext owner, const PlanRequest *request, bool remapped)
{
	MemoryContextCallback *callback = cachectl_reserve_free_callback(owner);
	cachectl_error error = {0};
	cachectl_restore_plan *plan = cachectl_restore_plan_create(request->target == PREWARM_BOTH, remapped,
															   request->chunk_blocks, &error);

	if (plan == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, callback, free_plan, plan);
	return plan;
}

/* The fork a row names, InvalidForkNumber for a name no fork has. */
static ForkNumber
fork_named(const char *name)
{
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		if (strcmp(forkNames[fork], name) == 0)
			return (ForkNumber) fork;
	return InvalidForkNumber;
}

/*
 * Why a row cannot be planned (NULL when it can): the table's NOT NULLs and
 * CHECKs keep such rows out, but a superuser can drop them, and one bad row
 * must cost a WARNING, never the load of the others (nor the server: a NULL
 * multirange read as one crashed it).
 */
static const char *
unreadable_row(HeapTuple tuple, TupleDesc desc)
{
	static const struct
	{
		int			column;
		const char *why;
	}			required[] = {
		{ROW_FORK, "its fork is NULL"},
		{ROW_LAYER, "its layer is NULL"},
		{ROW_RECORDED_BLOCKS, "its fork_blocks is NULL"},
		{ROW_RUNS, "its blocks are NULL"},
	};
	bool		isnull;

	for (int i = 0; i < lengthof(required); i++)
	{
		(void) SPI_getbinval(tuple, desc, required[i].column, &isnull);
		if (isnull)
			return required[i].why;
	}
	if (fork_named(TextDatumGetCString(SPI_getbinval(tuple, desc, ROW_FORK, &isnull))) == InvalidForkNumber)
		return "its fork is not one of main, fsm, vm, init";
	return NULL;
}

/* Adds the relation's rows (and with missing_only what is resident) to its plan. */
static void
add_relation_rows(cachectl_restore_plan *plan, SPIPlanPtr rows_plan, const PlanRequest *request,
				  Oid recorded_relid, const char *relation_name, Datum system_identifier, Oid now_relid,
				  bool remapped, const SharedResidency *shared, HotRuns *hot)
{
	Datum		values[6];
	char		nulls[6] = "      ";
	cachectl_error error = {0};

	values[0] = PointerGetDatum(request->label);
	values[1] = ObjectIdGetDatum(recorded_relid);
	values[2] = ObjectIdGetDatum(now_relid);
	values[3] = system_identifier;
	values[4] = Int64GetDatum(BLCKSZ);
	values[5] = CStringGetTextDatum(request->target_name);
	if (SPI_execute_plan(rows_plan, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "restore_plan could not read the rows of a snapshot");

	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		const char *unreadable = unreadable_row(tuple, desc);
		ForkNumber	fork;
		bool		shared_layer;
		int64		recorded_blocks;
		MultirangeType *recorded;
		int64		now_blocks;
		int			run_count;
		cachectl_block_range *runs;

		if (unreadable != NULL)
		{
			char	   *fork_name = SPI_getvalue(tuple, desc, ROW_FORK);
			char	   *layer_name = SPI_getvalue(tuple, desc, ROW_LAYER);

			ereport(WARNING,
					errcode(ERRCODE_DATA_CORRUPTED),
					errmsg("skipping a row of cache snapshot \"%s\" that cannot be read: %s",
						   text_to_cstring(request->label), unreadable),
					errdetail("The row is of relation \"%s\", fork %s, layer %s; the other rows are loaded.",
							  relation_name, fork_name ? fork_name : "NULL", layer_name ? layer_name : "NULL"));
			continue;
		}
		fork = fork_named(TextDatumGetCString(SPI_getbinval(tuple, desc, ROW_FORK, &isnull)));
		shared_layer = strcmp(TextDatumGetCString(SPI_getbinval(tuple, desc, ROW_LAYER, &isnull)), "shared") == 0;
		recorded_blocks = DatumGetInt64(SPI_getbinval(tuple, desc, ROW_RECORDED_BLOCKS, &isnull));
		recorded = DatumGetMultirangeTypeP(SPI_getbinval(tuple, desc, ROW_RUNS, &isnull));
		now_blocks = DatumGetInt64(SPI_getbinval(tuple, desc, ROW_NOW_BLOCKS, &isnull));
		/* runs past the fork as it was are not read, whatever the row says */
		runs = block_runs_from_multirange(recorded, Max(recorded_blocks, 0), &run_count);

		if (cachectl_restore_plan_add_row(plan, fork, shared_layer ? CACHECTL_SNAPSHOT_SHARED : CACHECTL_SNAPSHOT_OS,
										  recorded_blocks, now_blocks, runs, run_count, &error) != CACHECTL_OK)
			cachectl_raise_core_error(&error);
		if (shared_layer && !remapped)
		{
			Datum		hot_blocks = SPI_getbinval(tuple, desc, ROW_HOT_BLOCKS, &isnull);

			/* a NULL (the NOT NULL dropped by hand) only means no heat known */
			if (!isnull)
				hot->runs[fork] = block_runs_from_multirange(DatumGetMultirangeTypeP(hot_blocks),
															 Max(recorded_blocks, 0), &hot->count[fork]);
		}
		if (!request->missing_only)
			continue;
		if (shared_layer)
		{
			SharedRowKey key = {0};
			SharedRowEntry *entry;
			const uint32 *blocks = NULL;
			size_t		block_count = 0;

			key.relid = now_relid;
			key.fork = fork;
			entry = hash_search(shared->rows, &key, HASH_FIND, NULL);
			if (entry != NULL)
				buffer_scan_row_blocks(shared->scan, entry->index, &blocks, &block_count);
			if (cachectl_restore_plan_resident_blocks(plan, blocks, block_count, &error) != CACHECTL_OK)
				cachectl_raise_core_error(&error);
		}
		else
		{
			size_t		cached_count;
			cachectl_block_range *cached = os_cached_runs(now_relid, fork, "restore_plan", &cached_count);

			if (cachectl_restore_plan_resident_runs(plan, cached, cached_count, &error) != CACHECTL_OK)
				cachectl_raise_core_error(&error);
		}
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * The rows of one relation: its chunks, or one row saying why it is skipped
 * (plan NULL) or that nothing is left to load.
 */
static void
put_relation(ReturnSetInfo *rsinfo, cachectl_restore_plan *plan, int32 number, Datum name, Oid now_relid,
			 bool remapped, const char *skip_reason, const HotRuns *hot)
{
	Datum		values[RESTORE_PLAN_COLUMNS] = {0};
	bool		nulls[RESTORE_PLAN_COLUMNS] = {false, false, false, false, true, true, true, true, true, true};
	size_t		chunk_count = 0;
	cachectl_error error = {0};

	values[0] = Int32GetDatum(number);
	values[1] = name;
	values[2] = ObjectIdGetDatum(now_relid);
	nulls[2] = !OidIsValid(now_relid);
	values[3] = BoolGetDatum(remapped);
	if (plan == NULL)
	{
		values[4] = CStringGetTextDatum(skip_reason);
		nulls[4] = false;
	}
	else if (cachectl_restore_plan_make(plan, &chunk_count, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);

	for (size_t i = 0; i < chunk_count; i++)
	{
		cachectl_planned_chunk chunk;

		CHECK_FOR_INTERRUPTS();
		if (cachectl_restore_plan_chunk(plan, i, &chunk, &error) != CACHECTL_OK)
			cachectl_raise_core_error(&error);
		values[5] = CStringGetTextDatum(forkNames[chunk.fork]);
		values[6] = CStringGetTextDatum(chunk.layer == CACHECTL_SNAPSHOT_SHARED ? "shared" : "os");
		values[7] = block_runs_to_multirange(chunk.runs, chunk.run_count);
		values[8] = BoolGetDatum(chunk.drop_os_copy);
		memset(&nulls[5], false, 4);
		nulls[9] = true;
		if (chunk.layer == CACHECTL_SNAPSHOT_SHARED && hot->runs[chunk.fork] != NULL)
		{
			size_t		hot_count;
			cachectl_block_range *hot_runs = block_runs_intersect(chunk.runs, chunk.run_count,
																  hot->runs[chunk.fork],
																  (size_t) hot->count[chunk.fork], &hot_count);

			values[9] = block_runs_to_multirange(hot_runs, hot_count);
			nulls[9] = false;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	/* a relation with nothing left to load still has its row (restore() counts it warmed) */
	if (chunk_count == 0)
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl_internal.restore_plan(label text, target text DEFAULT 'both',
 *                       max_mb_per_sec float8 DEFAULT NULL, missing_only boolean DEFAULT false)
 *   RETURNS TABLE (relation_number int4, relation_name text, rel regclass, remapped boolean,
 *                  skip_reason text, fork text, layer text, runs int8multirange,
 *                  drop_os_copy boolean, hot_runs int8multirange)
 *
 * For each of the label's relations the caller can see (numbered from the
 * one with the fewest recorded blocks): where it is now or why it is
 * skipped, then its chunks, OS runs before shared runs, each chunk a quarter
 * of a second's loading at the rate (32 MB at most).  With missing_only,
 * what is resident now is left out (one pass over the buffer pool, one OS
 * map per fork).  Internal: restore() and the autowarm worker load what it
 * plans, a chunk per transaction.
 */
Datum
pg_cachectl_restore_plan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PlanRequest request;
	MemoryContext work_context;
	MemoryContext caller_context;
	SharedResidency shared = {0};
	Oid			relation_types[2] = {TEXTOID, TEXTOID};
	Oid			row_types[6] = {TEXTOID, OIDOID, REGCLASSOID, TEXTOID, INT8OID, TEXTOID};
	Datum		relation_values[2];
	SPITupleTable *relations;
	SPIPlanPtr	rows_plan;
	bool		recovery = RecoveryInProgress();
	bool		exists;
	bool		isnull;
	ErrorContextCallback *caller_stack;

	require_entry_point_privilege(INTERNAL_FOR_RESTORE, "cachectl_internal.restore_plan()");
	caller_stack = internal_errors_to_user();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("label and target must not be null"));
	request.label = PG_GETARG_TEXT_PP(0);
	request.target_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	request.target = target_argument(fcinfo, 1);
	request.chunk_blocks = chunk_blocks_at(rate_argument(fcinfo, 2));
	request.missing_only = PG_GETARG_BOOL(3);

	InitMaterializedSRF(fcinfo, 0);
	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl restore_plan",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "restore_plan could not connect to SPI");

	relation_values[0] = PointerGetDatum(request.label);
	if (SPI_execute_with_args("SELECT EXISTS (SELECT FROM cachectl.snapshot AS s WHERE s.label = $1)",
							  1, relation_types, relation_values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "restore_plan could not look for a snapshot");
	exists = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!exists)
		ereport(ERROR,
				errcode(ERRCODE_UNDEFINED_OBJECT),
				errmsg("cache snapshot \"%s\" does not exist", text_to_cstring(request.label)),
				errhint("A snapshot's rows are visible only to roles that may SELECT their tables."));
	if (request.missing_only && request.target != PREWARM_OS)
		shared = shared_residency_now(work_context);

	relation_values[1] = PointerGetDatum(cluster_system_identifier());
	if (SPI_execute_with_args(psprintf(relations_query, matching_function_installed() ? matching_rule : matching_rule_1_0),
							  2, relation_types, relation_values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "restore_plan could not read the relations of a snapshot");
	relations = SPI_tuptable;
	rows_plan = SPI_prepare(rows_query, 6, row_types);
	if (rows_plan == NULL)
		elog(ERROR, "restore_plan could not prepare its query: %s", SPI_result_code_string(SPI_result));

	for (uint64 i = 0; i < relations->numvals; i++)
	{
		HeapTuple	tuple = relations->vals[i];
		TupleDesc	desc = relations->tupdesc;
		bool		oid_null;
		bool		name_null;
		bool		system_null;
		Oid			recorded_relid = DatumGetObjectId(SPI_getbinval(tuple, desc, RELATION_OID, &oid_null));
		Datum		name = SPI_getbinval(tuple, desc, RELATION_NAME, &name_null);
		Datum		system_identifier = SPI_getbinval(tuple, desc, RELATION_SYSTEM, &system_null);
		Datum		now = SPI_getbinval(tuple, desc, RELATION_NOW, &isnull);
		Oid			now_relid = isnull ? InvalidOid : DatumGetObjectId(now);
		bool		remapped = DatumGetBool(SPI_getbinval(tuple, desc, RELATION_REMAPPED, &isnull));
		Datum		persistence = SPI_getbinval(tuple, desc, RELATION_PERSISTENCE, &isnull);
		const char *skip_reason = NULL;
		MemoryContext relation_context;
		cachectl_restore_plan *plan;
		HotRuns		hot = {{0}};

		CHECK_FOR_INTERRUPTS();
		if (oid_null || name_null || system_null)
		{
			/* no relation to name in a row of the plan: a WARNING, and the others go on */
			ereport(WARNING,
					errcode(ERRCODE_DATA_CORRUPTED),
					errmsg("skipping rows of cache snapshot \"%s\" that cannot be read: their %s is NULL",
						   text_to_cstring(request.label),
						   oid_null ? "relation" : name_null ? "relation_name" : "system_identifier"));
			continue;
		}
		relation_context = AllocSetContextCreate(work_context, "pg_cachectl restore_plan relation",
												 ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(relation_context);
		if (!OidIsValid(now_relid))
			skip_reason = "dropped since the snapshot was taken";
		else if (recovery && (isnull || DatumGetChar(persistence) != RELPERSISTENCE_PERMANENT))
			skip_reason = "unlogged relations cannot be read during recovery";
		plan = NULL;
		if (skip_reason == NULL)
		{
			plan = restore_plan_create(relation_context, &request, remapped);
			add_relation_rows(plan, rows_plan, &request, recorded_relid, TextDatumGetCString(name),
							  system_identifier, now_relid, remapped, &shared, &hot);
		}
		put_relation(rsinfo, plan, (int32) (i + 1), name, now_relid, remapped, skip_reason, &hot);
		MemoryContextSwitchTo(work_context);
		MemoryContextDelete(relation_context);
	}

	SPI_finish();
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	error_context_stack = caller_stack;
	return (Datum) 0;
}
