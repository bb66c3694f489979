/*
 * fork_files.h — a relation fork's files, as every SQL function finds them:
 * the path of its first segment, its size in blocks from the segment files,
 * and the kernel's page size that OS counts are in.
 */
#ifndef PG_CACHECTL_FORK_FILES_H
#define PG_CACHECTL_FORK_FILES_H

#include "common/relpath.h"

/*
 * The path (relative to the data directory, palloc'd) of a fork of a
 * relation the caller has locked.
 */
extern char *relation_fork_path(Oid relid, ForkNumber fork);

/*
 * A fork's size in blocks, from stat() of its segment files (never opened:
 * smgr would open them read-write, which a report must not need); -1 when
 * the fork does not exist.
 */
extern int64 fork_blocks_from_files(const char *base_path);

/* The kernel's page size; an error if it cannot be read. */
extern int64 os_page_size(void);

#endif							/* PG_CACHECTL_FORK_FILES_H */
