/*
 * buffer_pool_pass.c — the loop over NBuffers.  It is C because it calls
 * server functions that can raise errors (flushing does I/O); the C++ core
 * only answers "is this page wanted?" and tallies outcomes, through noexcept
 * calls, so no error ever unwinds through a C++ frame.
 *
 * The unlocked look at a buffer's tag is only a cheap filter: whatever it
 * selects is looked at again under the header spinlock.  Interrupts are
 * checked between buffers; a check that returns without raising (a harmless
 * interrupt) lets the pass go on.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"

#include "buffer_eviction.h"
#include "buffer_pool_pass.h"
#include "version_compat.h"

static int
wanted_slot(const cachectl_buffer_scan *scan, const BufferTag *tag)
{
	cachectl_relation_file_key key;

	key.tablespace = CACHECTL_TAG_TABLESPACE(*tag);
	key.database = CACHECTL_TAG_DATABASE(*tag);
	key.file_number = CACHECTL_TAG_FILE_NUMBER(*tag);
	return cachectl_buffer_scan_match(scan, &key, CACHECTL_TAG_FORK(*tag));
}

static cachectl_eviction_outcome
outcome_of(BufferEvictionResult result)
{
	switch (result)
	{
		case BUFFER_EVICTED:
			return CACHECTL_EVICTED;
		case BUFFER_FLUSHED_AND_EVICTED:
			return CACHECTL_FLUSHED_AND_EVICTED;
		case BUFFER_SKIPPED:
		case BUFFER_PAGE_GONE:
			break;
	}
	return CACHECTL_SKIPPED;
}

void
buffer_pool_pass_for_scan(cachectl_buffer_scan *scan, BufferPassAction action)
{
	for (int buf_id = 0; buf_id < NBuffers; buf_id++)
	{
		BufferDesc *desc = GetBufferDescriptor(buf_id);
		BufferTag	unlocked_tag;
		BufferHeaderSnapshot header;
		int			slot;

		CHECK_FOR_INTERRUPTS();

		/* unlocked filters, repeated under the spinlock below */
		if ((pg_atomic_read_u32(&desc->state) & BM_TAG_VALID) == 0)
			continue;
		unlocked_tag = desc->tag;
		if (wanted_slot(scan, &unlocked_tag) < 0)
			continue;

		read_buffer_header(buf_id, &header);
		if (!header.valid || (slot = wanted_slot(scan, &header.tag)) < 0)
			continue;

		if (action == BUFFER_PASS_COUNT)
		{
			cachectl_buffer_scan_count_resident(scan, slot, header.dirty,
												header.pins > 0, header.usage_count);
			continue;
		}
		if (action == BUFFER_PASS_COLLECT)
		{
			/* out of memory for a number: the caller raises it after the pass */
			(void) cachectl_buffer_scan_count_resident_block(scan, slot, header.tag.blockNum, header.dirty,
															 header.pins > 0, header.usage_count);
			continue;
		}

		if (header.pins > 0)
			cachectl_buffer_scan_count_eviction(scan, slot, CACHECTL_SKIPPED);
		else
		{
			BufferEvictionResult result = evict_buffer_page(buf_id, &header.tag);

			if (result != BUFFER_PAGE_GONE)
				cachectl_buffer_scan_count_eviction(scan, slot, outcome_of(result));
		}
	}
}

void
buffer_pool_evict_database(Oid database, BufferPassTotals *totals)
{
	memset(totals, 0, sizeof(*totals));
	for (int buf_id = 0; buf_id < NBuffers; buf_id++)
	{
		BufferDesc *desc = GetBufferDescriptor(buf_id);
		BufferHeaderSnapshot header;

		CHECK_FOR_INTERRUPTS();

		/* unlocked filters, repeated under the spinlock below */
		if ((pg_atomic_read_u32(&desc->state) & BM_VALID) == 0)
			continue;
		if (OidIsValid(database) && CACHECTL_TAG_DATABASE(desc->tag) != database)
			continue;

		read_buffer_header(buf_id, &header);
		if (!header.valid)
			continue;
		if (OidIsValid(database) && CACHECTL_TAG_DATABASE(header.tag) != database)
			continue;
		if (header.pins > 0)
		{
			totals->skipped++;
			continue;
		}
		switch (evict_buffer_page(buf_id, &header.tag))
		{
			case BUFFER_FLUSHED_AND_EVICTED:
				totals->flushed++;
				/* fall through */
			case BUFFER_EVICTED:
				totals->evicted++;
				break;
			case BUFFER_SKIPPED:
				totals->skipped++;
				break;
			case BUFFER_PAGE_GONE:
				break;
		}
	}
}
