/*
 * api.h — the api area: what every SQL function of the shim shares, whichever
 * family it belongs to.  It owns reading the arguments (call_arguments: forks,
 * targets, rates, block ranges, relation lists; block_runs: int8multirange), the
 * settings every family reads (settings), the
 * NULL rule (null_arguments), the wording of every error the core reports
 * (core_errors) and of those PL/pgSQL raises for a caller (user_errors), the
 * privilege check of the internal helpers (internal_entry), the refusal of a
 * committing procedure inside a transaction block (transaction_block), the
 * progress NOTICEs and closing LOG line of long calls (action_progress), the
 * ownership of core objects by memory contexts (core_ownership), and the
 * buffer-manager names that changed between majors (version_compat.h).  Of the
 * shim it calls no other area (the C++ core, through the bridge, only).
 *
 * This header: the settings and services every family uses.  Include after
 * postgres.h.
 */
#ifndef PG_CACHECTL_SHIM_H
#define PG_CACHECTL_SHIM_H

#include "common/relpath.h"
#include "pg_cachectl/bridge_common.h"

/* The bridge numbers forks as the server does (the core asserts the same). */
StaticAssertDecl(CACHECTL_FORK_COUNT == MAX_FORKNUM + 1,
				 "the bridge's fork count is the server's");

/* Defines the settings below (from _PG_init). */
extern void api_define_settings(void);

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

/* The segment size of every relation fork, in bytes. */
#define CACHECTL_SEGMENT_BYTES ((int64) RELSEG_SIZE * BLCKSZ)

#endif							/* PG_CACHECTL_SHIM_H */
