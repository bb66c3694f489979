/*
 * The both_layers area: calls that see or change the two layers together:
 * status() and draw() (this file), cold() (cold: evict, write back, drop in one
 * call), prewarm() and prewarm_runs() (prewarm) and the loader of block ranges
 * into either layer or both that they and the snapshots area share
 * (block_loader).  It uses the api, relation_set, shared_buffers and os_cache
 * areas.
 *
 * both_layers.c — reports over both caches of the relations named: status()
 * per relation fork, block-exact; draw() as a two-layer strip.  The runs of
 * blocks each layer holds, which snapshots record, are snapshot_runs.c's;
 * the database-wide report, database_status(), is in cache_metrics.c, over
 * the one walk of database_cache.c.
 *
 * The shared layer is one pass over the buffer pool that keeps the block
 * numbers it finds; the OS layer is an os_map of each fork.
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
#include "api/call_arguments.h"
#include "api/null_arguments.h"
#include "os_cache/fork_residency.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_pool_pass.h"
#include "shared_buffers/buffer_scan_setup.h"

#include "pg_cachectl/block_maps.h"

PG_FUNCTION_INFO_V1(pg_cachectl_status);
PG_FUNCTION_INFO_V1(pg_cachectl_draw);

#define STATUS_COLUMNS 15

/*
 * cachectl.status(rel regclass, cascade boolean DEFAULT false)
 *   RETURNS TABLE (relation regclass, fork text, size_blocks int8, shared_blocks int8,
 *                  os_blocks int8, both_blocks int8, shared_only_blocks int8,
 *                  os_only_blocks int8, neither_blocks int8,
 *                  shared_dirty_blocks int8, os_dirty_pages int8,
 *                  size_bytes int8, shared_bytes int8, os_bytes int8,
 *                  both_bytes int8)
 *
 * Block-exact: the block numbers found in shared buffers are looked up in
 * the fork's OS map.  os_dirty_pages is NULL where mincore measures.
 */
static const ArgumentNullRule status_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"cascade", NULL_REFUSED}};

Datum
pg_cachectl_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;

	InitMaterializedSRF(fcinfo, 0);
	if (null_arguments_ask_nothing(fcinfo, "status", status_null_rules, 2))
		return (Datum) 0;
	relid = PG_GETARG_OID(0);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl status",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	set = relation_set_build(&relid, 1, PG_GETARG_BOOL(1), RELATION_SET_REPORT);
	while (relation_set_lock_next_batch(set))
	{
		MemoryContext batch_context = AllocSetContextCreate(work_context, "pg_cachectl status batch",
															ALLOCSET_DEFAULT_SIZES);
		cachectl_buffer_scan *scan = buffer_scan_pass_batch(batch_context, set, InvalidForkNumber, BUFFER_PASS_COLLECT);
		size_t		rows = cachectl_buffer_scan_row_count(scan);

		for (size_t i = 0; i < rows; i++)
		{
			cachectl_buffer_row row;
			const uint32 *blocks;
			size_t		count;
			char	   *path;
			uint8	   *bits;
			cachectl_layer_counts layers;
			cachectl_error error = {0};
			int64		os_dirty_pages;
			bool		os_dirty_known;
			Datum		values[STATUS_COLUMNS] = {0};
			bool		nulls[STATUS_COLUMNS] = {0};

			CHECK_FOR_INTERRUPTS();
			cachectl_buffer_scan_row(scan, i, &row);
			buffer_scan_row_blocks(scan, i, &blocks, &count);
			/* one walk of the fork's files: the map and its dirty pages */
			path = relation_fork_path(row.relation_id, row.fork_number);
			bits = os_map_of(path, row.size_blocks, &os_dirty_pages, &os_dirty_known);
			/* a buffer past the fork's end (being extended) is not counted */
			if (cachectl_compare_layers(blocks, count, bits, row.size_blocks, &layers, &error) != CACHECTL_OK)
				cachectl_raise_core_error(&error);

			values[0] = ObjectIdGetDatum(row.relation_id);
			values[1] = CStringGetTextDatum(forkNames[row.fork_number]);
			values[2] = Int64GetDatum(row.size_blocks);
			values[3] = Int64GetDatum(layers.both_blocks + layers.shared_only_blocks);
			values[4] = Int64GetDatum(layers.both_blocks + layers.os_only_blocks);
			values[5] = Int64GetDatum(layers.both_blocks);
			values[6] = Int64GetDatum(layers.shared_only_blocks);
			values[7] = Int64GetDatum(layers.os_only_blocks);
			values[8] = Int64GetDatum(layers.neither_blocks);
			values[9] = Int64GetDatum(row.shared_dirty_blocks);
			values[10] = Int64GetDatum(os_dirty_pages);
			nulls[10] = !os_dirty_known;
			values[11] = Int64GetDatum(row.size_blocks * BLCKSZ);
			values[12] = Int64GetDatum((layers.both_blocks + layers.shared_only_blocks) * BLCKSZ);
			values[13] = Int64GetDatum((layers.both_blocks + layers.os_only_blocks) * BLCKSZ);
			values[14] = Int64GetDatum(layers.both_blocks * BLCKSZ);
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
static const ArgumentNullRule draw_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"width", NULL_REFUSED}};

Datum
pg_cachectl_draw(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int32		width;
	MemoryContext work_context;
	MemoryContext caller_context;
	RelationSet *set;
	cachectl_buffer_scan *scan;
	cachectl_buffer_row row;
	const uint32 *blocks = NULL;
	size_t		count = 0;
	char	   *path;
	uint8	   *bits;
	char	   *drawing;
	size_t		room;
	cachectl_error error = {0};
	text	   *result;

	if (null_arguments_ask_nothing(fcinfo, "draw", draw_null_rules, 2))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	width = PG_GETARG_INT32(1);
	room = drawing_room(width);
	set = lock_one_relation(relid, "draw", RELATION_SET_REPORT);

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl draw",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	scan = buffer_scan_pass_batch(work_context, set, MAIN_FORKNUM, BUFFER_PASS_COLLECT);
	memset(&row, 0, sizeof(row));
	if (cachectl_buffer_scan_row_count(scan) == 1)
	{
		cachectl_buffer_scan_row(scan, 0, &row);
		buffer_scan_row_blocks(scan, 0, &blocks, &count);
	}
	path = relation_fork_path(relid, MAIN_FORKNUM);
	bits = os_map_of(path, row.size_blocks, NULL, NULL);

	drawing = palloc(room);
	if (cachectl_draw_two_layers(blocks, count, bits, row.size_blocks, width, drawing, room, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	MemoryContextSwitchTo(caller_context);
	result = cstring_to_text(drawing);
	MemoryContextDelete(work_context);
	buffer_scan_notice_if_temporary(relid);
	PG_RETURN_TEXT_P(result);
}
