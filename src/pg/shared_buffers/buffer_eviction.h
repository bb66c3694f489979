/*
 * buffer_eviction.h — reading one shared buffer's header, and evicting one
 * shared buffer without losing a dirty page or touching a pinned one.
 */
#ifndef PG_CACHECTL_BUFFER_EVICTION_H
#define PG_CACHECTL_BUFFER_EVICTION_H

#include "storage/buf_internals.h"

/* A buffer's header as read under its spinlock. */
typedef struct BufferHeaderSnapshot
{
	BufferTag	tag;
	bool		valid;			/* holds a page (BM_VALID and BM_TAG_VALID) */
	bool		dirty;
	int			pins;
	int			usage_count;
} BufferHeaderSnapshot;

typedef enum BufferEvictionResult
{
	BUFFER_EVICTED,
	BUFFER_FLUSHED_AND_EVICTED,
	BUFFER_SKIPPED_PINNED,		/* someone else holds a pin */
	BUFFER_SKIPPED_IN_USE,		/* pinned or dirtied again by the recheck */
	BUFFER_PAGE_GONE			/* no longer holds that page: not ours to count */
} BufferEvictionResult;

extern void read_buffer_header(int buf_id, BufferHeaderSnapshot *snapshot);

/*
 * Evicts buffer buf_id if it still holds the page `tag` names and nobody
 * else pins it, writing it first if dirty (WAL flushed to its LSN first).
 * Never waits for a pin.  A failed write is raised as 58030 (53100 for a
 * full disk); (sub)transaction abort releases the pin, the content lock and
 * the buffer's I/O state it held (see buffer_pool_pass.c for a pass that
 * goes on after a failed write).
 */
extern BufferEvictionResult evict_buffer_page(int buf_id, const BufferTag *tag);

#endif							/* PG_CACHECTL_BUFFER_EVICTION_H */
