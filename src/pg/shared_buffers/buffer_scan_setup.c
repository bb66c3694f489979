/*
 * buffer_scan_setup.c — a buffer-pool pass's wanted set: the forks of the
 * locked members of a relation set, keyed as buffer tags key them.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "api/api.h"
#include "api/version_compat.h"
#include "relation_set/fork_files.h"
#include "shared_buffers/buffer_scan_setup.h"

static void
free_scan(void *scan)
{
	cachectl_buffer_scan_free((cachectl_buffer_scan *) scan);
}

/* A scan freed with the given memory context, on success or error alike. */
cachectl_buffer_scan *
buffer_scan_create(MemoryContext owner)
{
	MemoryContextCallback *callback = cachectl_reserve_free_callback(owner);
	cachectl_error error = {0};
	cachectl_buffer_scan *scan = cachectl_buffer_scan_create(&error);

	if (scan == NULL)
		cachectl_raise_core_error(&error);
	cachectl_free_with_context(owner, callback, free_scan, scan);
	return scan;
}

/* Wants the existing forks (or the one named) of every locked member. */
void
buffer_scan_want_batch(cachectl_buffer_scan *scan, RelationSet *set, int only_fork,
					   bool collect_blocks)
{
	cachectl_error error = {0};
	Oid			relid;

	relation_set_walk_batch(set);
	while (relation_set_next_locked(set, &relid))
	{
		Relation	rel;
		cachectl_relation_file_key key;
		int64		fork_blocks[CACHECTL_FORK_COUNT];

		rel = relation_open(relid, NoLock); /* locked by the set */
		for (int fork = 0; fork < CACHECTL_FORK_COUNT; fork++)
		{
			fork_blocks[fork] = -1;
			if (only_fork == InvalidForkNumber || fork == only_fork)
			{
				char	   *path = CACHECTL_RELATION_FORK_PATH(rel, fork);

				fork_blocks[fork] = fork_blocks_from_files(path);
				pfree(path);
			}
		}
		key.tablespace = CACHECTL_REL_TABLESPACE(rel);
		key.database = CACHECTL_REL_DATABASE(rel);
		key.file_number = CACHECTL_REL_FILE_NUMBER(rel);
		relation_close(rel, NoLock);

		if (cachectl_buffer_scan_want(scan, &key, relid, fork_blocks, &error) != CACHECTL_OK)
			cachectl_raise_core_error(&error);
	}
	if (collect_blocks && cachectl_buffer_scan_collect_blocks(scan, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	if (cachectl_buffer_scan_seal(scan, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
}


/* Ends a pass: the rows are built, or the error that lost buffers is raised. */
static void
finish_pass(cachectl_buffer_scan *scan)
{
	cachectl_error error = {0};

	if (cachectl_buffer_scan_finish(scan, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
}

cachectl_buffer_scan *
buffer_scan_pass_batch(MemoryContext owner, RelationSet *set, int only_fork, BufferPassAction action)
{
	cachectl_buffer_scan *scan = buffer_scan_create(owner);

	buffer_scan_want_batch(scan, set, only_fork, action == BUFFER_PASS_COLLECT);
	buffer_pool_pass_for_scan(scan, action);
	finish_pass(scan);
	return scan;
}

cachectl_buffer_scan *
buffer_scan_pass_database(MemoryContext owner, const DatabaseRelation *relations, int relation_count)
{
	cachectl_error error = {0};
	cachectl_buffer_scan *scan = buffer_scan_create(owner);

	for (int i = 0; i < relation_count; i++)
	{
		cachectl_relation_file_key key;
		/* every fork wanted, its size unknown here (0): files are not opened */
		int64		every_fork[CACHECTL_FORK_COUNT] = {0, 0, 0, 0};

		key.tablespace = relations[i].tablespace;
		key.database = MyDatabaseId;
		key.file_number = relations[i].file_number;
		if (cachectl_buffer_scan_want(scan, &key, relations[i].relid, every_fork, &error) != CACHECTL_OK)
			cachectl_raise_core_error(&error);
	}
	if (cachectl_buffer_scan_collect_blocks(scan, &error) != CACHECTL_OK ||
		cachectl_buffer_scan_seal(scan, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	buffer_pool_pass_for_scan(scan, BUFFER_PASS_COLLECT);
	finish_pass(scan);
	return scan;
}

void
buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32 **blocks, size_t *count)
{
	if (!cachectl_buffer_scan_row_blocks(scan, index, blocks, count))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while collecting the block numbers of shared buffers")));
}

void
buffer_scan_row_hot_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32 **blocks, size_t *count)
{
	if (!cachectl_buffer_scan_row_hot_blocks(scan, index, blocks, count))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while collecting the block numbers of shared buffers")));
}

/*
 * A temporary relation's pages live in its session's local buffers, which no
 * pass over shared buffers sees: every report of shared buffers says so
 * rather than let a 0 mislead.  (Its partitions, TOAST and indexes are
 * temporary exactly when it is.)
 */
void
buffer_scan_notice_if_temporary(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));

	if (!HeapTupleIsValid(tuple))
		return;
	if (((Form_pg_class) GETSTRUCT(tuple))->relpersistence == RELPERSISTENCE_TEMP)
		ereport(NOTICE,
				(errmsg("the pages of temporary relation \"%s\" live in the session's local buffers",
						NameStr(((Form_pg_class) GETSTRUCT(tuple))->relname)),
				 errdetail("Only shared buffers are counted here: its buffers are reported as 0.")));
	ReleaseSysCache(tuple);
}
