/*
 * fork_files.c — a relation fork's files: path, size, page size (see
 * fork_files.h).
 */
#include "postgres.h"

#include "access/relation.h"
#include "utils/rel.h"

#include "api/api.h"
#include "api/version_compat.h"
#include "relation_set/fork_files.h"

#include "pg_cachectl/residency.h"

char *
relation_fork_path(Oid relid, ForkNumber fork)
{
	/* NoLock: the caller's relation set holds the lock */
	Relation	rel = relation_open(relid, NoLock);
	char	   *path = CACHECTL_RELATION_FORK_PATH(rel, fork);

	relation_close(rel, NoLock);
	return path;
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
