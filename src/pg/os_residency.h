/*
 * os_residency.h — the OS residency measurements other SQL functions reuse
 * (os_drop measures before and after with them).
 */
#ifndef PG_CACHECTL_OS_RESIDENCY_H
#define PG_CACHECTL_OS_RESIDENCY_H

#include "pg_cachectl/bridge.h"

/*
 * A fork's size in blocks, from stat() of its segment files (never opened:
 * smgr would open them read-write, which a report must not need); -1 when
 * the fork does not exist.
 */
extern int64 fork_blocks_from_files(const char *base_path);

/* The kernel's page size; an error if it cannot be read. */
extern int64 os_page_size(void);

/* A report freed with owner, on success or error alike. */
extern cachectl_residency_report *os_residency_report_create(MemoryContext owner);

/* Clears the report, then measures the named fork (or every fork) of a locked relation. */
extern void os_residency_scan_relation(cachectl_residency_report *report, Oid relid, int only_fork);

/* Adds the segments of the fork at base_path (none if it does not exist); cancellable. */
extern void os_residency_scan_path(cachectl_residency_report *report, int fork, const char *base_path);

/* The sums over one fork's segments; false when the fork has no file. */
extern bool os_residency_fork_total(const cachectl_residency_report *report, int fork,
									cachectl_residency_counts *total);

#endif							/* PG_CACHECTL_OS_RESIDENCY_H */
