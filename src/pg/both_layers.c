/*
 * both_layers.c — reports over both caches of the relations named: status()
 * per relation fork, block-exact; draw() as a two-layer strip; and the runs
 * of blocks each layer holds, which snapshots record.  The database-wide
 * report, database_status(), is in cache_metrics.c, over the one walk of
 * database_cache.c.
 *
 * The shared layer is one pass over the buffer pool that keeps the block
 * numbers it finds; the OS layer is an os_map of each fork.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "buffer_pool_pass.h"
#include "buffer_scan_setup.h"
#include "cachectl.h"
#include "call_arguments.h"
#include "database_relations.h"
#include "os_map.h"
#include "os_residency.h"
#include "relation_set.h"
#include "version_compat.h"

PG_FUNCTION_INFO_V1(pg_cachectl_status);
PG_FUNCTION_INFO_V1(pg_cachectl_draw);
PG_FUNCTION_INFO_V1(pg_cachectl_shared_block_runs);
PG_FUNCTION_INFO_V1(pg_cachectl_os_block_runs);
PG_FUNCTION_INFO_V1(pg_cachectl_system_identifier);

#define STATUS_COLUMNS 15
#define BLOCK_RUN_COLUMNS 4

/* The block numbers a pass found for one of its rows; an error if lost. */
static void
row_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32 **blocks, size_t *count)
{
	if (!cachectl_buffer_scan_row_blocks(scan, index, blocks, count))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while collecting the block numbers of shared buffers")));
}

/* The OS map of a fork of `blocks` blocks, palloc'd in the current context. */
static uint8 *
os_map_of(const char *path, int64 blocks)
{
	uint8	   *bits = palloc0(Max((blocks + 7) / 8, 1));

	if (blocks > 0)
		os_map_fill(bits, blocks, path);
	return bits;
}

