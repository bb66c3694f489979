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
	CACHECTL_FILE_ERROR,		/* a system call failed: call, saved_errno, path */
	CACHECTL_NOT_SUPPORTED,		/* a forced engine this system lacks: unsupported */
	CACHECTL_INVALID_ARGUMENT,	/* the caller passed something impossible: a bug */
	CACHECTL_OUT_OF_MEMORY,
	CACHECTL_INTERNAL_ERROR,	/* an unexpected exception: a bug */
	CACHECTL_UNSAFE_FILE,		/* a relation file that is not a regular file
								 * the server's user owns: path, file_kind or
								 * file_owner */
	CACHECTL_WRITE_BACK_FAILED	/* os_drop: a write-back call failed: call,
								 * saved_errno, path */
} cachectl_status;

/* The system call that failed, for the shim to word its message. */
typedef enum cachectl_call
{
	CACHECTL_CALL_NONE = 0,
	CACHECTL_CALL_OPEN,
	CACHECTL_CALL_STAT,			/* stat or fstat */
	CACHECTL_CALL_STATFS,		/* fstatfs */
	CACHECTL_CALL_MMAP,
	CACHECTL_CALL_MINCORE,
	CACHECTL_CALL_CACHESTAT,
	CACHECTL_CALL_FADVISE_WILLNEED,
	CACHECTL_CALL_SYSCONF_PAGE_SIZE,
	/* os_drop's write-back sequence (CACHECTL_WRITE_BACK_FAILED) */
	CACHECTL_CALL_START_WRITEBACK,	/* sync_file_range(SYNC_FILE_RANGE_WRITE) */
	CACHECTL_CALL_FSYNC,
	CACHECTL_CALL_FADVISE_DONTNEED,
	CACHECTL_CALL_WAIT_WRITEBACK	/* sync_file_range(WAIT_BEFORE|WRITE|WAIT_AFTER) */
} cachectl_call;

/* What stands where a relation file should be (CACHECTL_UNSAFE_FILE). */
typedef enum cachectl_file_kind
{
	CACHECTL_FILE_REGULAR = 0,	/* then the owner is wrong */
	CACHECTL_FILE_DIRECTORY,
	CACHECTL_FILE_FIFO,
	CACHECTL_FILE_CHARACTER_DEVICE,
	CACHECTL_FILE_BLOCK_DEVICE,
	CACHECTL_FILE_SOCKET,
	CACHECTL_FILE_SYMBOLIC_LINK,
	CACHECTL_FILE_UNKNOWN
} cachectl_file_kind;

/* Why cachestat(2) cannot be used on this system, if it cannot. */
typedef enum cachectl_cachestat_support
{
	CACHECTL_CACHESTAT_AVAILABLE = 0,
	CACHECTL_CACHESTAT_MISSING,		/* ENOSYS: kernel older than 6.5 */
	CACHECTL_CACHESTAT_FILTERED		/* EPERM on a file we own: seccomp */
} cachectl_cachestat_support;

#define CACHECTL_PATH_SIZE 1024
#define CACHECTL_MESSAGE_SIZE 256

/*
 * Filled by a failing call with what failed, never with words for a user:
 * the shim words the message (src/pg/api/core_errors.c) after the call returned.
 */
typedef struct cachectl_error
{
	cachectl_status status;
	cachectl_call call;
	int			saved_errno;
	char		path[CACHECTL_PATH_SIZE];	/* the file, or "" */
	cachectl_file_kind file_kind;
	uint32_t	file_owner;		/* a regular file's owner, and the server's user */
	uint32_t	server_user;
	cachectl_cachestat_support unsupported; /* CACHECTL_NOT_SUPPORTED */
	char		bug[CACHECTL_MESSAGE_SIZE]; /* for developers: INVALID_ARGUMENT,
											 * INTERNAL_ERROR */
} cachectl_error;

/* How OS page-cache residency is measured. */
typedef enum cachectl_os_engine
{
	CACHECTL_ENGINE_AUTO = 0,	/* cachestat where it works, else mincore */
	CACHECTL_ENGINE_CACHESTAT,
	CACHECTL_ENGINE_MINCORE
} cachectl_os_engine;

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
