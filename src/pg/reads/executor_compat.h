/*
 * executor_compat.h — the executor and instrumentation names that changed
 * between PostgreSQL 15 and 19, for the read-source tracking: ExecutorRun()
 * lost execute_once in 18, pg_plan_query() gained an ExplainState in 19,
 * the read-time counters were split by buffer kind in 17, and 19 moved a
 * node's buffer usage into NodeInstrumentation's instr.
 */
#ifndef PG_CACHECTL_EXECUTOR_COMPAT_H
#define PG_CACHECTL_EXECUTOR_COMPAT_H

#include "executor/executor.h"
#include "executor/instrument.h"
#include "tcop/tcopprot.h"

#if PG_VERSION_NUM >= 180000
#define CACHECTL_EXECUTOR_RUN(desc)	ExecutorRun((desc), ForwardScanDirection, 0)
#else
#define CACHECTL_EXECUTOR_RUN(desc)	ExecutorRun((desc), ForwardScanDirection, 0, true)
#endif

#if PG_VERSION_NUM >= 190000
#define CACHECTL_PLAN_QUERY(query, text) pg_plan_query((query), (text), CURSOR_OPT_PARALLEL_OK, NULL, NULL)
#define CACHECTL_NODE_BUFFER_USAGE(instrument) (&(instrument)->instr.bufusage)
#else
#define CACHECTL_PLAN_QUERY(query, text) pg_plan_query((query), (text), CURSOR_OPT_PARALLEL_OK, NULL)
#define CACHECTL_NODE_BUFFER_USAGE(instrument) (&(instrument)->bufusage)
#endif

/* The blocks PostgreSQL asked the kernel for: shared, local and temporary. */
#define CACHECTL_KERNEL_READ_BLOCKS(usage) \
	((usage)->shared_blks_read + (usage)->local_blks_read + (usage)->temp_blks_read)

/* Seconds spent reading them (counted only with track_io_timing). */
#if PG_VERSION_NUM >= 170000
#define CACHECTL_READ_SECONDS(usage) \
	(INSTR_TIME_GET_DOUBLE((usage)->shared_blk_read_time) + INSTR_TIME_GET_DOUBLE((usage)->local_blk_read_time) + \
	 INSTR_TIME_GET_DOUBLE((usage)->temp_blk_read_time))
#else
#define CACHECTL_READ_SECONDS(usage) \
	(INSTR_TIME_GET_DOUBLE((usage)->blk_read_time) + INSTR_TIME_GET_DOUBLE((usage)->temp_blk_read_time))
#endif

#endif							/* PG_CACHECTL_EXECUTOR_COMPAT_H */
