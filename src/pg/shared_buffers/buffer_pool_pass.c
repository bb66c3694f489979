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

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api/version_compat.h"
#include "shared_buffers/buffer_eviction.h"
#include "shared_buffers/buffer_pool_pass.h"

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
		case BUFFER_SKIPPED_PINNED:
		case BUFFER_SKIPPED_IN_USE:
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
		if ((CACHECTL_READ_BUFFER_STATE(desc) & BM_TAG_VALID) == 0)
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

/*
 * Evicts the buffers of a database from buf_id *position on, advancing
 * *position past each buffer it has dealt with, so that after an error
 * *position is the buffer that raised it.
 */
static void
evict_database_from(Oid database, volatile int *position, BufferPassTotals *totals)
{
	for (; *position < NBuffers; (*position)++)
	{
		int			buf_id = *position;
		BufferDesc *desc = GetBufferDescriptor(buf_id);
		BufferHeaderSnapshot header;

		CHECK_FOR_INTERRUPTS();

		/* unlocked filters, repeated under the spinlock below */
		if ((CACHECTL_READ_BUFFER_STATE(desc) & BM_VALID) == 0)
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
			totals->buffers_skipped++;
			continue;
		}
		switch (evict_buffer_page(buf_id, &header.tag))
		{
			case BUFFER_FLUSHED_AND_EVICTED:
				totals->buffers_flushed++;
				pg_fallthrough;
			case BUFFER_EVICTED:
				totals->buffers_evicted++;
				break;
			case BUFFER_SKIPPED_PINNED:
			case BUFFER_SKIPPED_IN_USE:
				totals->buffers_skipped++;
				break;
			case BUFFER_PAGE_GONE:
				break;
		}
	}
}

/* The failures a pass over many relations survives: the buffer's write. */
static bool
is_write_failure(const ErrorData *failure)
{
	int			class = ERRCODE_TO_CATEGORY(failure->sqlerrcode);

	return class == ERRCODE_TO_CATEGORY(ERRCODE_IO_ERROR) ||
		class == ERRCODE_TO_CATEGORY(ERRCODE_INSUFFICIENT_RESOURCES);
}

/*
 * Rolls the pass's subtransaction back after a failed write.  Core's abort
 * of that write warns once more for every buffer whose write had failed
 * before ("Multiple failures"): one line per buffer at each new attempt.
 * Those lines go to the server log only; the client gets the pass's one
 * WARNING, whose hint points to the log.
 */
static void
roll_back_keeping_core_warnings_in_log(void)
{
	int			client_level = client_min_messages;

	client_min_messages = ERROR;
	PG_TRY();
	{
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_FINALLY();
	{
		client_min_messages = client_level;
	}
	PG_END_TRY();
}

/* Each buffer left in place is named in the server log, the client is not. */
static void
log_write_failure(const ErrorData *failure)
{
	ereport(LOG_SERVER_ONLY,
			(errcode(failure->sqlerrcode),
			 errmsg("left a dirty shared buffer in place: %s", failure->message),
			 failure->detail ? errdetail("%s", failure->detail) : 0));
}

/*
 * The pass runs inside a subtransaction, started again after each failed
 * write.  Only a (sub)transaction abort undoes what a failed FlushOneBuffer
 * leaves behind — the buffer marked as in I/O, its content lock, our pin —
 * and a PG_CATCH alone would leave all three, so the next backend to start
 * I/O on that buffer would wait forever.  Buffers evicted before the failure
 * stay evicted: eviction is not transactional.  The subtransaction is always
 * rolled back before an error is raised again, so that a caller's own
 * subtransaction (a PL/pgSQL exception block) is the one its handler ends.
 */
void
buffer_pool_evict_database(Oid database, BufferPassTotals *totals)
{
	MemoryContext caller_context = CurrentMemoryContext;
	ResourceOwner caller_owner = CurrentResourceOwner;
	volatile int position = 0;

	memset(totals, 0, sizeof(*totals));
	while (position < NBuffers)
	{
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(caller_context);
		PG_TRY();
		{
			evict_database_from(database, &position, totals);
			ReleaseCurrentSubTransaction();
		}
		PG_CATCH();
		{
			ErrorData  *failure;

			MemoryContextSwitchTo(caller_context);
			failure = CopyErrorData();
			FlushErrorState();
			roll_back_keeping_core_warnings_in_log();
			MemoryContextSwitchTo(caller_context);
			CurrentResourceOwner = caller_owner;

			if (!is_write_failure(failure))
				ReThrowError(failure);
			log_write_failure(failure);
			totals->buffers_failed++;
			if (totals->first_failure == NULL)
				totals->first_failure = failure;
			else
				FreeErrorData(failure);
			position++;			/* leave the failed buffer in place */
		}
		PG_END_TRY();
		MemoryContextSwitchTo(caller_context);
		CurrentResourceOwner = caller_owner;
	}
}

void
buffer_pool_warn_failed_writes(const BufferPassTotals *totals)
{
	if (totals->buffers_failed > 0)
		ereport(WARNING,
				(errcode(totals->first_failure->sqlerrcode),
				 errmsg("could not write %lld dirty shared buffers; they were left in place",
						(long long) totals->buffers_failed),
				 errdetail("The first failure: %s", totals->first_failure->message),
				 errhint("The server's log names every failed write.")));
}
