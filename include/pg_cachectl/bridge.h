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
#include <stddef.h>
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
	CACHECTL_UNSAFE_FILE,		/* a relation file that is not a regular file
								 * the server's user owns; message says which */
	CACHECTL_WRITE_BACK_FAILED	/* os_drop: a write-back call failed; see cachectl_drop_failure */
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

/*
 * ---- OS page-cache control: drop, prefetch, block maps ----
 *
 * Each is a job created per fork and driven by the shim one bounded step at
 * a time, so the shim checks interrupts, sleeps (throttle, polling) with its
 * latch, and reports progress between steps.  Jobs are freed like reports.
 */

/* Dropping a fork: write back, fsync, DONTNEED per segment (fork_drop.hpp). */
typedef struct cachectl_os_drop cachectl_os_drop;

typedef enum cachectl_drop_call
{
	CACHECTL_DROP_START_WRITEBACK = 0,	/* sync_file_range(SYNC_FILE_RANGE_WRITE) */
	CACHECTL_DROP_FSYNC,
	CACHECTL_DROP_ADVISE,		/* posix_fadvise(POSIX_FADV_DONTNEED) */
	CACHECTL_DROP_WAIT_WRITEBACK	/* sync_file_range(WAIT_BEFORE|WRITE|WAIT_AFTER) */
} cachectl_drop_call;

typedef struct cachectl_drop_failure
{
	cachectl_drop_call call;
	int			saved_errno;
	char		path[CACHECTL_MESSAGE_SIZE];
} cachectl_drop_failure;

