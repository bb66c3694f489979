/*
 * buffer_eviction.c — the eviction protocol for one shared buffer (see
 * DESIGN.md, "Evicting a shared buffer safely on PostgreSQL 15 and 16"),
 * used on 15 to 19 alike.  On 19 the content lock lives in the buffer's
 * state word; the protocol is unchanged, only reading and rewriting that
 * word differ (version_compat.h).
 *
 * Lock order: content lock, then mapping partition lock, then header
 * spinlock.  Nothing allocates, logs or raises while the spinlock is held.
 * Because dirtying a page needs its content lock, which we hold exclusively
 * from the moment we know we are the only pin, no change can be lost.
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/buf_internals.h"
#include "storage/lwlock.h"
#include "utils/elog.h"
#include "utils/memutils.h"

#include "api/version_compat.h"
#include "shared_buffers/buffer_eviction.h"

void
read_buffer_header(int buf_id, BufferHeaderSnapshot *snapshot)
{
	BufferDesc *desc = GetBufferDescriptor(buf_id);
	CachectlBufferState state = LockBufHdr(desc);

	snapshot->tag = desc->tag;
	snapshot->valid = (state & (BM_VALID | BM_TAG_VALID)) == (BM_VALID | BM_TAG_VALID);
	snapshot->dirty = (state & BM_DIRTY) != 0;
	snapshot->pins = BUF_STATE_GET_REFCOUNT(state);
	snapshot->usage_count = BUF_STATE_GET_USAGECOUNT(state);
	CACHECTL_UNLOCK_BUFFER_HEADER(desc, state);
}

/*
 * Writes the pinned, exclusively locked buffer.  A file that cannot be
 * opened or written for lack of permission is an I/O failure of the
 * eviction (58030), not a privilege problem of the caller; a full disk stays
 * 53100, so that monitoring tells it apart.
 */
static void
flush_locked_buffer(Buffer buffer)
{
	MemoryContext caller_context = CurrentMemoryContext;

	PG_TRY();
	{
		FlushOneBuffer(buffer);
	}
	PG_CATCH();
	{
		ErrorData  *failure;

		MemoryContextSwitchTo(caller_context);
		failure = CopyErrorData();
		if (failure->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE &&
			failure->sqlerrcode != ERRCODE_DISK_FULL)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(failure->sqlerrcode == ERRCODE_DISK_FULL
						 ? ERRCODE_DISK_FULL : ERRCODE_IO_ERROR),
				 errmsg("could not write shared buffer %d before evicting it", buffer),
				 errdetail("%s", failure->message),
				 failure->context ? errcontext("%s", failure->context) : 0));
	}
	PG_END_TRY();
}

BufferEvictionResult
evict_buffer_page(int buf_id, const BufferTag *tag)
{
	BufferDesc *desc = GetBufferDescriptor(buf_id);
	Buffer		buffer = BufferDescriptorGetBuffer(desc);
	BufferTag	expected = *tag;
	bool		flushed = false;
	bool		invalidated = false;
	uint32		hash;
	LWLock	   *partition_lock;
	CachectlBufferState state;
	int64		hits_before = pgBufferUsage.shared_blks_hit;
	bool		pinned;

	/* Pins only if the buffer still holds exactly that page; no I/O. */
	pinned = CACHECTL_READ_RECENT_BUFFER(expected, buffer);

	/*
	 * ReadRecentBuffer counts a shared-buffer hit, as if a query had read the
	 * page: undone, so that an eviction does not show up as reads in EXPLAIN
	 * (BUFFERS) or pg_stat_statements.
	 */
	pgBufferUsage.shared_blks_hit = hits_before;
	if (!pinned)
		return BUFFER_PAGE_GONE;

	/* Exclusive content lock with ours as the only pin, or give up at once. */
	if (!ConditionalLockBufferForCleanup(buffer))
	{
		ReleaseBuffer(buffer);
		return BUFFER_SKIPPED_PINNED;
	}

	if (CACHECTL_READ_BUFFER_STATE(desc) & BM_DIRTY)
	{
		flush_locked_buffer(buffer);
		flushed = true;
	}

	hash = BufTableHashCode(&expected);
	partition_lock = BufMappingPartitionLock(hash);
	LWLockAcquire(partition_lock, LW_EXCLUSIVE);
	state = LockBufHdr(desc);
	if (CACHECTL_TAGS_EQUAL(desc->tag, expected) &&
		BUF_STATE_GET_REFCOUNT(state) == 1 &&
		(state & BM_DIRTY) == 0)
	{
		/*
		 * Keep the refcount bits (our pin is released below as usual) and,
		 * on 19, the content lock we hold.
		 */
		CACHECTL_CLEAR_TAG(desc->tag);
		CACHECTL_UNLOCK_BUFFER_HEADER_INVALIDATED(desc, state);
		/* may raise (a corrupted table): never under the header spinlock */
		BufTableDelete(&expected, hash);
		invalidated = true;
	}
	else
		CACHECTL_UNLOCK_BUFFER_HEADER(desc, state);
	LWLockRelease(partition_lock);

	UnlockReleaseBuffer(buffer);
	if (!invalidated)
		return BUFFER_SKIPPED_IN_USE;

	/* Unpinned and invalid: hand it to the next backend that needs a buffer. */
	CACHECTL_RETURN_TO_FREE_LIST(desc);
	return flushed ? BUFFER_FLUSHED_AND_EVICTED : BUFFER_EVICTED;
}
