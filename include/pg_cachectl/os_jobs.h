/*
 * os_jobs.h — the OS-job handles of the bridge: dropping a fork from the
 * page cache and prefetching its blocks, each stepped (bridge_common.h).
 */
#ifndef PG_CACHECTL_OS_JOBS_H
#define PG_CACHECTL_OS_JOBS_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Dropping a fork: write back, fsync, DONTNEED per segment (fork_drop.hpp). */
typedef struct cachectl_os_drop cachectl_os_drop;

CACHECTL_BRIDGE_API cachectl_os_drop *cachectl_os_drop_create(const char *base_path, int64_t segment_bytes,
															  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_drop_free(cachectl_os_drop *drop) CACHECTL_NOEXCEPT;

/* Limit a drop (before its first step) to bytes [first_byte, end_byte) of the fork. */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_drop_limit(cachectl_os_drop *drop, int64_t first_byte,
														   int64_t end_byte, cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * One step (bridge_common.h): a chunk's writeback, a segment's fsync or its
 * DONTNEED.  CACHECTL_WRITE_BACK_FAILED with *error saying which call
 * failed on which file (the job has moved past it: after a start-writeback
 * failure the next step goes on with the next chunk, after an fsync or
 * advise failure with the next segment; the shim decides whether to go on
 * at all); any other status is an error to raise.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_drop_step(cachectl_os_drop *drop, cachectl_step *step,
														  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API int64_t cachectl_os_drop_bytes_written_back(const cachectl_os_drop *drop) CACHECTL_NOEXCEPT;

/* Loading block ranges of a fork into the page cache (fork_prefetch.hpp). */
typedef struct cachectl_os_prefetch cachectl_os_prefetch;

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
	int64_t		os_pages_after; /* of those, read (mincore) when last measured */
	int64_t		bytes_advised;
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

/* One step (bridge_common.h); delay_us keeps the rate limit or paces a wait. */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_prefetch_step(cachectl_os_prefetch *prefetch, cachectl_step *step,
															  cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_prefetch_result_of(const cachectl_os_prefetch *prefetch,
														cachectl_prefetch_result *result) CACHECTL_NOEXCEPT;

/*
 * The pause (microseconds) before more work at max_bytes_per_second, with
 * bytes_done in elapsed_us so far (throttle.hpp); 0 when behind the rate.
 */
CACHECTL_BRIDGE_API int64_t cachectl_throttle_delay_us(double max_bytes_per_second, int64_t bytes_done,
													   int64_t elapsed_us) CACHECTL_NOEXCEPT;

/* Where the kernel does not take cache advice for the fork's files. */
typedef enum cachectl_advice_caveat
{
	CACHECTL_CAVEAT_NONE = 0,
	CACHECTL_CAVEAT_TMPFS,		/* kept in memory: advice is ignored */
	CACHECTL_CAVEAT_ZFS			/* cached by the ARC, apart from the page cache */
} cachectl_advice_caveat;

CACHECTL_BRIDGE_API cachectl_advice_caveat cachectl_os_prefetch_caveat(const cachectl_os_prefetch *prefetch) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_OS_JOBS_H */
