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
	BUFFER_SKIPPED,				/* pinned, or in use when rechecked */
	BUFFER_PAGE_GONE			/* no longer holds that page: not ours to count */
} BufferEvictionResult;

extern void read_buffer_header(int buf_id, BufferHeaderSnapshot *snapshot);

/*
 * Evicts buffer buf_id if it still holds the page `tag` names and nobody
 * else pins it, writing it first if dirty (WAL flushed to its LSN first).
 * Never waits for a pin.  An I/O error while writing is raised with a
 * class-58 SQLSTATE; error cleanup releases the pin and locks it held.
 */
extern BufferEvictionResult evict_buffer_page(int buf_id, const BufferTag *tag);

#endif							/* PG_CACHECTL_BUFFER_EVICTION_H */
