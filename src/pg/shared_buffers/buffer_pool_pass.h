/*
 * buffer_pool_pass.h — one pass over every shared buffer, counting what it
 * finds or evicting it, for a set of relation forks, a database, or all.
 */
#ifndef PG_CACHECTL_BUFFER_POOL_PASS_H
#define PG_CACHECTL_BUFFER_POOL_PASS_H

#include "pg_cachectl/buffer_scan.h"

typedef enum BufferPassAction
{
	BUFFER_PASS_COUNT,			/* residency: buffers, dirty, pinned, usage */
	BUFFER_PASS_COLLECT,		/* the same, and the block numbers (the scan must collect them) */
	BUFFER_PASS_EVICT
} BufferPassAction;

/* Totals of a pass that is not about a relation set. */
typedef struct BufferPassTotals
{
	int64		buffers_evicted;
	int64		buffers_flushed;
	int64		buffers_skipped;
	int64		buffers_failed; /* dirty buffers whose write failed: left in place */
	ErrorData  *first_failure;	/* why the first of them failed, or NULL */
} BufferPassTotals;

/* Pass over the buffers of the relation forks the scan wants. */
extern void buffer_pool_pass_for_scan(cachectl_buffer_scan *scan, BufferPassAction action);

/*
 * Evicts every buffer of a database (InvalidOid: of every database).  A
 * buffer whose write fails is left in place and counted in
 * totals->buffers_failed (the pass goes on: no single relation was asked
 * for); any other error, a cancellation included, ends the pass.
 */
extern void buffer_pool_evict_database(Oid database, BufferPassTotals *totals);

/* One WARNING for the buffers whose write failed, if any (the first says why). */
extern void buffer_pool_warn_failed_writes(const BufferPassTotals *totals);

#endif							/* PG_CACHECTL_BUFFER_POOL_PASS_H */
