/*
 * buffer_scan_setup.h — creating a buffer-pool pass's scan (owned by a
 * memory context) and wanting the forks of a locked batch of relations.
 */
#ifndef PG_CACHECTL_BUFFER_SCAN_SETUP_H
#define PG_CACHECTL_BUFFER_SCAN_SETUP_H

#include "pg_cachectl/buffer_scan.h"

#include "relation_set/database_relations.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_pool_pass.h"

/* A scan freed with owner, on success or error alike. */
extern cachectl_buffer_scan *buffer_scan_create(MemoryContext owner);

/*
 * Wants the existing forks (or the one named) of every locked member of the
 * set's current batch, with each fork's size in blocks, then seals the scan;
 * collect_blocks also keeps the block numbers found.
 */
extern void buffer_scan_want_batch(cachectl_buffer_scan *scan, RelationSet *set, int only_fork,
								   bool collect_blocks);

/*
 * One pass over the pool for the forks of the set's locked batch (or the one
 * named), counting, collecting block numbers or evicting; returns the
 * finished scan, owned by owner.
 */
extern cachectl_buffer_scan *buffer_scan_pass_batch(MemoryContext owner, RelationSet *set,
													int only_fork, BufferPassAction action);

/*
 * One pass over the pool for every fork of the given relations of the
 * current database (database_relations.h), keeping block numbers; returns
 * the finished scan, owned by owner.
 */
extern cachectl_buffer_scan *buffer_scan_pass_database(MemoryContext owner, const DatabaseRelation *relations,
													   int relation_count);

/* The block numbers a collecting pass found for one of its rows; an error if they were lost. */
extern void buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index,
								   const uint32 **blocks, size_t *count);
/* Those of them whose buffer's usage count was 2 or more (hot), sorted. */
extern void buffer_scan_row_hot_blocks(const cachectl_buffer_scan *scan, size_t index,
								   const uint32 **blocks, size_t *count);

/*
 * The NOTICE every report of shared buffers gives for a temporary relation
 * named to it (its pages are in local buffers, counted as 0).
 */
extern void buffer_scan_notice_if_temporary(Oid relid);

#endif							/* PG_CACHECTL_BUFFER_SCAN_SETUP_H */
