/*
 * os_control.c — SQL functions that change what the OS page cache holds of
 * a relation: os_drop (write back, then drop), os_prefetch (load a block
 * range), os_restore (load the blocks of a map).  Actions: superuser-only
 * until EXECUTE is granted, and acting on a relation also needs the SELECT
 * a report on it needs (relation_set.c).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/varbit.h"

#include <math.h>

#include "api/action_progress.h"
#include "api/api.h"
#include "api/call_arguments.h"
#include "api/null_arguments.h"
#include "api/version_compat.h"
#include "os_cache/fork_residency.h"
#include "os_cache/os_cache.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_os_drop);
PG_FUNCTION_INFO_V1(pg_cachectl_os_prefetch);
PG_FUNCTION_INFO_V1(pg_cachectl_os_restore);

#define OS_DROP_COLUMNS 8
#define OS_PREFETCH_COLUMNS 7
#define OS_RESTORE_COLUMNS 7

/*
 * cachectl.os_drop(rel regclass, fork text DEFAULT NULL,
 *                  cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, os_pages_before int8,
 *                  os_bytes_before int8, os_dirty_pages_before int8,
 *                  os_dirty_bytes_before int8, os_pages_after int8,
 *                  os_bytes_after int8)
 *
 * Writes every existing fork of the set back to disk and drops it from the
 * OS page cache; measures before and after.  The dirty counts are NULL where
 * mincore measures (only cachestat knows them).
 */
static const ArgumentNullRule os_drop_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_os_drop(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int			only_fork;
	bool		cascade;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	Oid			member_relid;
	cachectl_residency_report *report;
	ActionProgress progress;
	int64		page_size = os_page_size();

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "os_drop", os_drop_null_rules, 3))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);
	only_fork = fork_argument(fcinfo, 1);
	cascade = PG_GETARG_BOOL(2);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_drop",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "os_drop");

	set = relation_set_build(&relid, 1, cascade, RELATION_SET_ACTION);
	report = os_residency_report_create(work_context);
	while (relation_set_next_member(set, &member_relid))
	{
		Relation	rel;
		const char *name;
		cachectl_residency_counts before[MAX_FORKNUM + 1];
		bool		exists[MAX_FORKNUM + 1];

		rel = relation_open(member_relid, NoLock);	/* locked by the set */
		name = RelationGetRelationName(rel);

		os_residency_scan_relation(report, member_relid, only_fork);
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
			exists[fork] = fork_wanted(only_fork, fork) &&
				os_residency_fork_total(report, fork, &before[fork]);

		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			char	   *path;

			if (!exists[fork])
				continue;
			path = CACHECTL_RELATION_FORK_PATH(rel, fork);
			os_drop_fork(path, name, forkNames[fork], &progress);
			progress.forks++;
			pfree(path);
		}

		os_residency_scan_relation(report, member_relid, only_fork);
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			cachectl_residency_counts after;
			Datum		values[OS_DROP_COLUMNS] = {0};
			bool		nulls[OS_DROP_COLUMNS] = {0};

			if (!exists[fork])
				continue;
			if (!os_residency_fork_total(report, fork, &after))
				memset(&after, 0, sizeof(after));	/* truncated away meanwhile */
			values[0] = ObjectIdGetDatum(member_relid);
			values[1] = CStringGetTextDatum(forkNames[fork]);
			values[2] = Int64GetDatum(before[fork].os_pages);
			values[3] = Int64GetDatum(before[fork].os_pages * page_size);
			values[4] = Int64GetDatum(before[fork].os_dirty_pages);
			values[5] = Int64GetDatum(before[fork].os_dirty_pages * page_size);
			nulls[4] = nulls[5] = !before[fork].has_cachestat_counters;
			values[6] = Int64GetDatum(after.os_pages);
			values[7] = Int64GetDatum(after.os_pages * page_size);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		relation_close(rel, NoLock);
	}
	action_progress_end(&progress);

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);	/* frees the report too */
	return (Datum) 0;
}

/*
 * cachectl.os_prefetch(rel regclass, fork text DEFAULT 'main',
 *                      first_block int8 DEFAULT NULL, last_block int8 DEFAULT NULL,
 *                      max_mb_per_sec float8 DEFAULT NULL, wait boolean DEFAULT true)
 *   RETURNS TABLE (relation regclass, fork text, blocks_requested int8,
 *                  os_pages_after int8, os_bytes_after int8,
 *                  os_pages_pending int8, seconds float8)
 *
 * Loads blocks first_block to last_block (inclusive; NULL: from the start,
 * to the end) of the fork (NULL: of every fork) into the OS page cache.
 * With wait, returns once they are read (os_pages_pending 0) or no page was
 * read for seconds (then it warns).  A block range needs one relation with
 * storage, and must lie within the fork.
 */
static const ArgumentNullRule os_prefetch_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_IS_DEFAULT}, {"first_block", NULL_IS_DEFAULT}, {"last_block", NULL_IS_DEFAULT}, {"max_mb_per_sec", NULL_IS_DEFAULT}, {"wait", NULL_REFUSED}};

