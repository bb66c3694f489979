/*
 * explain_reads.c — cachectl.explain_reads(query text): runs one query as
 * EXPLAIN ANALYZE would (planned and executed here, as the caller, with its
 * privileges, its results thrown away) and returns, per plan node, where its
 * reads came from: shared buffers, the OS page cache or the device
 * (read_tracking.c), then one row for the whole query.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tstoreReceiver.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/execnodes.h"
#include "storage/bufmgr.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "reads/executor_compat.h"
#include "reads/explain_option.h"
#include "reads/plan_node_names.h"
#include "reads/read_tracking.h"

PG_FUNCTION_INFO_V1(pg_cachectl_explain_reads);

#define EXPLAIN_READS_COLUMNS 13

/* The statements EXPLAIN ANALYZE runs that have a plan of their own. */
static bool
has_a_plan(const Node *statement)
{
	switch (nodeTag(statement))
	{
		case T_SelectStmt:
		case T_InsertStmt:
		case T_UpdateStmt:
		case T_DeleteStmt:
		case T_MergeStmt:
			return true;
		default:
			return false;
	}
}

/* The one query the text holds, analyzed and rewritten. */
static Query *
one_query(const char *text)
{
	List	   *statements = pg_parse_query(text);
	RawStmt    *raw;
	List	   *queries;
	Query	   *query;

	if (list_length(statements) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("explain_reads() runs exactly one statement, not %d", list_length(statements))));
	raw = linitial_node(RawStmt, statements);
	if (!has_a_plan(raw->stmt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("explain_reads() runs SELECT, INSERT, UPDATE, DELETE or MERGE"),
				 errhint("Other statements have no plan whose reads could be told apart.")));
	queries = pg_analyze_and_rewrite_fixedparams(raw, text, NULL, 0, NULL);
	if (list_length(queries) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("explain_reads() cannot run a statement that rules turn into %d queries",
						list_length(queries))));
	query = linitial_node(Query, queries);
	if (query->commandType == CMD_UTILITY)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("explain_reads() runs SELECT, INSERT, UPDATE, DELETE or MERGE"),
				 errhint("SELECT INTO creates a table: use INSERT INTO ... SELECT.")));
	return query;
}

/* Columns 7 to 12: PostgreSQL's counts, then the split where it is known. */
static void
put_reads(Datum *values, bool *nulls, const BufferFigures *counted, bool known, const cachectl_read_sources *sources)
{
	values[7] = Int64GetDatum(counted->shared_hit_blocks);
	values[8] = Int64GetDatum(counted->read_blocks);
	values[9] = Int64GetDatum(sources->os_hit_blocks);
	values[10] = Int64GetDatum(sources->device_read_blocks);
	values[11] = Int64GetDatum(sources->device_read_bytes);
	nulls[9] = nulls[10] = nulls[11] = !known;
	values[12] = Float8GetDatum(counted->read_seconds);
	nulls[12] = !track_io_timing;
}

/*
 * cachectl.explain_reads(query text)
 *   RETURNS TABLE (node_id int4, parent_node_id int4, depth int4, node_type text,
 *                  relation regclass, index regclass, loops int8,
 *                  shared_hit_blocks int8, read_blocks int8, os_hit_blocks int8,
 *                  device_read_blocks int8, device_read_bytes int8, read_seconds float8)
 */
Datum
pg_cachectl_explain_reads(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *query_text;
	Query	   *query;
	PlannedStmt *plan;
	QueryDesc  *desc;
	ReadTracker *tracker;
	NodeReads  *figures;
	int			figure_count;
	QueryReads	whole;
	ReadCounters before_start;
	const char *unknowable = read_sources_unknowable();
	Datum		values[EXPLAIN_READS_COLUMNS];
	bool		nulls[EXPLAIN_READS_COLUMNS];

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query of explain_reads() must not be null")));
	query_text = text_to_cstring(PG_GETARG_TEXT_PP(0));
	InitMaterializedSRF(fcinfo, 0);

	query = one_query(query_text);
	plan = CACHECTL_PLAN_QUERY(query, query_text);
	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
	desc = CreateQueryDesc(plan, query_text, GetActiveSnapshot(), InvalidSnapshot, None_Receiver, NULL, NULL,
						   INSTRUMENT_ROWS | INSTRUMENT_BUFFERS);
	/* the query's figures: from its start (catalogs, metapages), not its planning */
	before_start = read_counters_now();
	explain_option_forget_request();
	ExecutorStart(desc, 0);
	tracker = read_tracker_start(desc, &before_start);
	CACHECTL_EXECUTOR_RUN(desc);
	ExecutorFinish(desc);
	read_tracker_stop(tracker);
	figures = read_tracker_figures(tracker, &figure_count);
	whole = read_tracker_query(tracker);
	ExecutorEnd(desc);
	FreeQueryDesc(desc);
	PopActiveSnapshot();
	CommandCounterIncrement();

	if (unknowable != NULL)
		ereport(NOTICE,
				(errmsg("explain_reads(): where the reads came from is not known with %s", unknowable),
				 errdetail("The I/O workers read for this backend: the kernel counts their device reads to them."),
				 errhint("Set io_method to sync or io_uring (a restart) to tell the page cache from the device.")));
	else if (whole.parallel_workers > 0)
		ereport(NOTICE,
				(errmsg("explain_reads(): %d parallel workers read part of this query; where their reads came from is not counted",
						whole.parallel_workers),
				 errdetail("The nodes they ran in, those above them and the query have NULL sources."),
				 errhint("SET max_parallel_workers_per_gather = 0 to count every read.")));

	for (int i = 0; i < figure_count; i++)
	{
		const NodeReads *figure = &figures[i];
		const Plan *node = figure->plan;
		Oid			relation = plan_node_relation(node, plan->rtable);
		Oid			index = plan_node_index(node);

		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum(node->plan_node_id);
		values[1] = figure->parent >= 0 ? Int32GetDatum(figures[figure->parent].plan->plan_node_id) : 0;
		nulls[1] = figure->parent < 0;
		values[2] = Int32GetDatum(figure->depth);
		values[3] = CStringGetTextDatum(plan_node_name(node));
		values[4] = ObjectIdGetDatum(relation);
		nulls[4] = !OidIsValid(relation);
		values[5] = ObjectIdGetDatum(index);
		nulls[5] = !OidIsValid(index);
		values[6] = Int64GetDatum((int64) figure->loops);
		put_reads(values, nulls, &figure->counted, figure->split_known, &figure->sources);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	/* the whole query: its nodes and what ran outside them (start, triggers at the end) */
	memset(nulls, 0, sizeof(nulls));
	nulls[0] = nulls[1] = nulls[4] = nulls[5] = nulls[6] = true;
	values[2] = Int32GetDatum(0);
	values[3] = CStringGetTextDatum("Query");
	put_reads(values, nulls, &whole.counted, whole.split_known, &whole.sources);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
