/*
 * os_map.c — block maps of the OS page cache: os_map() builds one (one bit
 * per block, in place in the varbit it returns), os_draw() draws one for
 * psql.  Reports: they need what the residency reports need.
 */
#include "postgres.h"

#include "common/relpath.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/varbit.h"

#include "api/api.h"
#include "api/call_arguments.h"
#include "api/null_arguments.h"
#include "api/version_compat.h"
#include "os_cache/fork_residency.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"

#include "pg_cachectl/block_maps.h"

PG_FUNCTION_INFO_V1(pg_cachectl_os_map);
PG_FUNCTION_INFO_V1(pg_cachectl_os_draw);

/*
 * cachectl.os_map(rel regclass, fork text DEFAULT 'main') RETURNS varbit
 *
 * One bit per block of the fork, set when all of the block's OS pages are
 * in the page cache.  A fork that does not exist gives an empty map.
 */
static const ArgumentNullRule os_map_null_rules[] = {{"rel", NULL_IS_NOTHING}, {"fork", NULL_REFUSED_ONE_FORK}};

Datum
pg_cachectl_os_map(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int			fork;
	char	   *path;
	int64		blocks;
	VarBit	   *result;
	MemoryContext work_context;
	MemoryContext caller_context;

	if (null_arguments_ask_nothing(fcinfo, "os_map", os_map_null_rules, 2))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	fork = forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	lock_one_relation(relid, "os_map", RELATION_SET_REPORT);

	path = relation_fork_path(relid, fork);
	blocks = Max(fork_blocks_from_files(path), 0);
	if (blocks > VARBITMAXLEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("fork %s of \"%s\" has " INT64_FORMAT " blocks, more than a block map can hold",
						forkNames[fork], get_rel_name(relid), blocks),
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
		os_map_fill(VARBITS(result), blocks, path, NULL);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);	/* frees the job, closes its file */

	PG_RETURN_VARBIT_P(result);
}

/*
 * cachectl.os_draw(map varbit, width int DEFAULT 64) RETURNS text
 *
 * The map as a strip of at most `width` characters (each a run of blocks:
 * ' ' none set, '.' under half, ':' half or more, '#' all) and a legend.
 */
static const ArgumentNullRule os_draw_null_rules[] = {{"map", NULL_IS_NOTHING}, {"width", NULL_REFUSED}};

Datum
pg_cachectl_os_draw(PG_FUNCTION_ARGS)
{
	VarBit	   *map;
	int32		width;
	cachectl_error error = {0};
	size_t		room;
	char	   *drawing;

	if (null_arguments_ask_nothing(fcinfo, "os_draw", os_draw_null_rules, 2))
		PG_RETURN_NULL();
	map = PG_GETARG_VARBIT_P(0);
	width = PG_GETARG_INT32(1);
	room = drawing_room(width);
	drawing = palloc(room);
	if (cachectl_draw_block_map(VARBITS(map), VARBITLEN(map), width, drawing, room, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	PG_RETURN_TEXT_P(cstring_to_text(drawing));
}
