/*
 * bridge_common.h — what every handle of the C ABI between the PostgreSQL
 * shim (src/pg) and the C++ core (src/core) shares: statuses, errors, the
 * OS page-cache engine, the stepping of long jobs.
 *
 * Plain C types only: the shim includes these headers after postgres.h, the
 * core without any server header.  Every function is noexcept on the C++
 * side: it catches everything and reports through cachectl_error, so no C++
 * exception ever reaches PostgreSQL and no PostgreSQL error ever unwinds
 * through a C++ frame (the core never calls the server).
 */
#ifndef PG_CACHECTL_BRIDGE_COMMON_H
#define PG_CACHECTL_BRIDGE_COMMON_H

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

/* The forks of a relation, numbered as the shim numbers them (ForkNumber). */
#define CACHECTL_FORK_COUNT 4

typedef struct cachectl_block_range
{
	int64_t		first;
	int64_t		count;
} cachectl_block_range;

/*
 * Every long job of the core is driven the same way: the shim calls its
 * step function, which does one bounded unit of work and returns, so the
 * shim checks interrupts, sleeps with its latch and reports progress between
 * steps; a cancelled call frees the job with its memory context.  On
 * CACHECTL_OK, finished says the job is done; otherwise the shim waits
 * delay_us microseconds (0: none) and steps again.
 */
typedef struct cachectl_step
{
	bool		finished;
	int64_t		delay_us;
} cachectl_step;

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

#endif							/* PG_CACHECTL_BRIDGE_COMMON_H */
