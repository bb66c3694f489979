/*
 * snapshot_runs.c — the SQL internals that snapshot() records with: the runs
 * of blocks of a relation set in shared buffers (one pass over the pool), the
 * runs of a fork in the OS page cache, and the cluster's system identifier.
 */
#include "postgres.h"

#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "api/api.h"
#include "api/call_arguments.h"
#include "api/internal_entry.h"
#include "os_cache/fork_residency.h"
#include "relation_set/database_relations.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_pool_pass.h"
#include "shared_buffers/buffer_scan_setup.h"
#include "snapshots/snapshots.h"


PG_FUNCTION_INFO_V1(pg_cachectl_shared_block_runs);
PG_FUNCTION_INFO_V1(pg_cachectl_os_block_runs);
PG_FUNCTION_INFO_V1(pg_cachectl_system_identifier);

#define SHARED_RUN_COLUMNS 5

/*
 * Adds one row per run of consecutive blocks of the same heat: hot holds
 * the hot ones among blocks (both sorted), so one walk of the two tells
 * each block's.
 */
static void
put_shared_runs(ReturnSetInfo *rsinfo, Oid relid, int fork, const uint32 *blocks, size_t count,
				const uint32 *hot, size_t hot_count)
{
	size_t		start = 0;
	size_t		next_hot = 0;

	while (start < count)
	{
		size_t		end = start + 1;
		bool		run_hot;
		Datum		values[SHARED_RUN_COLUMNS];
		bool		nulls[SHARED_RUN_COLUMNS] = {false, false, false, false, false};

		while (next_hot < hot_count && hot[next_hot] < blocks[start])
			next_hot++;
		run_hot = next_hot < hot_count && hot[next_hot] == blocks[start];
		if (run_hot)
			next_hot++;
		while (end < count && blocks[end] == blocks[end - 1] + 1)
		{
			bool		block_hot = next_hot < hot_count && hot[next_hot] == blocks[end];

			if (block_hot != run_hot)
				break;
			if (block_hot)
				next_hot++;
			end++;
		}
		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(forkNames[fork]);
		values[2] = Int64GetDatum((int64) blocks[start]);
		values[3] = Int64GetDatum((int64) (end - start));
		values[4] = BoolGetDatum(run_hot);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		start = end;
	}
}

/* The runs of every row of a finished collecting pass. */
static void
put_scan_runs(ReturnSetInfo *rsinfo, const cachectl_buffer_scan *scan)
{
	size_t		rows = cachectl_buffer_scan_row_count(scan);

	for (size_t i = 0; i < rows; i++)
	{
		cachectl_buffer_row row;
		const uint32 *blocks;
		size_t		count;
		const uint32 *hot;
		size_t		hot_count;

		cachectl_buffer_scan_row(scan, i, &row);
		buffer_scan_row_blocks(scan, i, &blocks, &count);
		buffer_scan_row_hot_blocks(scan, i, &hot, &hot_count);
		put_shared_runs(rsinfo, row.relation_id, row.fork_number, blocks, count, hot, hot_count);
	}
}

/*
 * cachectl_internal.shared_block_runs(rels regclass[] DEFAULT NULL)
 *   RETURNS TABLE (relation regclass, fork text, first_block int8, block_count int8,
 *                  hot boolean)
 *
 * The runs of consecutive blocks in shared buffers, from one pass over the
 * pool: of the relations named (as relation sets: partitions expanded), or
 * with NULL of every relation of the database the user may read.  A run is
 * hot when its buffers' usage counts were 2 or more (cut where that
 * changes).  Internal: what snapshot() records.
 */
Datum
pg_cachectl_shared_block_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext work_context;
	MemoryContext caller_context;
	cachectl_buffer_scan *scan;

	require_entry_point_privilege(INTERNAL_FOR_SNAPSHOT, "cachectl_internal.shared_block_runs()");
	InitMaterializedSRF(fcinfo, 0);
	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl shared_block_runs",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	if (PG_ARGISNULL(0))
	{
		int			relation_count;
		DatabaseRelation *relations = database_relations_list(DATABASE_RELATIONS_SELECTABLE, &relation_count);

		scan = buffer_scan_pass_database(work_context, relations, relation_count);
		put_scan_runs(rsinfo, scan);
	}
	else
	{
		int			named_count;
		Oid		   *named = relation_list_argument(PG_GETARG_ARRAYTYPE_P(0), &named_count);
		RelationSet *set;

		set = relation_set_build(named, named_count, false, RELATION_SET_REPORT);
		while (relation_set_lock_next_batch(set))
		{
			MemoryContext batch_context = AllocSetContextCreate(work_context, "pg_cachectl runs batch",
																ALLOCSET_DEFAULT_SIZES);

			scan = buffer_scan_pass_batch(batch_context, set, InvalidForkNumber, BUFFER_PASS_COLLECT);
			put_scan_runs(rsinfo, scan);
			MemoryContextDelete(batch_context);
		}
	}
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl_internal.os_block_runs(rel regclass, fork text DEFAULT 'main')
 *   RETURNS TABLE (first_block int8, block_count int8)
 *
 * The runs of consecutive blocks of the fork in the OS page cache (the set
 * bits of its os_map).  Internal: what snapshot() records.
 */
Datum
pg_cachectl_os_block_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	ForkNumber	fork;
	size_t		run_count;
	cachectl_block_range *runs;
	MemoryContext work_context;
	MemoryContext caller_context;

	require_entry_point_privilege(INTERNAL_FOR_SNAPSHOT, "cachectl_internal.os_block_runs()");
	InitMaterializedSRF(fcinfo, 0);
	relid = PG_GETARG_OID(0);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_block_runs",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	runs = os_cached_runs(relid, fork, "os_block_runs", &run_count);
	for (size_t i = 0; i < run_count; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(runs[i].first);
		values[1] = Int64GetDatum(runs[i].count);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl_internal.system_identifier() RETURNS text
 *
 * The cluster's system identifier: the same on a primary and its physical
 * standbys, different after a dump and restore.
 */
Datum
pg_cachectl_system_identifier(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cluster_system_identifier());
}
