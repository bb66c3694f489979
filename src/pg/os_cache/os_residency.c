/*
 * os_residency.c — SQL functions reporting OS page-cache residency of
 * relation forks, measured by the core's residency report
 * (fork_residency.c).
 */
#include "postgres.h"

#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "api/api.h"
#include "api/null_arguments.h"
#include "api/version_compat.h"
#include "os_cache/fork_residency.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_os_engine);
PG_FUNCTION_INFO_V1(pg_cachectl_os_residency);
PG_FUNCTION_INFO_V1(pg_cachectl_os_residency_total);
PG_FUNCTION_INFO_V1(pg_cachectl_os_page_size);

#define OS_RESIDENCY_COLUMNS 11
#define OS_RESIDENCY_TOTAL_COLUMNS 9

/* Adds the rows of one measured relation to the result. */
typedef void (*put_rows_function) (ReturnSetInfo *rsinfo, Oid relid,
								   const cachectl_residency_report *report);

/*
 * The common body of the residency functions: build and lock the set of
 * the relation in argument 0, measure each member, add its rows.
 */
static void
report_relation_set(FunctionCallInfo fcinfo, bool cascade, int only_fork,
					put_rows_function put_rows)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = PG_GETARG_OID(0);
	MemoryContext work_context;
	MemoryContext caller_context;
	cachectl_residency_report *report;
	RelationSet *set;
	Oid			member_relid;

	work_context = AllocSetContextCreate(CurrentMemoryContext,
										 "pg_cachectl residency",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	set = relation_set_build(&relid, 1, cascade, RELATION_SET_REPORT);
	report = os_residency_report_create(work_context);
	while (relation_set_next_member(set, &member_relid))
	{
		CHECK_FOR_INTERRUPTS();
		os_residency_scan_relation(report, member_relid, only_fork);
		put_rows(rsinfo, member_relid, report);
	}

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);	/* frees the report too */
}

static void
put_segment_rows(ReturnSetInfo *rsinfo, Oid relid, const cachectl_residency_report *report)
{
	size_t		rows = cachectl_residency_report_row_count(report);

	for (size_t i = 0; i < rows; i++)
	{
		cachectl_segment_row row;
		Datum		values[OS_RESIDENCY_COLUMNS] = {0};
		bool		nulls[OS_RESIDENCY_COLUMNS] = {0};

		cachectl_residency_report_row(report, i, &row);
		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(forkNames[row.fork_number]);
		values[2] = Int32GetDatum(row.segment);
		values[3] = CStringGetTextDatum(row.path);
		values[4] = Int64GetDatum(row.counts.size_bytes);
		values[5] = Int64GetDatum(row.counts.size_pages);
		values[6] = Int64GetDatum(row.counts.os_pages);
		values[7] = Int64GetDatum(row.counts.os_dirty_pages);
		values[8] = Int64GetDatum(row.counts.os_writeback_pages);
		values[9] = Int64GetDatum(row.counts.os_evicted_pages);
		values[10] = Int64GetDatum(row.counts.os_recently_evicted_pages);
		for (int column = 7; column < OS_RESIDENCY_COLUMNS; column++)
			nulls[column] = !row.counts.has_cachestat_counters;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static void
put_total_row(ReturnSetInfo *rsinfo, Oid relid, const cachectl_residency_report *report)
{
	cachectl_residency_counts total;
	Datum		values[OS_RESIDENCY_TOTAL_COLUMNS] = {0};
	bool		nulls[OS_RESIDENCY_TOTAL_COLUMNS] = {0};

	cachectl_residency_report_total(report, &total);
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int64GetDatum(total.size_bytes);
	values[2] = Int64GetDatum(total.size_pages);
	values[3] = Int64GetDatum(total.os_pages);
	values[4] = Int64GetDatum(total.os_pages * os_page_size());
	values[5] = Int64GetDatum(total.os_dirty_pages);
	values[6] = Int64GetDatum(total.os_writeback_pages);
	values[7] = Int64GetDatum(total.os_evicted_pages);
	values[8] = Int64GetDatum(total.os_recently_evicted_pages);
	for (int column = 5; column < OS_RESIDENCY_TOTAL_COLUMNS; column++)
		nulls[column] = !total.has_cachestat_counters;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl.os_residency(rel regclass, fork text DEFAULT NULL)
 *   RETURNS SETOF (relation, fork, segment, path, size_bytes, size_pages, os_pages,
 *                  os_dirty_pages, os_writeback_pages, os_evicted_pages,
 *                  os_recently_evicted_pages)
 *
 * One row per segment file of every existing fork (or of the named one).
 * The last four counts are NULL where mincore measured: only cachestat
 * knows them.
 */
static const ArgumentNullRule os_residency_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}};

Datum
pg_cachectl_os_residency(PG_FUNCTION_ARGS)
{
	int			only_fork = InvalidForkNumber;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "os_residency", os_residency_null_rules, 2))
		return (Datum) 0;
	if (!PG_ARGISNULL(1))
		only_fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	report_relation_set(fcinfo, false, only_fork, put_segment_rows);
	return (Datum) 0;
}

/*
 * cachectl.os_residency_total(rel regclass, cascade boolean DEFAULT false)
 *   RETURNS SETOF (relation, size_bytes, size_pages, os_pages, os_bytes,
 *                  os_dirty_pages, os_writeback_pages, os_evicted_pages,
 *                  os_recently_evicted_pages)
 *
 * One row per relation of the set, summed over its forks and segments.
 */
static const ArgumentNullRule os_residency_total_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_os_residency_total(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "os_residency_total", os_residency_total_null_rules, 2))
		return (Datum) 0;
	report_relation_set(fcinfo, PG_GETARG_BOOL(1),
						InvalidForkNumber, put_total_row);
	return (Datum) 0;
}

/*
 * cachectl.os_engine() RETURNS text
 *
 * The engine cachectl.os_engine resolves to for the data directory.
 */
Datum
pg_cachectl_os_engine(PG_FUNCTION_ARGS)
{
	cachectl_error error = {0};
	cachectl_os_engine resolved;

	probe_os_engine();
	if (cachectl_resolve_engine((cachectl_os_engine) cachectl_os_engine_setting,
								"PG_VERSION", &resolved, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	PG_RETURN_TEXT_P(cstring_to_text(cachectl_engine_name(resolved)));
}

/*
 * cachectl.os_page_size() RETURNS int8
 *
 * The kernel's page size, the unit of every *_pages column.
 */
Datum
pg_cachectl_os_page_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(os_page_size());
}