CACHECTL_BRIDGE_API cachectl_os_drop *cachectl_os_drop_create(const char *base_path, int64_t segment_bytes,
															  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_drop_free(cachectl_os_drop *drop) CACHECTL_NOEXCEPT;

/* Limit a drop (before its first step) to bytes [first_byte, end_byte) of the fork. */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_drop_limit(cachectl_os_drop *drop, int64_t first_byte,
														   int64_t end_byte, cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * One step.  CACHECTL_OK with *finished telling whether the fork is done;
 * CACHECTL_WRITE_BACK_FAILED with *failure saying which call failed on which
 * file (the job has moved past it: after a start-writeback failure the next
 * step goes on with the next chunk, after an fsync or advise failure with
 * the next segment — the shim decides whether to go on at all); any other
 * status is an error to raise.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_drop_step(cachectl_os_drop *drop, bool *finished,
														  cachectl_drop_failure *failure,
														  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API int64_t cachectl_os_drop_bytes_written_back(const cachectl_os_drop *drop) CACHECTL_NOEXCEPT;

/* Loading block ranges of a fork into the page cache (fork_prefetch.hpp). */
typedef struct cachectl_os_prefetch cachectl_os_prefetch;

typedef struct cachectl_block_range
{
	int64_t		first;
	int64_t		count;
} cachectl_block_range;

typedef struct cachectl_prefetch_options
{
	cachectl_os_engine engine;
	double		max_bytes_per_second;	/* 0: no limit */
	bool		wait;			/* wait until the pages are read */
} cachectl_prefetch_options;

typedef struct cachectl_prefetch_result
{
	int64_t		blocks_requested;	/* asked for and inside the fork */
	int64_t		blocks_past_end;	/* asked for, beyond the fork's files */
	int64_t		pages_requested;
	int64_t		pages_resident; /* read (mincore) when last measured */
	int64_t		bytes_advised;
	int64_t		willneed_calls;
	int64_t		cap_bytes;		/* the per-call cap used */
	bool		stalled;		/* waiting gave up: no page was read for seconds */
} cachectl_prefetch_result;

/* The blocks of ranges[0 .. range_count) (any order; merged). */
CACHECTL_BRIDGE_API cachectl_os_prefetch *cachectl_os_prefetch_create(const char *base_path, int64_t segment_bytes,
																	  int64_t block_size,
																	  const cachectl_block_range *ranges,
																	  size_t range_count,
																	  const cachectl_prefetch_options *options,
																	  cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The blocks whose bits are set in a varbit-ordered bit string, which the
 * caller keeps until the job is freed: it is read a segment file at a time,
 * and the bits past the fork's end are only counted (blocks_past_end).
 */
CACHECTL_BRIDGE_API cachectl_os_prefetch *cachectl_os_prefetch_create_from_map(const char *base_path,
																			   int64_t segment_bytes,
																			   int64_t block_size,
																			   const uint8_t *bits, int64_t bit_count,
																			   const cachectl_prefetch_options *options,
																			   cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_prefetch_free(cachectl_os_prefetch *prefetch) CACHECTL_NOEXCEPT;

/* One step; on CACHECTL_OK, *finished, or sleep *delay_us then step again. */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_prefetch_step(cachectl_os_prefetch *prefetch, bool *finished,
															  int64_t *delay_us,
															  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_prefetch_result_of(const cachectl_os_prefetch *prefetch,
														cachectl_prefetch_result *result) CACHECTL_NOEXCEPT;

/*
 * The pause (microseconds) before more work at max_bytes_per_second, with
 * bytes_done in elapsed_us so far (throttle.hpp); 0 when behind the rate.
 */
CACHECTL_BRIDGE_API int64_t cachectl_throttle_delay_us(double max_bytes_per_second, int64_t bytes_done,
													   int64_t elapsed_us) CACHECTL_NOEXCEPT;

/* Why advice may not work for these files (tmpfs, ZFS), or "" (owned by the job). */
CACHECTL_BRIDGE_API const char *cachectl_os_prefetch_caveat(const cachectl_os_prefetch *prefetch) CACHECTL_NOEXCEPT;

/*
 * The OS block map of a fork, written in place into bits (bit_count bits in
 * varbit order, cleared by the caller), which the caller owns and keeps
 * alive until the job is freed (fork_block_map.hpp).
 */
typedef struct cachectl_os_map cachectl_os_map;

CACHECTL_BRIDGE_API cachectl_os_map *cachectl_os_map_create(uint8_t *bits, int64_t bit_count, const char *base_path,
															int64_t segment_bytes, int64_t block_size,
															cachectl_os_engine engine,
															cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_map_free(cachectl_os_map *map) CACHECTL_NOEXCEPT;

/* Works until done (CACHECTL_OK) or *cancel_flag (CACHECTL_CANCELLED: call again to resume). */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_map_run(cachectl_os_map *map,
														const volatile sig_atomic_t *cancel_flag,
														cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * A block map drawn for psql (block_drawing.hpp) into out (out_size bytes,
 * NUL-terminated; CACHECTL_DRAWING_EXTRA more than width is always enough).
 */
#define CACHECTL_DRAWING_EXTRA 256
CACHECTL_BRIDGE_API cachectl_status cachectl_draw_block_map(const uint8_t *bits, int64_t bit_count, int width,
															char *out, size_t out_size,
															cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * ---- Both layers: shared buffers' block numbers against the OS cache ----
 */

/* Keep the block numbers of resident buffers too: call before seal(). */
CACHECTL_BRIDGE_API cachectl_status cachectl_buffer_scan_collect_blocks(cachectl_buffer_scan *scan,
																		cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * count_resident() plus the buffer's block number.  Returns false when the
 * core ran out of memory for the number (the counts stay right; the shim
 * raises an error once the pass is over).
 */
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_count_resident_block(cachectl_buffer_scan *scan, int slot,
																   uint32_t block, bool dirty, bool pinned,
																   int usage_count) CACHECTL_NOEXCEPT;

/* The sorted block numbers found for row `index` (valid until the scan is freed). */
CACHECTL_BRIDGE_API bool cachectl_buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index,
														 const uint32_t **blocks,
														 size_t *count) CACHECTL_NOEXCEPT;

/* How many of the sorted blocks have their bit set in a varbit-ordered map. */
CACHECTL_BRIDGE_API cachectl_status cachectl_count_blocks_in_map(const uint32_t *blocks, size_t count,
																 const uint8_t *bits, int64_t bit_count,
																 int64_t *found,
																 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The cached OS pages of the sorted blocks of the fork at base_path
 * (block_residency.hpp); missing segment files count nothing.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_cached_pages_of_blocks(const char *base_path, int64_t segment_bytes,
																	int64_t block_size, const uint32_t *blocks,
																	size_t count, cachectl_os_engine engine,
																	int64_t *pages,
																	cachectl_error *error) CACHECTL_NOEXCEPT;

/* The two-layer strip of a fork (block_lists.hpp), like cachectl_draw_block_map. */
CACHECTL_BRIDGE_API cachectl_status cachectl_draw_two_layers(const uint32_t *shared_blocks, size_t count,
															 const uint8_t *os_bits, int64_t bit_count, int width,
															 char *out, size_t out_size,
															 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The runs of set bits of a map: with runs NULL, only *count is set; else
 * up to capacity runs are written (call once to count, once to fill).
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_map_runs(const uint8_t *bits, int64_t bit_count,
													  cachectl_block_range *runs, size_t capacity,
													  size_t *count, cachectl_error *error) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_BRIDGE_H */