Datum
pg_cachectl_os_prefetch(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int			only_fork;
	BlockRangeArgument range_argument;
	double		rate;
	bool		wait;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	Oid			member_relid;
	ActionProgress progress;
	int64		page_size = os_page_size();

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "os_prefetch", os_prefetch_null_rules, 6))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);
	only_fork = fork_argument(fcinfo, 1);
	range_argument = block_range_argument(fcinfo, 2, 3);
	rate = rate_argument(fcinfo, 4);
	wait = PG_GETARG_BOOL(5);

	if (range_argument.given)
	{
		require_one_fork_for_range(only_fork, "os_prefetch");
		require_unpartitioned(relid, "a block range");
	}

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_prefetch",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "os_prefetch");

	set = relation_set_build(&relid, 1, false, RELATION_SET_ACTION);
	while (relation_set_next_member(set, &member_relid))
	{
		Relation	rel;

		rel = relation_open(member_relid, NoLock);	/* locked by the set */
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			MemoryContext fork_context;
			char	   *path;
			int64		blocks;
			cachectl_block_range range;
			OsPrefetchBlocks wanted = {0};
			cachectl_os_prefetch *job;
			cachectl_prefetch_result result;
			TimestampTz started;
			Datum		values[OS_PREFETCH_COLUMNS] = {0};
			bool		nulls[OS_PREFETCH_COLUMNS] = {0};

			if (!fork_wanted(only_fork, fork))
				continue;
			path = CACHECTL_RELATION_FORK_PATH(rel, fork);
			blocks = fork_blocks_from_files(path);
			if (blocks < 0 && !range_argument.given)
				continue;	/* no such fork: no row, as os_residency */
			range = block_range_in_fork(&range_argument, blocks, RelationGetRelationName(rel),
										forkNames[fork]);

			fork_context = AllocSetContextCreate(work_context, "pg_cachectl os_prefetch fork",
												 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(fork_context);
			started = GetCurrentTimestamp();
			wanted.ranges = &range;
			wanted.range_count = range.count > 0 ? 1 : 0;
			job = os_prefetch_create(fork_context, path, &wanted, rate, wait);
			os_run_prefetch(job, RelationGetRelationName(rel), forkNames[fork], &progress, &result);
			progress.forks++;

			values[0] = ObjectIdGetDatum(member_relid);
			values[1] = CStringGetTextDatum(forkNames[fork]);
			values[2] = Int64GetDatum(result.blocks_requested);
			values[3] = Int64GetDatum(result.os_pages_after);
			values[4] = Int64GetDatum(result.os_pages_after * page_size);
			values[5] = Int64GetDatum(result.pages_requested - result.os_pages_after);
			values[6] = Float8GetDatum(seconds_between(started, GetCurrentTimestamp()));
			MemoryContextSwitchTo(work_context);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextDelete(fork_context);	/* frees the job, closes its file */
			pfree(path);
		}
		relation_close(rel, NoLock);
	}
	action_progress_end(&progress);

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl.os_restore(rel regclass, map varbit, fork text DEFAULT 'main',
 *                     drop_others boolean DEFAULT false,
 *                     max_mb_per_sec float8 DEFAULT NULL, wait boolean DEFAULT true)
 *   RETURNS record (relation regclass, fork text, os_blocks_loaded int8,
 *                   blocks_past_end int8, os_pages_after int8,
 *                   os_pages_pending int8, seconds float8)
 *
 * Loads the blocks whose bits are set (an os_map() of the fork) into the OS
 * page cache, as ranges of consecutive blocks.  drop_others first writes
 * back and drops the whole fork, so that what is cached afterwards matches
 * the map exactly (large folios make block-fine drops impossible).  Bits
 * past the fork's end (it shrank) are counted in blocks_past_end.
 */
static const ArgumentNullRule os_restore_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"map", NULL_IS_NOTHING}, {"fork", NULL_REFUSED_ONE_FORK}, {"drop_others", NULL_REFUSED}, {"max_mb_per_sec", NULL_IS_DEFAULT}, {"wait", NULL_REFUSED}};

Datum
pg_cachectl_os_restore(PG_FUNCTION_ARGS)
{
	Oid			relid;
	VarBit	   *map;
	int			fork;
	bool		drop_others;
	double		rate;
	bool		wait;
	TupleDesc	result_desc;
	char	   *name;
	char	   *path;
	MemoryContext work_context;
	MemoryContext caller_context;
	ActionProgress progress;
	OsPrefetchBlocks wanted = {0};
	cachectl_os_prefetch *job;
	cachectl_prefetch_result result;
	Datum		values[OS_RESTORE_COLUMNS] = {0};
	bool		nulls[OS_RESTORE_COLUMNS] = {0};
	HeapTuple	tuple;

	if (null_arguments_ask_nothing(fcinfo, "os_restore", os_restore_null_rules, 6))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	map = PG_GETARG_VARBIT_P(1);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	drop_others = PG_GETARG_BOOL(3);
	rate = rate_argument(fcinfo, 4);
	wait = PG_GETARG_BOOL(5);
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "os_restore must return a composite");

	lock_one_relation(relid, "os_restore", RELATION_SET_ACTION);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_restore",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "os_restore");

	name = get_rel_name(relid);
	path = relation_fork_path(relid, fork);
	if (drop_others && fork_blocks_from_files(path) >= 0)
		os_drop_fork(path, name, forkNames[fork], &progress);

	wanted.map = VARBITS(map);
	wanted.map_bits = VARBITLEN(map);
	job = os_prefetch_create(work_context, path, &wanted, rate, wait);
	os_run_prefetch(job, name, forkNames[fork], &progress, &result);
	progress.forks++;
	action_progress_end(&progress);

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(forkNames[fork]);
	values[2] = Int64GetDatum(result.blocks_requested);
	values[3] = Int64GetDatum(result.blocks_past_end);
	values[4] = Int64GetDatum(result.os_pages_after);
	values[5] = Int64GetDatum(result.pages_requested - result.os_pages_after);
	values[6] = Float8GetDatum(action_progress_seconds(&progress));

	MemoryContextSwitchTo(caller_context);
	tuple = heap_form_tuple(BlessTupleDesc(result_desc), values, nulls);
	MemoryContextDelete(work_context);	/* frees the job; the tuple lives in the caller's context */
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}
