/*
 * fork_residency.h — the OS page-cache measurements of a fork that the SQL
 * functions share: a residency report (counts per segment, sums per fork)
 * and a block map (one bit per block whose OS pages are all cached).
 */
#ifndef PG_CACHECTL_FORK_RESIDENCY_H
#define PG_CACHECTL_FORK_RESIDENCY_H

#include "common/relpath.h"

#include "pg_cachectl/residency.h"

/* Probe cachestat once on a file the server owns (see bridge.h). */
extern void probe_os_engine(void);

/* A report freed with owner, on success or error alike. */
extern cachectl_residency_report *os_residency_report_create(MemoryContext owner);

/* Clears the report, then measures the named fork (or every fork) of a locked relation. */
extern void os_residency_scan_relation(cachectl_residency_report *report, Oid relid, int only_fork);

/* Adds the segments of the fork at base_path (none if it does not exist); cancellable. */
extern void os_residency_scan_path(cachectl_residency_report *report, int fork, const char *base_path);

/* The sums over one fork's segments; false when the fork has no file. */
extern bool os_residency_fork_total(const cachectl_residency_report *report, int fork,
									cachectl_residency_counts *total);

/*
 * Sets the bits (varbit order, cleared by the caller, bit_count of them) of
 * the blocks of the fork at path whose OS pages are all cached; cancellable.
 * The work is owned by CurrentMemoryContext until it ends.  With os_dirty_pages
 * given, the same walk counts the blocks' dirty OS pages there; returns
 * whether it could (cachestat; not under mincore).
 */
extern bool os_map_fill(uint8 *bits, int64 bit_count, const char *path, int64 *os_dirty_pages);

/*
 * The OS map of a fork of `blocks` blocks, palloc'd in the current context;
 * its dirty pages as os_map_fill counts them (both may be NULL).
 */
extern uint8 *os_map_of(const char *path, int64 blocks, int64 *os_dirty_pages, bool *os_dirty_known);

/*
 * The runs of blocks of a fork of a relation the caller may read that the
 * OS page cache holds (the set bits of its map), palloc'd, *count of them.
 * The relation is locked for the walk only (its lock let go after it, as
 * `function`, in errors, found it).
 */
extern cachectl_block_range *os_cached_runs(Oid relid, ForkNumber fork, const char *function, size_t *count);

#endif							/* PG_CACHECTL_FORK_RESIDENCY_H */
