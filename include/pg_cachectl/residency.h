/*
 * residency.h — the residency-report handle of the bridge: the page-cache state of every
 * segment file of a relation's forks, and a fork's size.
 */
#ifndef PG_CACHECTL_RESIDENCY_H
#define PG_CACHECTL_RESIDENCY_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* The page-cache state of one segment file (or a sum of several). */
typedef struct cachectl_residency_counts
{
	int64_t		size_bytes;
	int64_t		size_pages;		/* pages the file spans, at the OS page size */
	int64_t		os_pages;
	/* only known with cachestat; has_cachestat_counters says whether set */
	int64_t		os_dirty_pages;
	int64_t		os_writeback_pages;
	int64_t		os_evicted_pages;
	int64_t		os_recently_evicted_pages;
	bool		has_cachestat_counters;
} cachectl_residency_counts;

/* One segment file of one fork, as reported by os_residency(). */
typedef struct cachectl_segment_row
{
	int			fork_number;	/* as the shim numbers forks (ForkNumber) */
	int			segment;
	const char *path;			/* owned by the report; valid until it changes */
	cachectl_os_engine engine;	/* the engine that measured this file */
	cachectl_residency_counts counts;
} cachectl_segment_row;

/*
 * A residency report: the segment table of the forks scanned so far, in
 * (fork, segment) order.  Created per SQL call; the shim frees it from a
 * memory-context reset callback, so an error path frees it too.
 */
typedef struct cachectl_residency_report cachectl_residency_report;

CACHECTL_BRIDGE_API cachectl_residency_report *cachectl_residency_report_create(cachectl_os_engine engine,
																			   cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_residency_report_free(cachectl_residency_report *report) CACHECTL_NOEXCEPT;

/* Forget every row, keep the engine choice (for the next relation). */
CACHECTL_BRIDGE_API void cachectl_residency_report_clear(cachectl_residency_report *report) CACHECTL_NOEXCEPT;

/*
 * Measure every segment file of one fork: base_path, base_path.1, ... as md.c
 * reads a fork: until a file is missing or shorter than segment_bytes (the
 * full segment size, RELSEG_SIZE * BLCKSZ).  A fork whose first file is
 * missing adds no row.
 *
 * A job stepped like every long one (bridge_common.h): each call measures
 * one bounded unit (one segment with cachestat, one window with mincore) and
 * keeps its place, so the next call with the same fork goes on from there.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_residency_report_step_fork(cachectl_residency_report *report,
																		int fork_number,
																		const char *base_path,
																		int64_t segment_bytes,
																		cachectl_step *step,
																		cachectl_error *error) CACHECTL_NOEXCEPT;

CACHECTL_BRIDGE_API size_t cachectl_residency_report_row_count(const cachectl_residency_report *report) CACHECTL_NOEXCEPT;
/* Row index, below row_count. */
CACHECTL_BRIDGE_API void cachectl_residency_report_row(const cachectl_residency_report *report, size_t index,
													   cachectl_segment_row *row) CACHECTL_NOEXCEPT;

/* The sum of every row; has_cachestat_counters only if every row has them. */
CACHECTL_BRIDGE_API void cachectl_residency_report_total(const cachectl_residency_report *report,
														 cachectl_residency_counts *total) CACHECTL_NOEXCEPT;

/*
 * The size in bytes of the fork whose first segment file is base_path, from
 * stat(2) of its segment files (see fork_files.hpp); -1 when the fork does
 * not exist.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_fork_size(const char *base_path, int64_t segment_bytes,
													   int64_t *size_bytes,
													   cachectl_error *error) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_RESIDENCY_H */
