/*
 * relation_reads_counting.h — a backend's side of the per-relation counters:
 * the executor hooks that track each query's reads while
 * cachectl.track_reads is on, and the relations each plan node reads.
 */
#ifndef PG_CACHECTL_RELATION_READS_COUNTING_H
#define PG_CACHECTL_RELATION_READS_COUNTING_H

#include "utils/relcache.h"

#include "pg_cachectl/read_sources.h"

/* From shared_preload_libraries: ExecutorStart and ExecutorEnd hooks. */
extern void relation_reads_install_hooks(void);

/*
 * Adds one query's counts of a relation (NULL: the database's reads no
 * relation count claimed) to the shared table (relation_reads.c).
 */
extern void relation_reads_add(Relation rel, int64 shared_hit_blocks, const cachectl_relation_reads *reads);

#endif							/* PG_CACHECTL_RELATION_READS_COUNTING_H */
