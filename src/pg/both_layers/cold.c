/*
 * cold.c — making relations truly cold in one call: evict them from shared
 * buffers (dirty buffers written first, pinned ones skipped), then write
 * their files back and drop them from the OS page cache.  For benchmarks
 * and regression suites that need a known cold start without a restart or
 * /proc/sys/vm/drop_caches.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "api/action_progress.h"
#include "api/api.h"
#include "api/null_arguments.h"
#include "api/version_compat.h"
#include "os_cache/fork_residency.h"
#include "os_cache/os_cache.h"
#include "relation_set/database_relations.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_pool_pass.h"
#include "shared_buffers/buffer_scan_setup.h"

PG_FUNCTION_INFO_V1(pg_cachectl_cold);
PG_FUNCTION_INFO_V1(pg_cachectl_cold_database);

#define COLD_COLUMNS 6
#define COLD_DATABASE_COLUMNS 7

/*
 * cachectl.cold(rel regclass, cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, buffers_evicted int8,
 *                  buffers_flushed int8, shared_blocks_left int8,
 *                  os_pages_left int8)
 *
 * Evicts the set from shared buffers, then drops it from the OS page cache
 * (written back first).  shared_blocks_left counts the blocks of the fork
 * shared buffers still hold afterwards (pinned, or read again meanwhile),
 * os_pages_left its OS pages still cached: both 0 on an idle relation.
 */
static const ArgumentNullRule cold_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_cold(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	cachectl_residency_report *report;
	ActionProgress progress;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "cold", cold_null_rules, 2))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl cold",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "cold");
	set = relation_set_build(&relid, 1, PG_GETARG_BOOL(1), RELATION_SET_ACTION);
	report = os_residency_report_create(work_context);
	while (relation_set_lock_next_batch(set))
	{
		MemoryContext batch_context = AllocSetContextCreate(work_context, "pg_cachectl cold batch",
															ALLOCSET_DEFAULT_SIZES);
		cachectl_buffer_scan *evicted = buffer_scan_pass_batch(batch_context, set, InvalidForkNumber, BUFFER_PASS_EVICT);
		cachectl_buffer_scan *remaining;
		size_t		rows = cachectl_buffer_scan_row_count(evicted);

		/* the OS drop comes after the eviction wrote the dirty buffers to it */
		for (size_t i = 0; i < rows; i++)
		{
			cachectl_buffer_row row;
			char	   *path;

			cachectl_buffer_scan_row(evicted, i, &row);
			path = relation_fork_path(row.relation_id, row.fork_number);
			os_drop_fork(path, get_rel_name(row.relation_id), forkNames[row.fork_number], &progress);
			progress.forks++;
			pfree(path);
		}

		remaining = buffer_scan_pass_batch(batch_context, set, InvalidForkNumber, BUFFER_PASS_COUNT);
		for (size_t i = 0, j = 0; i < rows; i++)
		{
			cachectl_buffer_row row;
			cachectl_buffer_row left = {0};
			size_t		remaining_rows = cachectl_buffer_scan_row_count(remaining);
			cachectl_residency_counts os_after;
			Datum		values[COLD_COLUMNS];
			bool		nulls[COLD_COLUMNS] = {0};

			cachectl_buffer_scan_row(evicted, i, &row);
			/* both passes list forks in (relation, fork) order; a fork may have appeared since */
			for (; j < remaining_rows; j++)
			{
				cachectl_buffer_scan_row(remaining, j, &left);
				if (left.relation_id > row.relation_id ||
					(left.relation_id == row.relation_id && left.fork_number >= row.fork_number))
					break;
			}
			if (j >= remaining_rows || left.relation_id != row.relation_id ||
				left.fork_number != row.fork_number)
				left.shared_blocks = 0;
			os_residency_scan_relation(report, row.relation_id, row.fork_number);
			if (!os_residency_fork_total(report, row.fork_number, &os_after))
				memset(&os_after, 0, sizeof(os_after));
			values[0] = ObjectIdGetDatum(row.relation_id);
			values[1] = CStringGetTextDatum(forkNames[row.fork_number]);
			values[2] = Int64GetDatum(row.buffers_evicted);
			values[3] = Int64GetDatum(row.buffers_flushed);
			values[4] = Int64GetDatum(left.shared_blocks);
			values[5] = Int64GetDatum(os_after.os_pages);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		MemoryContextDelete(batch_context);
	}
	action_progress_end(&progress);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl.cold_database()
 *   RETURNS record (relations int8, buffers_evicted int8, buffers_flushed int8,
 *                   buffers_skipped int8, buffers_failed int8, os_pages_left int8,
 *                   seconds float8)
 *
 * cold() for every relation of the current database: its buffers evicted
 * in one pass, then each relation's files written back and dropped from the
 * OS page cache.  Takes no relation locks (a database may hold more
 * relations than the lock table); files that vanish meanwhile are skipped.
 */
Datum
pg_cachectl_cold_database(PG_FUNCTION_ARGS)
{
	TupleDesc	result_desc;
	MemoryContext work_context;
	MemoryContext caller_context;
	BufferPassTotals totals;
	DatabaseRelation *relations;
	int			relation_count;
	cachectl_residency_report *report;
	int64		os_pages_left = 0;
	ActionProgress progress;
	Datum		values[COLD_DATABASE_COLUMNS];
	bool		nulls[COLD_DATABASE_COLUMNS] = {0};
	HeapTuple	tuple;

	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "cold_database must return a composite");
	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl cold_database",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "cold_database");

	buffer_pool_evict_database(MyDatabaseId, &totals);
	buffer_pool_warn_failed_writes(&totals);
	relations = database_relations_list(DATABASE_RELATIONS_ALL, &relation_count);
	report = os_residency_report_create(work_context);
	for (int i = 0; i < relation_count; i++)
	{
		cachectl_residency_counts total;

		cachectl_residency_report_clear(report);
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			char	   *path = database_relation_fork_path(&relations[i], fork);
			char		name[32];

			snprintf(name, sizeof(name), "relation %u", relations[i].relid);
			os_drop_fork(path, name, forkNames[fork], &progress);
			os_residency_scan_path(report, fork, path);
			pfree(path);
		}
		cachectl_residency_report_total(report, &total);
		os_pages_left += total.os_pages;
		progress.forks++;
	}
	action_progress_end(&progress);

	values[0] = Int64GetDatum(relation_count);
	values[1] = Int64GetDatum(totals.buffers_evicted);
	values[2] = Int64GetDatum(totals.buffers_flushed);
	values[3] = Int64GetDatum(totals.buffers_skipped);
	values[4] = Int64GetDatum(totals.buffers_failed);
	values[5] = Int64GetDatum(os_pages_left);
	values[6] = Float8GetDatum(action_progress_seconds(&progress));
	MemoryContextSwitchTo(caller_context);
	tuple = heap_form_tuple(BlessTupleDesc(result_desc), values, nulls);
	MemoryContextDelete(work_context);
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}
