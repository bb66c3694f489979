/*
 * prewarm.c — loading block ranges into either layer or both: prewarm()
 * for a relation (or block range), prewarm_runs() for the runs a snapshot
 * recorded.  How the blocks are loaded is block_loader.c's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "api/action_progress.h"
#include "api/api.h"
#include "api/block_runs.h"
#include "api/call_arguments.h"
#include "api/internal_entry.h"
#include "api/null_arguments.h"
#include "both_layers/block_loader.h"
#include "relation_set/relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_prewarm);
PG_FUNCTION_INFO_V1(pg_cachectl_prewarm_runs);

#define PREWARM_COLUMNS 6
#define PREWARM_RUNS_COLUMNS 2

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
	values[3] = Int64GetDatum(result->shared_blocks_loaded);
	values[4] = Int64GetDatum(result->os_blocks_loaded);
	values[5] = Float8GetDatum(seconds_between(started, GetCurrentTimestamp()));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

static const ArgumentNullRule prewarm_null_rules[] = {
	{"rel", NULL_IS_NOTHING}, {"target", NULL_REFUSED}, {"fork", NULL_IS_DEFAULT},
	{"first_block", NULL_IS_DEFAULT}, {"last_block", NULL_IS_DEFAULT},
	{"max_mb_per_sec", NULL_IS_DEFAULT}, {"drop_os_copy", NULL_REFUSED}};

/*
 * cachectl.prewarm(rel regclass, target text DEFAULT 'both', fork text DEFAULT NULL,
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
	int			only_fork;
	BlockRangeArgument range_argument;
	double		rate;
	bool		drop_os_copy;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	Oid			member_relid;
	ActionProgress progress;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "prewarm", prewarm_null_rules, 7))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);
	target = target_argument(fcinfo, 1);
	only_fork = fork_argument(fcinfo, 2);
	range_argument = block_range_argument(fcinfo, 3, 4);
	rate = rate_argument(fcinfo, 5);
	drop_os_copy = PG_GETARG_BOOL(6);
	if (range_argument.given)
	{
		require_one_fork_for_range(only_fork, "prewarm");
		require_unpartitioned(relid, "a block range");
	}

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl prewarm",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	action_progress_begin(&progress, "prewarm");
	set = relation_set_build(&relid, 1, false, RELATION_SET_ACTION);
	while (relation_set_next_member(set, &member_relid))
	{
		Relation	rel = relation_open(member_relid, NoLock);	/* locked by the set */

		for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			int64		blocks;
			cachectl_block_range range;
			PrewarmResult result;
			TimestampTz started = GetCurrentTimestamp();
			MemoryContext fork_context;

			if (!fork_wanted(only_fork, fork))
				continue;
			/* no such fork: no row, as os_prefetch (a range in it is refused below) */
			if (!range_argument.given && !smgrexists(RelationGetSmgr(rel), fork))
				continue;
			blocks = smgr_fork_blocks(rel, fork);
			range = block_range_in_fork(&range_argument, blocks, RelationGetRelationName(rel), forkNames[fork]);

			fork_context = AllocSetContextCreate(work_context, "pg_cachectl prewarm fork",
												 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(fork_context);
			prewarm_fork(rel, fork, &range, clip_block_ranges(&range, 1, blocks), target, rate, drop_os_copy,
						 true, &progress, &result);
			progress.forks++;
			MemoryContextSwitchTo(work_context);
			put_prewarm_row(rsinfo, member_relid, fork, &result, started);
			MemoryContextDelete(fork_context);	/* frees the OS job, closes its file */
		}
		relation_close(rel, NoLock);
	}
	action_progress_end(&progress);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl_internal.prewarm_runs(rel regclass, fork text, runs int8multirange,
 *                       target text DEFAULT 'both', max_mb_per_sec float8 DEFAULT NULL,
 *                       drop_os_copy boolean DEFAULT false)
 *   RETURNS record (shared_blocks_loaded int8, os_blocks_loaded int8)
 *
 * What restore() of version 1.0 called for each chunk (1.1 loads in C,
 * snapshot_load.c): kept for a server whose library is newer than the
 * extension's installed version until ALTER EXTENSION ... UPDATE.
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
	int			run_count;
	cachectl_block_range *ranges;
	Relation	rel;
	PrewarmResult result;
	ActionProgress progress;
	Datum		values[PREWARM_RUNS_COLUMNS];
	bool		nulls[PREWARM_RUNS_COLUMNS] = {false, false};

	require_entry_point_privilege(INTERNAL_FOR_RESTORE, "cachectl_internal.prewarm_runs()");
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

	/*
	 * Only the runs inside the fork are taken from the multirange: millions
	 * of runs past its end must not become millions of ranges here.
	 */
	rel = open_relation_for_runs(relid, "prewarm_runs");
	action_progress_begin(&progress, "prewarm_runs");
	ranges = block_runs_from_multirange(runs, smgr_fork_blocks(rel, fork), &run_count);
	prewarm_fork(rel, fork, ranges, run_count, target, rate, drop_os_copy, true, &progress, &result);
	progress.forks++;
	relation_close(rel, NoLock);
	action_progress_end(&progress);

	values[0] = Int64GetDatum(result.shared_blocks_loaded);
	values[1] = Int64GetDatum(result.os_blocks_loaded);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}