static int64
blocks_in_map(const uint32 *blocks, size_t count, const uint8 *bits, int64 bit_count)
{
	cachectl_error error = {0};
	int64		found = 0;

	if (cachectl_count_blocks_in_map(blocks, count, bits, bit_count, &found, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	return found;
}

/* Shared blocks inside the fork (a buffer past a file's end is not counted). */
static size_t
blocks_below(const uint32 *blocks, size_t count, int64 limit)
{
	size_t		kept = count;

	while (kept > 0 && (int64) blocks[kept - 1] >= limit)
		kept--;
	return kept;
}

/*
 * cachectl.status(rel regclass, cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, blocks int8, shared_blocks int8,
 *                  os_blocks int8, both_blocks int8, shared_only_blocks int8,
 *                  os_only_blocks int8, neither_blocks int8,
 *                  shared_dirty_blocks int8, os_dirty_pages int8,
 *                  size_bytes int8, shared_bytes int8, os_bytes int8,
 *                  both_bytes int8)
 *
 * Block-exact: the block numbers found in shared buffers are looked up in
 * the fork's OS map.  os_dirty_pages is NULL where mincore measures.
 */
Datum
pg_cachectl_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	cachectl_residency_report *report;

	InitMaterializedSRF(fcinfo, 0);
	relid = PG_GETARG_OID(0);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl status",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	set = relation_set_build(&relid, 1, PG_GETARG_BOOL(1), RELATION_SET_REPORT);
	report = os_residency_report_create(work_context);
	while (relation_set_lock_next_batch(set))
	{
		MemoryContext batch_context = AllocSetContextCreate(work_context, "pg_cachectl status batch",
															ALLOCSET_DEFAULT_SIZES);
		cachectl_buffer_scan *scan = buffer_scan_pass_batch(batch_context, set, InvalidForkNumber, BUFFER_PASS_COLLECT);
		size_t		rows = cachectl_buffer_scan_row_count(scan);
		Oid			measured_relid = InvalidOid;

		for (size_t i = 0; i < rows; i++)
		{
			cachectl_buffer_row row;
			const uint32 *blocks;
			size_t		count;
			Relation	rel;
			char	   *path;
			uint8	   *bits;
			int64		os_blocks;
			int64		shared;
			int64		both;
			cachectl_residency_counts os_counts;
			Datum		values[STATUS_COLUMNS] = {0};
			bool		nulls[STATUS_COLUMNS] = {0};

			CHECK_FOR_INTERRUPTS();
			cachectl_buffer_scan_row(scan, i, &row);
			row_blocks(scan, i, &blocks, &count);
			if (row.relation_id != measured_relid)
			{
				os_residency_scan_relation(report, row.relation_id, InvalidForkNumber);
				measured_relid = row.relation_id;
			}
			if (!os_residency_fork_total(report, row.fork_number, &os_counts))
				memset(&os_counts, 0, sizeof(os_counts));

			rel = relation_open(row.relation_id, NoLock);	/* locked by the set */
			path = CACHECTL_RELATION_FORK_PATH(rel, row.fork_number);
			relation_close(rel, NoLock);
			bits = os_map_of(path, row.blocks);
			os_blocks = row.blocks > 0 ? pg_popcount((const char *) bits, (row.blocks + 7) / 8) : 0;
			count = blocks_below(blocks, count, row.blocks);
			shared = (int64) count;
			both = blocks_in_map(blocks, count, bits, row.blocks);

			values[0] = ObjectIdGetDatum(row.relation_id);
			values[1] = CStringGetTextDatum(forkNames[row.fork_number]);
			values[2] = Int64GetDatum(row.blocks);
			values[3] = Int64GetDatum(shared);
			values[4] = Int64GetDatum(os_blocks);
			values[5] = Int64GetDatum(both);
			values[6] = Int64GetDatum(shared - both);
			values[7] = Int64GetDatum(os_blocks - both);
			values[8] = Int64GetDatum(row.blocks - shared - (os_blocks - both));
			values[9] = Int64GetDatum(row.dirty);
			values[10] = Int64GetDatum(os_counts.dirty_pages);
			nulls[10] = !os_counts.has_cachestat_counters;
			values[11] = Int64GetDatum(row.blocks * BLCKSZ);
			values[12] = Int64GetDatum(shared * BLCKSZ);
			values[13] = Int64GetDatum(os_blocks * BLCKSZ);
			values[14] = Int64GetDatum(both * BLCKSZ);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			pfree(bits);
			pfree(path);
		}
		MemoryContextDelete(batch_context); /* frees the scan */
	}
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	buffer_scan_notice_if_temporary(relid);
	return (Datum) 0;
}

/*
 * cachectl.draw(rel regclass, width int DEFAULT 64) RETURNS text
 *
 * The main fork as a strip of at most `width` characters, each a run of
 * blocks drawn as most of them are: '#' in both layers, 's' shared buffers
 * only, 'o' OS cache only, ' ' neither.
 */
Datum
pg_cachectl_draw(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int32		width = PG_GETARG_INT32(1);
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet set = {0};
	cachectl_buffer_scan *scan;
	cachectl_buffer_row row;
	const uint32 *blocks = NULL;
	size_t		count = 0;
	Relation	rel;
	char	   *path;
	uint8	   *bits;
	char	   *drawing;
	size_t		room;
	cachectl_error error = {0};
	text	   *result;

	if (width < 1 || width > 10000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be between 1 and 10000 characters")));
	lock_one_relation(relid, "draw", RELATION_SET_REPORT);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl draw",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	set.count = 1;
	set.relids = &relid;
	set.locked_from = 0;
	set.locked_to = 1;
	scan = buffer_scan_pass_batch(work_context, &set, MAIN_FORKNUM, BUFFER_PASS_COLLECT);
	memset(&row, 0, sizeof(row));
	if (cachectl_buffer_scan_row_count(scan) == 1)
	{
		cachectl_buffer_scan_row(scan, 0, &row);
		row_blocks(scan, 0, &blocks, &count);
	}
	rel = relation_open(relid, NoLock);
	path = CACHECTL_RELATION_FORK_PATH(rel, MAIN_FORKNUM);
	relation_close(rel, NoLock);
	bits = os_map_of(path, row.blocks);
	count = blocks_below(blocks, count, row.blocks);

	room = (size_t) width + CACHECTL_DRAWING_EXTRA;
	drawing = palloc(room);
	if (cachectl_draw_two_layers(blocks, count, bits, row.blocks, width, drawing, room, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	MemoryContextSwitchTo(caller_context);
	result = cstring_to_text(drawing);
	MemoryContextDelete(work_context);
	buffer_scan_notice_if_temporary(relid);
	PG_RETURN_TEXT_P(result);
}

/* Adds one row per run of consecutive blocks. */
static void
put_block_runs(ReturnSetInfo *rsinfo, Oid relid, int fork, const uint32 *blocks, size_t count)
{
	size_t		start = 0;

	while (start < count)
	{
		size_t		end = start + 1;
		Datum		values[BLOCK_RUN_COLUMNS];
		bool		nulls[BLOCK_RUN_COLUMNS] = {false, false, false, false};

		while (end < count && blocks[end] == blocks[end - 1] + 1)
			end++;
		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(forkNames[fork]);
		values[2] = Int64GetDatum((int64) blocks[start]);
		values[3] = Int64GetDatum((int64) (end - start));
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

		cachectl_buffer_scan_row(scan, i, &row);
		row_blocks(scan, i, &blocks, &count);
		put_block_runs(rsinfo, row.relation_id, row.fork_number, blocks, count);
	}
}

/*
 * cachectl.shared_block_runs(rels regclass[] DEFAULT NULL)
 *   RETURNS TABLE (relation regclass, fork text, first_block int8, block_count int8)
 *
 * The runs of consecutive blocks in shared buffers, from one pass over the
 * pool: of the relations named (as relation sets: partitions expanded), or
 * with NULL of every relation of the database the user may read.  Internal:
 * what snapshot() records.
 */
Datum
pg_cachectl_shared_block_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext work_context;
	MemoryContext caller_context;
	cachectl_buffer_scan *scan;

	InitMaterializedSRF(fcinfo, 0);
	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl shared_block_runs",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	if (PG_ARGISNULL(0))
	{
		int			relation_count;
		DatabaseRelation *relations = database_relations_list(true, &relation_count);

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
 * cachectl.os_block_runs(rel regclass, fork text DEFAULT 'main')
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
	int			fork;
	Relation	rel;
	char	   *path;
	int64		blocks;
	uint8	   *bits;
	size_t		run_count = 0;
	cachectl_block_range *runs;
	cachectl_error error = {0};
	MemoryContext work_context;
	MemoryContext caller_context;

	InitMaterializedSRF(fcinfo, 0);
	relid = PG_GETARG_OID(0);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	lock_one_relation(relid, "os_block_runs", RELATION_SET_REPORT);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_block_runs",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	rel = relation_open(relid, NoLock);
	path = CACHECTL_RELATION_FORK_PATH(rel, fork);
	relation_close(rel, NoLock);
	blocks = Max(fork_blocks_from_files(path), 0);
	bits = os_map_of(path, blocks);
	if (cachectl_map_runs(bits, blocks, NULL, 0, &run_count, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	runs = palloc(sizeof(cachectl_block_range) * Max(run_count, 1));
	if (cachectl_map_runs(bits, blocks, runs, run_count, &run_count, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	for (size_t i = 0; i < run_count; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(runs[i].first);
		values[1] = Int64GetDatum(runs[i].count);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	/*
	 * Let the lock go now, not at the end of the transaction: snapshot()
	 * calls this for every cached relation of a database, more than the lock
	 * table may hold; the map is taken, nothing else here reads the relation.
	 */
	UnlockRelationOid(relid, AccessShareLock);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	return (Datum) 0;
}

/*
 * cachectl.system_identifier() RETURNS text
 *
 * The cluster's system identifier: the same on a primary and its physical
 * standbys, different after a dump and restore.
 */
Datum
pg_cachectl_system_identifier(PG_FUNCTION_ARGS)
{
	char		identifier[32];

	snprintf(identifier, sizeof(identifier), UINT64_FORMAT, GetSystemIdentifier());
	PG_RETURN_TEXT_P(cstring_to_text(identifier));
}
