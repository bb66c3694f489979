/*
 * The shared_buffers area: PostgreSQL's buffer pool, seen and emptied safely.
 * It owns the eviction protocol of one buffer (buffer_eviction: never a dirty
 * page lost, never a pinned one touched, on 15 to 19), the one pass over every
 * buffer for a set of forks, a database or all (buffer_pool_pass), the wanted
 * set of forks that pass tests tags against (buffer_scan_setup), and the SQL
 * functions below.  It uses the api and relation_set areas.
 *
 * shared_buffers.c — SQL functions over the shared-buffer layer: residency
 * per relation fork, and safe eviction of one buffer, of a relation set, of
 * a database, of everything.
 *
 * Every relation-set call makes one pass over the pool per batch of locked
 * relations (one batch unless the lock table forces more; see
 * relation_set.c).  Execution is superuser-only by default and granted with
 * EXECUTE: no superuser() test here.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"	/* get_database_oid from 19 on */
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "api/api.h"
#include "api/call_arguments.h"
#include "api/null_arguments.h"
#include "api/version_compat.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_eviction.h"
#include "shared_buffers/buffer_pool_pass.h"
#include "shared_buffers/buffer_scan_setup.h"

PG_FUNCTION_INFO_V1(pg_cachectl_shared_residency);
PG_FUNCTION_INFO_V1(pg_cachectl_evict);
PG_FUNCTION_INFO_V1(pg_cachectl_evict_relations);
PG_FUNCTION_INFO_V1(pg_cachectl_evict_buffer);
PG_FUNCTION_INFO_V1(pg_cachectl_evict_database);
PG_FUNCTION_INFO_V1(pg_cachectl_evict_all);

#define RESIDENCY_COLUMNS 10
#define EVICT_COLUMNS 5
#define TOTALS_COLUMNS 4
#define EVICT_BUFFER_COLUMNS 3

