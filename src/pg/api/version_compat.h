/*
 * version_compat.h — the buffer-manager and relation-file names that changed
 * between PostgreSQL 15 and 19, behind one set of macros.
 *
 * Built and tested on 15, 18 and 19; the 16-17 branches follow those
 * versions' headers (RelFileNode became RelFileLocator in 16, tag macros
 * became inline functions in 16, relpath*() returns a struct in 18).  19
 * widens the buffer state word to 64 bits and moves the content lock into
 * it: UnlockBufHdr() then takes only the descriptor, a changed state goes
 * through UnlockBufHdrExt(), and the free list is gone (see the buffer-state
 * section below).
 */
#ifndef PG_CACHECTL_VERSION_COMPAT_H
#define PG_CACHECTL_VERSION_COMPAT_H

#include "common/relpath.h"
#include "storage/buf_internals.h"
#include "utils/rel.h"
#include "utils/relmapper.h"

/*
 * 19 compiles extensions with -Wimplicit-fallthrough=5, where a comment no
 * longer marks an intended fall-through; it defines pg_fallthrough for that,
 * older versions do not.
 */
#ifndef pg_fallthrough
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define pg_fallthrough __attribute__((fallthrough))
#endif
#endif
#endif
#ifndef pg_fallthrough
#define pg_fallthrough ((void) 0)
#endif

/*
 * A shared buffer's state word: refcount, usage count and flags, plus (19)
 * the content lock.  LockBufHdr() returns it with the header spinlock held.
 *
 * CACHECTL_UNLOCK_BUFFER_HEADER releases the spinlock without a change.
 * CACHECTL_UNLOCK_BUFFER_HEADER_INVALIDATED releases it while clearing every
 * flag and the usage count, as step 5 of the eviction protocol needs, and
 * keeps the refcount (our pin, released by the caller).  On 19 it also keeps
 * the content lock, which the caller holds exclusively and releases later:
 * its share count and lock bits sit above the flags and are not touched, and
 * its two waiter flags sit among the flags and are kept too.  With our pin
 * the only one no backend can be queued on that lock (a waiter holds a pin
 * first), so keeping them changes nothing today; clearing one that was set
 * would lose a wake-up, keeping one costs at most an empty wake-up pass.
 *
 * CACHECTL_SWAP_BUFFER_STATE is the compare-and-swap PinBuffer and the
 * clock sweep change the word with (the sizing advice lowers a usage count
 * with it).
 *
 * CACHECTL_RETURN_TO_FREE_LIST hands an invalidated, unpinned buffer to the
 * free list; 19 has none: its clock sweep takes an unpinned buffer whose
 * usage count is 0, which an invalidated buffer is.
 */
#if PG_VERSION_NUM >= 190000

typedef uint64 CachectlBufferState;

#define CACHECTL_READ_BUFFER_STATE(desc)	pg_atomic_read_u64(&(desc)->state)
#define CACHECTL_SWAP_BUFFER_STATE(desc, expected, wanted) \
	pg_atomic_compare_exchange_u64(&(desc)->state, (expected), (wanted))
#define CACHECTL_UNLOCK_BUFFER_HEADER(desc, state) UnlockBufHdr(desc)
#define CACHECTL_UNLOCK_BUFFER_HEADER_INVALIDATED(desc, state) \
	((void) UnlockBufHdrExt((desc), (state), 0, \
							(BUF_FLAG_MASK & ~(BM_LOCK_HAS_WAITERS | BM_LOCK_WAKE_IN_PROGRESS)) | \
							BUF_USAGECOUNT_MASK, \
							0))
#define CACHECTL_RETURN_TO_FREE_LIST(desc)	((void) (desc))

#else							/* 15 to 18 */

typedef uint32 CachectlBufferState;

#define CACHECTL_READ_BUFFER_STATE(desc)	pg_atomic_read_u32(&(desc)->state)
#define CACHECTL_SWAP_BUFFER_STATE(desc, expected, wanted) \
	pg_atomic_compare_exchange_u32(&(desc)->state, (expected), (wanted))
#define CACHECTL_UNLOCK_BUFFER_HEADER(desc, state) UnlockBufHdr((desc), (state))
#define CACHECTL_UNLOCK_BUFFER_HEADER_INVALIDATED(desc, state) \
	UnlockBufHdr((desc), (state) & ~(BUF_FLAG_MASK | BUF_USAGECOUNT_MASK))
#define CACHECTL_RETURN_TO_FREE_LIST(desc)	StrategyFreeBuffer(desc)

#endif

#if PG_VERSION_NUM >= 160000

