/*
 * os_residency.c — SQL functions reporting OS page-cache residency of
 * relation forks, measured by the core's residency report.
 */
#include "postgres.h"

#include "access/relation.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "version_compat.h"
#include "cachectl.h"
#include "os_cache_jobs.h"
#include "os_residency.h"
#include "relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_os_engine);
PG_FUNCTION_INFO_V1(pg_cachectl_os_residency);
PG_FUNCTION_INFO_V1(pg_cachectl_os_residency_total);
PG_FUNCTION_INFO_V1(pg_cachectl_os_page_size);

#define OS_RESIDENCY_COLUMNS 11
#define OS_RESIDENCY_TOTAL_COLUMNS 9

/* Probe cachestat once on a file the server owns (see bridge.h). */
static void
probe_os_engine(void)
{
	/* PG_VERSION lies in the data directory, the server's working directory */
	(void) cachectl_probe_cachestat("PG_VERSION");
}

int64
fork_blocks_from_files(const char *base_path)
{
	cachectl_error error = {0};
	int64		size_bytes = -1;

	if (cachectl_fork_size(base_path, CACHECTL_SEGMENT_BYTES, &size_bytes, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	return size_bytes < 0 ? -1 : size_bytes / BLCKSZ;
}

int64
os_page_size(void)
{
	int64		page_size = cachectl_os_page_size();

	if (page_size <= 0)
		elog(ERROR, "could not read the kernel's page size");
	return page_size;
}

static void
free_report(void *report)
{
	cachectl_residency_report_free((cachectl_residency_report *) report);
}

/* A report freed with the given memory context, on success or error alike. */
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

/* Measures one fork of an open relation into the report. */
static void
scan_fork(cachectl_residency_report *report, Relation rel, ForkNumber fork)
{
	char	   *base_path = CACHECTL_RELATION_FORK_PATH(rel, fork);

	os_residency_scan_path(report, fork, base_path);
	pfree(base_path);
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

/* Measures the named fork, or every fork, of one locked relation. */
void
os_residency_scan_relation(cachectl_residency_report *report, Oid relid, int only_fork)
{
	Relation	rel = relation_open(relid, NoLock);	/* locked by the set */

	cachectl_residency_report_clear(report);
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		if (only_fork == InvalidForkNumber || fork == only_fork)
			scan_fork(report, rel, (ForkNumber) fork);
	relation_close(rel, NoLock);
}

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

	work_context = AllocSetContextCreate(CurrentMemoryContext,
										 "pg_cachectl residency",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	set = relation_set_build(&relid, 1, cascade, RELATION_SET_REPORT);
	report = os_residency_report_create(work_context);
	while (relation_set_lock_next_batch(set))
	{
		for (int member = set->locked_from; member < set->locked_to; member++)
		{
			if (!OidIsValid(set->relids[member]))
				continue;
			CHECK_FOR_INTERRUPTS();
			os_residency_scan_relation(report, set->relids[member], only_fork);
			put_rows(rsinfo, set->relids[member], report);
		}
	}

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);	/* frees the report too */
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
		total->os_pages += row.counts.os_pages;
		total->cached_pages += row.counts.cached_pages;
		total->dirty_pages += row.counts.dirty_pages;
		total->writeback_pages += row.counts.writeback_pages;
		total->evicted_pages += row.counts.evicted_pages;
		total->recently_evicted_pages += row.counts.recently_evicted_pages;
		if (!row.counts.has_cachestat_counters)
			total->has_cachestat_counters = false;
	}
	return found;
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
		values[5] = Int64GetDatum(row.counts.os_pages);
		values[6] = Int64GetDatum(row.counts.cached_pages);
		values[7] = Int64GetDatum(row.counts.dirty_pages);
		values[8] = Int64GetDatum(row.counts.writeback_pages);
		values[9] = Int64GetDatum(row.counts.evicted_pages);
		values[10] = Int64GetDatum(row.counts.recently_evicted_pages);
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
	values[2] = Int64GetDatum(total.os_pages);
	values[3] = Int64GetDatum(total.cached_pages);
	values[4] = Int64GetDatum(total.cached_pages * os_page_size());
	values[5] = Int64GetDatum(total.dirty_pages);
	values[6] = Int64GetDatum(total.writeback_pages);
	values[7] = Int64GetDatum(total.evicted_pages);
	values[8] = Int64GetDatum(total.recently_evicted_pages);
	for (int column = 5; column < OS_RESIDENCY_TOTAL_COLUMNS; column++)
		nulls[column] = !total.has_cachestat_counters;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl.os_residency(rel regclass, fork text DEFAULT NULL)
 *   RETURNS SETOF (relation, fork, segment, path, size_bytes, os_pages, cached_pages,
 *                  dirty_pages, writeback_pages, evicted_pages,
 *                  recently_evicted_pages)
 *
 * One row per segment file of every existing fork (or of the named one).
 * The last four counts are NULL where mincore measured: only cachestat
 * knows them.
 */
Datum
pg_cachectl_os_residency(PG_FUNCTION_ARGS)
{
	int			only_fork = InvalidForkNumber;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (!PG_ARGISNULL(1))
		only_fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	report_relation_set(fcinfo, false, only_fork, put_segment_rows);
	return (Datum) 0;
}

/*
 * cachectl.os_residency_total(rel regclass, cascade boolean DEFAULT false)
 *   RETURNS SETOF (relation, size_bytes, os_pages, cached_pages, cached_bytes,
 *                  dirty_pages, writeback_pages, evicted_pages,
 *                  recently_evicted_pages)
 *
 * One row per relation of the set, summed over its forks and segments.
 */
Datum
pg_cachectl_os_residency_total(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
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
