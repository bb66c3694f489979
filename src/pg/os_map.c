/*
 * os_map.c — block maps of the OS page cache: os_map() builds one (one bit
 * per block, in place in the varbit it returns), os_draw() draws one for
 * psql.  Reports: they need what the residency reports need.
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/varbit.h"

#include "cachectl.h"
#include "call_arguments.h"
#include "os_cache_jobs.h"
#include "os_map.h"
#include "os_residency.h"
#include "relation_set.h"
#include "version_compat.h"

PG_FUNCTION_INFO_V1(pg_cachectl_os_map);
PG_FUNCTION_INFO_V1(pg_cachectl_os_draw);

static void
free_map(void *map)
{
	cachectl_os_map_free((cachectl_os_map *) map);
}

static cachectl_status
step_map(void *map, cachectl_step *step, cachectl_error *error)
{
	return cachectl_os_map_step(map, step, error);
}

void
os_map_fill(uint8 *bits, int64 bit_count, const char *path)
{
	MemoryContext owner = CurrentMemoryContext;
	MemoryContextCallback *callback;
	cachectl_error error = {0};
	cachectl_os_map *map;

	callback = cachectl_reserve_free_callback(owner);
	map = cachectl_os_map_create(bits, bit_count, path, CACHECTL_SEGMENT_BYTES,
								 BLCKSZ, (cachectl_os_engine) cachectl_os_engine_setting, &error);
	if (map == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, callback, free_map, map);

	run_core_job(step_map, map, NULL, NULL);
}

/*
 * cachectl.os_map(rel regclass, fork text DEFAULT 'main') RETURNS varbit
 *
 * One bit per block of the fork, set when all of the block's OS pages are
 * in the page cache.  A fork that does not exist gives an empty map.
 */
Datum
pg_cachectl_os_map(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int			fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	Relation	rel;
	char	   *path;
	int64		blocks;
	VarBit	   *result;
	MemoryContext work_context;
	MemoryContext caller_context;

	lock_one_relation(relid, "os_map", RELATION_SET_REPORT);

	rel = relation_open(relid, NoLock); /* locked by the set */
	path = CACHECTL_RELATION_FORK_PATH(rel, fork);
	blocks = Max(fork_blocks_from_files(path), 0);
	if (blocks > VARBITMAXLEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("fork %s of \"%s\" has " INT64_FORMAT " blocks, more than a block map can hold",
						forkNames[fork], RelationGetRelationName(rel), blocks),
				 errdetail("A varbit holds at most %d bits.", VARBITMAXLEN),
				 errhint("Use os_residency() for its counts.")));

	/* built in place: the varbit returned is the map the core writes */
	result = (VarBit *) palloc0(VARBITTOTALLEN(blocks));
	SET_VARSIZE(result, VARBITTOTALLEN(blocks));
	VARBITLEN(result) = (int32) blocks;

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl os_map",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	if (blocks > 0)
		os_map_fill(VARBITS(result), blocks, path);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);	/* frees the job, closes its file */

	relation_close(rel, NoLock);
	PG_RETURN_VARBIT_P(result);
}

/*
 * cachectl.os_draw(map varbit, width int DEFAULT 64) RETURNS text
 *
 * The map as a strip of at most `width` characters (each a run of blocks:
 * ' ' none set, '.' under half, ':' half or more, '#' all) and a legend.
 */
Datum
pg_cachectl_os_draw(PG_FUNCTION_ARGS)
{
	VarBit	   *map = PG_GETARG_VARBIT_P(0);
	int32		width = PG_GETARG_INT32(1);
	cachectl_error error = {0};
	size_t		room;
	char	   *drawing;

	if (width < 1 || width > 10000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be between 1 and 10000 characters")));
	room = (size_t) width + CACHECTL_DRAWING_EXTRA;
	drawing = palloc(room);
	if (cachectl_draw_block_map(VARBITS(map), VARBITLEN(map), width, drawing, room, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	PG_RETURN_TEXT_P(cstring_to_text(drawing));
}
