/*
 * advice_pool_watch.c — unlocked reads of the clock hand's position and of
 * buffer headers, for the sizing advice.  A header is read as: state word,
 * tag, state word again; the tag only changes under the header lock, which
 * shows in the state, and replacing a block changes the flags, so a reading
 * whose two state words differ in the lock or the flags is dropped.  A torn
 * reading that slips through can only mis-count one sampled access: a
 * statistical effect, never a safety one, as nothing is written but the
 * usage count, by compare-and-swap.
 */
#include "postgres.h"

#include "port/atomics.h"
#include "storage/buf_internals.h"

#include "advice/advice_pool_watch.h"
#include "api/version_compat.h"

#define HEADER_READ_TRIES 3

uint64
advice_clock_hand(void)
{
	uint32		passes = 0;
	int			victim;

	/* NULL: the allocation count the bgwriter reads is left alone */
	victim = StrategySyncStart(&passes, NULL);
	return (uint64) passes * (uint64) NBuffers + (uint64) victim;
}

bool
advice_read_header(int buffer, cachectl_buffer_reading *reading, Oid *tablespace)
{
	BufferDesc *desc = GetBufferDescriptor(buffer);

	for (int attempt = 0; attempt < HEADER_READ_TRIES; attempt++)
	{
		CachectlBufferState before = CACHECTL_READ_BUFFER_STATE(desc);
		CachectlBufferState after;
		BufferTag	tag;

		if (before & BM_LOCKED)
			continue;
		pg_read_barrier();
		tag = desc->tag;
		pg_read_barrier();
		after = CACHECTL_READ_BUFFER_STATE(desc);
		if ((after & BM_LOCKED) || (after & BUF_FLAG_MASK) != (before & BUF_FLAG_MASK))
			continue;
		reading->buffer = (uint32) buffer;
		reading->valid = (after & BM_VALID) != 0;
		reading->usage = (int32) BUF_STATE_GET_USAGECOUNT(after);
		reading->pinned = BUF_STATE_GET_REFCOUNT(after) > 0;
		reading->block_hash = reading->valid ?
			cachectl_block_hash(CACHECTL_TAG_TABLESPACE(tag), CACHECTL_TAG_DATABASE(tag),
								CACHECTL_TAG_FILE_NUMBER(tag), (int32) CACHECTL_TAG_FORK(tag), tag.blockNum) : 0;
		reading->relation = reading->valid ?
			ADVICE_RELATION_KEY(CACHECTL_TAG_DATABASE(tag), CACHECTL_TAG_FILE_NUMBER(tag)) : 0;
		*tablespace = CACHECTL_TAG_TABLESPACE(tag);
		return true;
	}
	return false;
}

bool
advice_lower_usage_from_cap(int buffer)
{
	BufferDesc *desc = GetBufferDescriptor(buffer);
	CachectlBufferState state = CACHECTL_READ_BUFFER_STATE(desc);

	/* as the sweep lowers counts; a header lock holder would write its own word back */
	if ((state & BM_LOCKED) || BUF_STATE_GET_USAGECOUNT(state) != BM_MAX_USAGE_COUNT)
		return false;
	return CACHECTL_SWAP_BUFFER_STATE(desc, &state, state - BUF_USAGECOUNT_ONE);
}