static void
put_scan_rows(ReturnSetInfo *rsinfo, cachectl_buffer_scan *scan, BufferPassAction action)
{
	cachectl_error error = {0};
	size_t		rows;

	if (cachectl_buffer_scan_finish(scan, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	rows = cachectl_buffer_scan_row_count(scan);
	for (size_t i = 0; i < rows; i++)
	{
		cachectl_buffer_row row;
		Datum		values[RESIDENCY_COLUMNS] = {0};
		bool		nulls[RESIDENCY_COLUMNS] = {0};

		cachectl_buffer_scan_row(scan, i, &row);
		values[0] = ObjectIdGetDatum(row.relation_id);
		values[1] = CStringGetTextDatum(forkNames[row.fork_number]);
		if (action == BUFFER_PASS_COUNT)
		{
			values[2] = Int64GetDatum(row.size_blocks);
			values[3] = Int64GetDatum(row.size_blocks * BLCKSZ);
			values[4] = Int64GetDatum(row.shared_blocks);
			values[5] = Int64GetDatum(row.shared_blocks * BLCKSZ);
			values[6] = Int64GetDatum(row.shared_dirty_blocks);
			values[7] = Int64GetDatum(row.shared_dirty_blocks * BLCKSZ);
			values[8] = Int64GetDatum(row.shared_pinned_blocks);
			/* an average, rounded to two decimals as every average is */
			if (row.shared_blocks > 0)
				values[9] = Float8GetDatum(rint(100.0 * row.usage_count_sum / row.shared_blocks) / 100.0);
			else
				nulls[9] = true;
		}
		else
		{
			values[2] = Int64GetDatum(row.buffers_evicted);
			values[3] = Int64GetDatum(row.buffers_flushed);
			values[4] = Int64GetDatum(row.buffers_skipped);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * The common body of the relation-set functions: build and lock the set,
 * then one pass per locked batch, one row per relation fork.
 */
static void
relation_set_pass(FunctionCallInfo fcinfo, const Oid *named, int named_count,
				  RelationSetPurpose purpose, int only_fork, bool cascade,
				  BufferPassAction action)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;

	work_context = AllocSetContextCreate(CurrentMemoryContext,
										 "pg_cachectl buffer pass",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	set = relation_set_build(named, named_count, cascade, purpose);
	while (relation_set_lock_next_batch(set))
	{
		MemoryContext batch_context = AllocSetContextCreate(work_context,
															"pg_cachectl buffer pass batch",
															ALLOCSET_DEFAULT_SIZES);
		cachectl_buffer_scan *scan = buffer_scan_create(batch_context);

		buffer_scan_want_batch(scan, set, only_fork, false);
		buffer_pool_pass_for_scan(scan, action);
		put_scan_rows(rsinfo, scan, action);
		MemoryContextDelete(batch_context); /* frees the scan */
	}

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
}

static bool
cascade_argument(FunctionCallInfo fcinfo, int argno)
{
	return PG_GETARG_BOOL(argno);
}

/*
 * cachectl.shared_residency(rel regclass, fork text DEFAULT NULL,
 *                           cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, size_blocks int8,
 *                  size_bytes int8, shared_blocks int8, shared_bytes int8,
 *                  shared_dirty_blocks int8, shared_dirty_bytes int8,
 *                  shared_pinned_blocks int8, usage_count_avg float8)
 */
static const ArgumentNullRule shared_residency_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_shared_residency(PG_FUNCTION_ARGS)
{
	Oid			relid;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "shared_residency", shared_residency_null_rules, 3))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);
	relation_set_pass(fcinfo, &relid, 1, RELATION_SET_REPORT, fork_argument(fcinfo, 1),
					  cascade_argument(fcinfo, 2), BUFFER_PASS_COUNT);
	buffer_scan_notice_if_temporary(relid);
	return (Datum) 0;
}

/*
 * cachectl.evict(rel regclass, fork text DEFAULT NULL,
 *                cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, buffers_evicted int8,
 *                  buffers_flushed int8, buffers_skipped int8)
 */
static const ArgumentNullRule evict_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_evict(PG_FUNCTION_ARGS)
{
	Oid			relid;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "evict", evict_null_rules, 3))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);
	relation_set_pass(fcinfo, &relid, 1, RELATION_SET_ACTION, fork_argument(fcinfo, 1),
					  cascade_argument(fcinfo, 2), BUFFER_PASS_EVICT);
	return (Datum) 0;
}

/*
 * cachectl.evict_relations(rels regclass[], fork text DEFAULT NULL,
 *                          cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, buffers_evicted int8,
 *                  buffers_flushed int8, buffers_skipped int8)
 *
 * Like evict() for many relations, in one pass over the pool.
 */
static const ArgumentNullRule evict_relations_null_rules[] = {{"rels", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_evict_relations(PG_FUNCTION_ARGS)
{
	int			count;
	Oid		   *relids;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "evict_relations", evict_relations_null_rules, 3))
		return (Datum) 0;
	relids = relation_list_argument(PG_GETARG_ARRAYTYPE_P(0), &count);
	relation_set_pass(fcinfo, relids, count, RELATION_SET_ACTION_ON_LIST,
					  fork_argument(fcinfo, 1), cascade_argument(fcinfo, 2), BUFFER_PASS_EVICT);
	return (Datum) 0;
}

/* A one-row result, built for the function's declared composite type. */
static Datum
composite_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	descriptor;

	if (get_call_result_type(fcinfo, NULL, &descriptor) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	descriptor = BlessTupleDesc(descriptor);
	return HeapTupleGetDatum(heap_form_tuple(descriptor, values, nulls));
}

/*
 * cachectl.evict_buffer(buffer int4)
 *   RETURNS record (evicted boolean, flushed boolean, reason text)
 *
 * One shared buffer, numbered as in pg_buffercache (1 to NBuffers).  reason
 * says why it was not evicted: it held no page ('empty'), someone pinned it
 * ('pinned'), or it changed between our look and our locks ('in use when
 * rechecked'); NULL when it was evicted.
 */
