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

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_READ_SOURCES_H */
