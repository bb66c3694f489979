/*
 * cachectl.h — declarations shared by the C shim's files (src/pg).
 *
 * Include after postgres.h.
 */
#ifndef PG_CACHECTL_SHIM_H
#define PG_CACHECTL_SHIM_H

#include "common/relpath.h"
#include "pg_cachectl/bridge_common.h"

/* The bridge numbers forks as the server does (the core asserts the same). */
StaticAssertDecl(CACHECTL_FORK_COUNT == MAX_FORKNUM + 1,
				 "the bridge's fork count is the server's");

/* cachectl.os_engine: how OS page-cache residency is measured */
extern int	cachectl_os_engine_setting;

/* cachectl.progress, cachectl.log_actions: see action_progress.h */
extern bool cachectl_progress_setting;
extern bool cachectl_log_actions_setting;

/* cachectl.prewarm_max_share: the most of shared_buffers one prewarm call fills */
extern double cachectl_prewarm_max_share_setting;

/*
 * Raise the error a core call reported, worded in core_errors.c; never returns.  (PostgreSQL 18
 * replaced the postfix pg_attribute_noreturn() with a prefix pg_noreturn.)
 */
#if PG_VERSION_NUM >= 180000
pg_noreturn extern void cachectl_raise_core_error(const cachectl_error *error);
#else
extern void cachectl_raise_core_error(const cachectl_error *error) pg_attribute_noreturn();
#endif

/*
 * Raise a write-back failure of os_drop at the level PostgreSQL uses for the
 * same failure on its own files; returns only where that level lets it go on.
 */
extern void cachectl_report_write_back_failure(const cachectl_error *error);

/*
 * Tying a core object to a memory context, in three steps: reserve the
 * callback (may raise: nothing exists yet to leak), create the object (the
 * core does not raise), then register it, which allocates nothing and cannot
 * fail, so the object is freed (with free_object) when owner is reset or
 * deleted, by an error too.
 */
extern MemoryContextCallback *cachectl_reserve_free_callback(MemoryContext owner);
extern void cachectl_free_with_context(MemoryContext owner, MemoryContextCallback *callback,
									   void (*free_object) (void *), void *object);

/*
 * The cluster's system identifier as snapshots record it (decimal text): the
 * same on a primary and its physical standbys, different after a dump and
 * restore.
 */
extern text *cluster_system_identifier(void);

/* The segment size of every relation fork, in bytes. */
#define CACHECTL_SEGMENT_BYTES ((int64) RELSEG_SIZE * BLCKSZ)

#endif							/* PG_CACHECTL_SHIM_H */