Datum
pg_cachectl_evict_buffer(PG_FUNCTION_ARGS)
{
	int32		buffer = PG_GETARG_INT32(0);
	BufferHeaderSnapshot header;
	const char *reason = NULL;
	Datum		values[EVICT_BUFFER_COLUMNS];
	bool		nulls[EVICT_BUFFER_COLUMNS] = {false, false, false};
	bool		evicted = false;
	bool		flushed = false;

	if (buffer < 1 || buffer > NBuffers)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("buffer %d does not exist", buffer),
				 errhint("Shared buffers are numbered from 1 to %d.", NBuffers)));

	read_buffer_header(buffer - 1, &header);
	if (!header.valid)
		reason = "empty";
	else if (header.pins > 0)
		reason = "pinned";
	else
	{
		switch (evict_buffer_page(buffer - 1, &header.tag))
		{
			case BUFFER_FLUSHED_AND_EVICTED:
				flushed = true;
				pg_fallthrough;
			case BUFFER_EVICTED:
				evicted = true;
				break;
			case BUFFER_SKIPPED_PINNED:
				reason = "pinned";
				break;
			case BUFFER_SKIPPED_IN_USE:
			case BUFFER_PAGE_GONE:
				reason = "in use when rechecked";
				break;
		}
	}

	values[0] = BoolGetDatum(evicted);
	values[1] = BoolGetDatum(flushed);
	if (reason != NULL)
		values[2] = CStringGetTextDatum(reason);
	else
		nulls[2] = true;
	PG_RETURN_DATUM(composite_result(fcinfo, values, nulls));
}

/*
 * The one row of evict_database and evict_all, after one WARNING for the
 * buffers whose write failed (they were left in place; the first failure
 * says why).
 */
static Datum
totals_result(FunctionCallInfo fcinfo, const BufferPassTotals *totals)
{
	Datum		values[TOTALS_COLUMNS];
	bool		nulls[TOTALS_COLUMNS] = {false, false, false, false};

	buffer_pool_warn_failed_writes(totals);

	values[0] = Int64GetDatum(totals->buffers_evicted);
	values[1] = Int64GetDatum(totals->buffers_flushed);
	values[2] = Int64GetDatum(totals->buffers_skipped);
	values[3] = Int64GetDatum(totals->buffers_failed);
	return composite_result(fcinfo, values, nulls);
}

/*
 * cachectl.evict_database(db name DEFAULT current_database())
 *   RETURNS record (buffers_evicted int8, buffers_flushed int8,
 *                   buffers_skipped int8, buffers_failed int8)
 *
 * Locks nothing: the protocol itself copes with relations dropped meanwhile.
 */
static const ArgumentNullRule evict_database_null_rules[] = {{"db", NULL_REFUSED}};

Datum
pg_cachectl_evict_database(PG_FUNCTION_ARGS)
{
	Oid			database;
	BufferPassTotals totals;

	(void) null_arguments_ask_nothing(fcinfo, "evict_database", evict_database_null_rules, 1);
	database = get_database_oid(NameStr(*PG_GETARG_NAME(0)), false);

	buffer_pool_evict_database(database, &totals);
	PG_RETURN_DATUM(totals_result(fcinfo, &totals));
}

/*
 * cachectl.evict_all()
 *   RETURNS record (buffers_evicted int8, buffers_flushed int8,
 *                   buffers_skipped int8, buffers_failed int8)
 *
 * Our own protocol on every version, although 18 and 19 export
 * EvictAllUnpinnedBuffers: core's pass stops at the first failed write
 * (there is no buffers_failed to count it in, and the buffers after it stay
 * cached), and it waits for a content lock where we skip the buffer.  Both
 * do one pass over the pool, so core would save no work.
 */
Datum
pg_cachectl_evict_all(PG_FUNCTION_ARGS)
{
	BufferPassTotals totals;

	buffer_pool_evict_database(InvalidOid, &totals);
	PG_RETURN_DATUM(totals_result(fcinfo, &totals));
}