#define CACHECTL_TAG_TABLESPACE(tag)	((tag).spcOid)
#define CACHECTL_TAG_DATABASE(tag)		((tag).dbOid)
#define CACHECTL_TAG_FILE_NUMBER(tag)	((tag).relNumber)
#define CACHECTL_TAG_FORK(tag)			((tag).forkNum)
#define CACHECTL_TAGS_EQUAL(a, b)		BufferTagsEqual(&(a), &(b))
#define CACHECTL_CLEAR_TAG(tag)			ClearBufferTag(&(tag))
#define CACHECTL_READ_RECENT_BUFFER(tag, buffer) \
	ReadRecentBuffer(BufTagGetRelFileLocator(&(tag)), (tag).forkNum, (tag).blockNum, (buffer))

#define CACHECTL_REL_TABLESPACE(rel)	((rel)->rd_locator.spcOid)
#define CACHECTL_REL_DATABASE(rel)		((rel)->rd_locator.dbOid)
#define CACHECTL_REL_FILE_NUMBER(rel)	((rel)->rd_locator.relNumber)

#else							/* 15 */

#define CACHECTL_TAG_TABLESPACE(tag)	((tag).rnode.spcNode)
#define CACHECTL_TAG_DATABASE(tag)		((tag).rnode.dbNode)
#define CACHECTL_TAG_FILE_NUMBER(tag)	((tag).rnode.relNode)
#define CACHECTL_TAG_FORK(tag)			((tag).forkNum)
#define CACHECTL_TAGS_EQUAL(a, b)		BUFFERTAGS_EQUAL((a), (b))
#define CACHECTL_CLEAR_TAG(tag)			CLEAR_BUFFERTAG(tag)
#define CACHECTL_READ_RECENT_BUFFER(tag, buffer) \
	ReadRecentBuffer((tag).rnode, (tag).forkNum, (tag).blockNum, (buffer))

#define CACHECTL_REL_TABLESPACE(rel)	((rel)->rd_node.spcNode)
#define CACHECTL_REL_DATABASE(rel)		((rel)->rd_node.dbNode)
#define CACHECTL_REL_FILE_NUMBER(rel)	((rel)->rd_node.relNode)

#endif

/*
 * The path of a permanent relation's fork from its file key, palloc'd, and
 * the relfilenode of a mapped catalog (whose pg_class.relfilenode is 0).
 */
#if PG_VERSION_NUM >= 180000
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	pstrdup(relpathperm(((RelFileLocator) {(tablespace), (database), (file_number)}), (fork)).str)
#elif PG_VERSION_NUM >= 160000
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	relpathperm(((RelFileLocator) {(tablespace), (database), (file_number)}), (fork))
#else
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	relpathperm(((RelFileNode) {(tablespace), (database), (file_number)}), (fork))
#endif

/* EXECUTE and the like on a function (16 made the check per catalog). */
#if PG_VERSION_NUM >= 160000
#define CACHECTL_FUNCTION_ACLCHECK(function, role, mode) \
	object_aclcheck(ProcedureRelationId, (function), (role), (mode))
#else
#define CACHECTL_FUNCTION_ACLCHECK(function, role, mode) pg_proc_aclcheck((function), (role), (mode))
#endif

/* The file number of a mapped relation (one whose pg_class.relfilenode is 0). */
#if PG_VERSION_NUM >= 160000
#define CACHECTL_MAPPED_FILE_NUMBER_OF(relid, shared) RelationMapOidToFilenumber((relid), (shared))
#else
#define CACHECTL_MAPPED_FILE_NUMBER_OF(relid, shared) RelationMapOidToFilenode((relid), (shared))
#endif
#define CACHECTL_MAPPED_FILE_NUMBER(relid) CACHECTL_MAPPED_FILE_NUMBER_OF((relid), false)

/* A fork's path relative to the data directory, palloc'd. */
#if PG_VERSION_NUM >= 180000
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	pstrdup(relpathbackend((rel)->rd_locator, (rel)->rd_backend, (fork)).str)
#elif PG_VERSION_NUM >= 160000
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	relpathbackend((rel)->rd_locator, (rel)->rd_backend, (fork))
#else
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	relpathbackend((rel)->rd_node, (rel)->rd_backend, (fork))
#endif

/* make_range() takes a soft-error context from 16 on (none: errors are thrown). */
#if PG_VERSION_NUM >= 160000
#define CACHECTL_MAKE_RANGE(typcache, lower, upper) make_range((typcache), (lower), (upper), false, NULL)
#else
#define CACHECTL_MAKE_RANGE(typcache, lower, upper) make_range((typcache), (lower), (upper), false)
#endif

/*
 * CACHECTL_MY_PROC_NUMBER: this process's index among the PGPROCs, to wake
 * it through GetPGProcByNumber(); 17 made it a global (MyProcNumber) and
 * dropped PGPROC's pgprocno.
 */
#if PG_VERSION_NUM >= 170000
#define CACHECTL_MY_PROC_NUMBER MyProcNumber
#else
#define CACHECTL_MY_PROC_NUMBER (MyProc->pgprocno)
#endif

#endif							/* PG_CACHECTL_VERSION_COMPAT_H */
