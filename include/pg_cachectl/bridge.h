/*
 * bridge.h — the C ABI between the PostgreSQL shim (src/pg) and the C++ core
 * (src/core).
 *
 * Plain C types only: the shim includes this after postgres.h, the core
 * includes it without any server header.  Every function is noexcept on the
 * C++ side: it catches everything and reports through cachectl_error, so no
 * C++ exception ever reaches PostgreSQL and no PostgreSQL error ever unwinds
 * through a C++ frame (the core never calls the server).
 */
#ifndef PG_CACHECTL_BRIDGE_H
#define PG_CACHECTL_BRIDGE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
#define CACHECTL_NOEXCEPT noexcept
extern "C"
{
#else
#define CACHECTL_NOEXCEPT
#endif

/* Called only from the shim inside the same library: never exported. */
#define CACHECTL_BRIDGE_API __attribute__((visibility("hidden")))

typedef enum cachectl_status
{
	CACHECTL_OK = 0,
	CACHECTL_CANCELLED,			/* the interrupt flag was seen; call again to resume */
	CACHECTL_FILE_ERROR,		/* a system call failed; saved_errno says why */
	CACHECTL_NOT_SUPPORTED,		/* an engine was forced that this system lacks */
	CACHECTL_INVALID_ARGUMENT,	/* the caller passed something impossible */
	CACHECTL_OUT_OF_MEMORY,
	CACHECTL_INTERNAL_ERROR,	/* an unexpected exception: a bug */
	CACHECTL_UNSAFE_FILE		/* a relation file that is not a regular file
								 * the server's user owns; message says which */
} cachectl_status;

#define CACHECTL_MESSAGE_SIZE 512

/* Filled by a failing call; the shim raises it after the call returned. */
typedef struct cachectl_error
{
	cachectl_status status;
	int			saved_errno;	/* for CACHECTL_FILE_ERROR */
	char		message[CACHECTL_MESSAGE_SIZE];
} cachectl_error;

/* How OS page-cache residency is measured. */
typedef enum cachectl_os_engine
{
	CACHECTL_ENGINE_AUTO = 0,	/* cachestat where it works, else mincore */
	CACHECTL_ENGINE_CACHESTAT,
	CACHECTL_ENGINE_MINCORE
} cachectl_os_engine;

/* Why cachestat(2) cannot be used on this system, if it cannot. */
typedef enum cachectl_cachestat_support
{
	CACHECTL_CACHESTAT_AVAILABLE = 0,
	CACHECTL_CACHESTAT_MISSING,		/* ENOSYS: kernel older than 6.5 */
	CACHECTL_CACHESTAT_FILTERED		/* EPERM on a file we own: seccomp */
} cachectl_cachestat_support;

/* The page-cache state of one segment file (or a sum of several). */
typedef struct cachectl_residency_counts
{
	int64_t		size_bytes;
	int64_t		os_pages;		/* pages the file spans, at the OS page size */
	int64_t		cached_pages;
	/* only known with cachestat; has_cachestat_counters says whether set */
	int64_t		dirty_pages;
	int64_t		writeback_pages;
	int64_t		evicted_pages;
	int64_t		recently_evicted_pages;
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
 * Polls *cancel_flag between bounded units of work; when it is set, returns
 * CACHECTL_CANCELLED and keeps its place: calling again with the same
 * arguments resumes where it stopped (at least one unit of work is done per
 * call, so a flag that stays set cannot stall it).
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_residency_report_scan_fork(cachectl_residency_report *report,
																		int fork_number,
																		const char *base_path,
																		int64_t segment_bytes,
																		const volatile sig_atomic_t *cancel_flag,
																		cachectl_error *error) CACHECTL_NOEXCEPT;

CACHECTL_BRIDGE_API size_t cachectl_residency_report_row_count(const cachectl_residency_report *report) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API bool cachectl_residency_report_row(const cachectl_residency_report *report, size_t index,
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

/*
 * A buffer-pool pass: the relation forks it looks for and what it found.
 * The shim's C loop walks the pool (it calls server functions that can
 * raise errors); for each buffer it asks match() whether the buffer's page is
 * wanted and reports the outcome with count_*().  Freed like a report.
 */
#define CACHECTL_FORK_COUNT 4

typedef struct cachectl_relation_file_key
{
	uint32_t	tablespace;
	uint32_t	database;
	uint32_t	file_number;
} cachectl_relation_file_key;

typedef enum cachectl_eviction_outcome
{
	CACHECTL_EVICTED = 0,
	CACHECTL_FLUSHED_AND_EVICTED,
	CACHECTL_SKIPPED			/* pinned, or in use when rechecked */
} cachectl_eviction_outcome;

/* One relation fork's result, in (relation_id, fork_number) order. */
typedef struct cachectl_buffer_row
{
	uint32_t	relation_id;
	int			fork_number;
	int64_t		blocks;			/* the fork's size in blocks */
	int64_t		buffers;
	int64_t		dirty;
	int64_t		pinned;
	int64_t		usage_count_sum;
	int64_t		evicted;
	int64_t		flushed;
	int64_t		skipped;
} cachectl_buffer_row;

typedef struct cachectl_buffer_scan cachectl_buffer_scan;

CACHECTL_BRIDGE_API cachectl_buffer_scan *cachectl_buffer_scan_create(cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_buffer_scan_free(cachectl_buffer_scan *scan) CACHECTL_NOEXCEPT;

/*
 * Want the forks of one relation whose fork_blocks[fork] is >= 0 (the fork's
 * size in blocks, reported back in its row); -1 leaves a fork out.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_want(cachectl_buffer_scan *scan,
															  const cachectl_relation_file_key *key,
															  uint32_t relation_id,
															  const int64_t fork_blocks[CACHECTL_FORK_COUNT],
															  cachectl_error *error) CACHECTL_NOEXCEPT;

/* Sort the wanted set: call once, after every want() and before match(). */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_seal(cachectl_buffer_scan *scan,
															  cachectl_error *error) CACHECTL_NOEXCEPT;

/* The slot of a buffer's page if it is wanted, else -1.  Cheap; no allocation. */
CACHECTL_BRIDGE_API int cachectl_buffer_scan_match(const cachectl_buffer_scan *scan,
												   const cachectl_relation_file_key *key,
												   int fork_number) CACHECTL_NOEXCEPT;

CACHECTL_BRIDGE_API void cachectl_buffer_scan_count_resident(cachectl_buffer_scan *scan, int slot, bool dirty,
															 bool pinned, int usage_count) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_buffer_scan_count_eviction(cachectl_buffer_scan *scan, int slot,
															 cachectl_eviction_outcome outcome) CACHECTL_NOEXCEPT;

/* Build the result rows once the pass is over. */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_finish(cachectl_buffer_scan *scan,
																cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API size_t cachectl_buffer_scan_row_count(const cachectl_buffer_scan *scan) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_row(const cachectl_buffer_scan *scan, size_t index,
												  cachectl_buffer_row *row) CACHECTL_NOEXCEPT;

/*
 * Probe cachestat(2) once per process on a file the caller owns (the server
 * passes PG_VERSION) and remember the answer.
 */
CACHECTL_BRIDGE_API cachectl_cachestat_support cachectl_probe_cachestat(const char *owned_file_path) CACHECTL_NOEXCEPT;

/*
 * The engine that measures path under the given choice (the data directory's
 * answer when path is PG_VERSION).  Fails like a scan would, e.g. with
 * CACHECTL_NOT_SUPPORTED for a forced cachestat that this system lacks.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_resolve_engine(cachectl_os_engine choice, const char *path,
															cachectl_os_engine *resolved,
															cachectl_error *error) CACHECTL_NOEXCEPT;

/* The kernel's page size (sysconf), the unit of every page count; -1 if unknown. */
CACHECTL_BRIDGE_API int64_t cachectl_os_page_size(void) CACHECTL_NOEXCEPT;

CACHECTL_BRIDGE_API const char *cachectl_engine_name(cachectl_os_engine engine) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_BRIDGE_H */
