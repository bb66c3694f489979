/*
 * buffer_scan.h — the buffer-scan handle of the bridge: what one pass over
 * the buffer pool found for the relation forks it looks for.
 */
#ifndef PG_CACHECTL_BUFFER_SCAN_H
#define PG_CACHECTL_BUFFER_SCAN_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * A buffer-pool pass: the relation forks it looks for and what it found.
 * The shim's C loop walks the pool (it calls server functions that can
 * raise errors); for each buffer it asks match() whether the buffer's page is
 * wanted and reports the outcome with count_*().  Freed like a report.
 */
typedef struct cachectl_relation_file_key
{
	uint32_t	tablespace;
	uint32_t	database;
	uint32_t	file_number;
} cachectl_relation_file_key;

typedef enum cachectl_eviction_outcome
{
	CACHECTL_EVICTED = 0,
	CACHECTL_FLUSHED_AND_EVICTED,
	CACHECTL_SKIPPED			/* pinned, or in use when rechecked */
} cachectl_eviction_outcome;

/* One relation fork's result, in (relation_id, fork_number) order. */
typedef struct cachectl_buffer_row
{
	uint32_t	relation_id;
	int			fork_number;
	int64_t		size_blocks;	/* the fork's size */
	int64_t		shared_blocks;
	int64_t		shared_dirty_blocks;
	int64_t		shared_pinned_blocks;
	int64_t		usage_count_sum;
	int64_t		buffers_evicted;
	int64_t		buffers_flushed;
	int64_t		buffers_skipped;
} cachectl_buffer_row;

typedef struct cachectl_buffer_scan cachectl_buffer_scan;

CACHECTL_BRIDGE_API cachectl_buffer_scan *cachectl_buffer_scan_create(cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_buffer_scan_free(cachectl_buffer_scan *scan) CACHECTL_NOEXCEPT;

/*
 * Want the forks of one relation whose fork_blocks[fork] is >= 0 (the fork's
 * size in blocks, reported back as its row's size_blocks); -1 leaves a fork
 * out.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_want(cachectl_buffer_scan *scan,
															  const cachectl_relation_file_key *key,
															  uint32_t relation_id,
															  const int64_t fork_blocks[CACHECTL_FORK_COUNT],
															  cachectl_error *error) CACHECTL_NOEXCEPT;

/* Sort the wanted set: call once, after every want() and before match(). */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_seal(cachectl_buffer_scan *scan,
															  cachectl_error *error) CACHECTL_NOEXCEPT;

/* The slot of a buffer's page if it is wanted, else -1.  Cheap; no allocation. */
CACHECTL_BRIDGE_API int cachectl_buffer_scan_match(const cachectl_buffer_scan *scan,
												   const cachectl_relation_file_key *key,
												   int fork_number) CACHECTL_NOEXCEPT;

CACHECTL_BRIDGE_API void cachectl_buffer_scan_count_resident(cachectl_buffer_scan *scan, int slot, bool dirty,
															 bool pinned, int usage_count) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_buffer_scan_count_eviction(cachectl_buffer_scan *scan, int slot,
															 cachectl_eviction_outcome outcome) CACHECTL_NOEXCEPT;

/* Build the result rows once the pass is over. */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_finish(cachectl_buffer_scan *scan,
																cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API size_t cachectl_buffer_scan_row_count(const cachectl_buffer_scan *scan) CACHECTL_NOEXCEPT;
/* Row index, below row_count. */
CACHECTL_BRIDGE_API void cachectl_buffer_scan_row(const cachectl_buffer_scan *scan, size_t index,
												  cachectl_buffer_row *row) CACHECTL_NOEXCEPT;

/* Keep the block numbers of resident buffers too: call before seal(). */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_collect_blocks(cachectl_buffer_scan *scan,
																		cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * count_resident() plus the buffer's block number.  Returns false when the
 * core ran out of memory for the number (the counts stay right; the shim
 * raises an error once the pass is over).
 */
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_count_resident_block(cachectl_buffer_scan *scan, int slot,
																   uint32_t block, bool dirty, bool pinned,
																   int usage_count) CACHECTL_NOEXCEPT;

/* The sorted block numbers found for row `index` (valid until the scan is freed). */
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index,
														 const uint32_t **blocks,
														 size_t *count) CACHECTL_NOEXCEPT;

/*
 * Those of them whose buffer was hot: a usage count of at least 2 (used
 * again since it was read, or since the clock sweep last passed it), sorted.
 */
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_row_hot_blocks(const cachectl_buffer_scan *scan, size_t index,
															 const uint32_t **blocks,
															 size_t *count) CACHECTL_NOEXCEPT;


#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_BUFFER_SCAN_H */
