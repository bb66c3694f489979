/*
 * read_sources.h — the C ABI of the read-source rule (read_sources.hpp):
 * a tally of a node's kernel reads split into page-cache hits and device
 * reads, fed one span at a time by the executor's read sampler.
 */
#ifndef PG_CACHECTL_READ_SOURCES_H
#define PG_CACHECTL_READ_SOURCES_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct cachectl_read_sources
{
	int64_t		read_blocks;	/* asked of the kernel */
	int64_t		os_hit_blocks;	/* served by the page cache */
	int64_t		device_read_blocks; /* covered by device reads */
	int64_t		device_read_bytes;	/* raw, readahead included */
} cachectl_read_sources;

/*
 * Adds one span's counters; *unclaimed_device_bytes carries the readahead
 * not yet matched to a block from span to span (start it at 0 for a query).
 * CACHECTL_INVALID_ARGUMENT for a negative counter.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_read_sources_add_span(cachectl_read_sources *tally,
																   int64_t *unclaimed_device_bytes,
																   int64_t read_blocks, int64_t device_bytes,
																   int64_t block_size,
																   cachectl_error *error) CACHECTL_NOEXCEPT;
/* Adds another tally (a child's, to make a node's figures inclusive). */
CACHECTL_BRIDGE_API void cachectl_read_sources_add(cachectl_read_sources *tally,
												   const cachectl_read_sources *other) CACHECTL_NOEXCEPT;

/*
 * One relation's reads in the cumulative counters (relation_split.hpp):
 * read_blocks = os_hit_blocks + device_read_blocks + unsplit_read_blocks.
 */
typedef struct cachectl_relation_reads
{
	int64_t		read_blocks;
	int64_t		os_hit_blocks;
	int64_t		device_read_blocks;
	int64_t		unsplit_read_blocks;	/* a span that mixed both sources */
	int64_t		device_read_bytes;
} cachectl_relation_reads;

/*
 * Adds one span's shares to shares[0 .. relation_count] (the last is the
 * blocks no relation count claims); relation_blocks[i] is relation i's
 * blocks in the span by PostgreSQL's own per-relation counts; sources_known
 * false counts every block as unsplit.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_read_sources_split(const cachectl_read_sources *span,
																const int64_t *relation_blocks,
																size_t relation_count,
																bool sources_known,
																cachectl_relation_reads *shares,
																cachectl_error *error) CACHECTL_NOEXCEPT;
/* Adds another relation's counters (summing a query's into shared memory). */
CACHECTL_BRIDGE_API void cachectl_relation_reads_add(cachectl_relation_reads *total,
													 const cachectl_relation_reads *other) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_READ_SOURCES_H */
