/*
 * core_errors.c — the words of every error the core reports.
 *
 * The core says what failed (which call, errno, which file, what stands
 * where a relation file should be); this file alone turns that into a
 * PostgreSQL message, worded as the server words its own file errors.  The
 * core call has returned by the time this runs, so no C++ frame is on the
 * stack when ereport() longjmps.
 */
#include "postgres.h"

#include <errno.h>

#include "storage/fd.h"

#include "api/api.h"

/* "a FIFO" in "relation file "..." is a FIFO, not a regular file". */
static const char *
file_kind_phrase(cachectl_file_kind kind)
{
	switch (kind)
	{
		case CACHECTL_FILE_DIRECTORY:
			return "a directory";
		case CACHECTL_FILE_FIFO:
			return "a FIFO";
		case CACHECTL_FILE_CHARACTER_DEVICE:
			return "a character device";
		case CACHECTL_FILE_BLOCK_DEVICE:
			return "a block device";
		case CACHECTL_FILE_SOCKET:
			return "a socket";
		case CACHECTL_FILE_SYMBOLIC_LINK:
			return "a symbolic link";
		case CACHECTL_FILE_REGULAR:
		case CACHECTL_FILE_UNKNOWN:
			break;
	}
	return "of an unknown kind";
}

/* A failed system call; returns only for a call it does not know. */
static void
raise_file_error(const cachectl_error *error)
{
	/* errcode_for_file_access() maps errno: 42501, 58P01, 58030 ... */
	errno = error->saved_errno;
	switch (error->call)
	{
		case CACHECTL_CALL_OPEN:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", error->path)));
			break;
		case CACHECTL_CALL_STAT:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat file \"%s\": %m", error->path)));
			break;
		case CACHECTL_CALL_STATFS:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat the file system of file \"%s\": %m", error->path)));
			break;
		case CACHECTL_CALL_MMAP:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not map file \"%s\": %m", error->path)));
			break;
		case CACHECTL_CALL_MINCORE:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the OS page-cache state of file \"%s\": %m", error->path),
					 errdetail("The call that failed was mincore().")));
			break;
		case CACHECTL_CALL_CACHESTAT:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the OS page-cache state of file \"%s\": %m", error->path),
					 errdetail("The call that failed was cachestat().")));
			break;
		case CACHECTL_CALL_FADVISE_WILLNEED:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not prefetch file \"%s\": %m", error->path)));
			break;
		case CACHECTL_CALL_SYSCONF_PAGE_SIZE:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the OS page size: %m")));
			break;
		case CACHECTL_CALL_NONE:
		case CACHECTL_CALL_START_WRITEBACK:
		case CACHECTL_CALL_FSYNC:
		case CACHECTL_CALL_FADVISE_DONTNEED:
		case CACHECTL_CALL_WAIT_WRITEBACK:
			break;
	}
}

void
cachectl_raise_core_error(const cachectl_error *error)
{
	switch (error->status)
	{
		case CACHECTL_FILE_ERROR:
			raise_file_error(error);
			break;
		case CACHECTL_UNSAFE_FILE:
			/* the data directory was tampered with: no grant can fix that */
			if (error->file_kind == CACHECTL_FILE_REGULAR)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("relation file \"%s\" belongs to user ID %u, not to the server's user ID %u",
								error->path, error->file_owner, error->server_user),
						 errhint("PostgreSQL keeps only regular files owned by the server's operating-system user "
								 "in the data directory: this one was replaced or changed outside PostgreSQL.")));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("relation file \"%s\" is %s, not a regular file",
							error->path, file_kind_phrase(error->file_kind)),
					 errhint("PostgreSQL keeps only regular files owned by the server's operating-system user "
							 "in the data directory: this one was replaced or changed outside PostgreSQL.")));
			break;
		case CACHECTL_NOT_SUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cachestat is not available"),
					 error->unsupported == CACHECTL_CACHESTAT_FILTERED ?
					 errdetail("A seccomp filter refuses it.") :
					 errdetail("This kernel lacks it; Linux 6.5 and later have it."),
					 errhint("Set cachectl.os_engine to \"auto\" or \"mincore\".")));
			break;
		case CACHECTL_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory"),
					 errdetail("The pg_cachectl core could not allocate memory.")));
			break;
		case CACHECTL_OK:
		case CACHECTL_INVALID_ARGUMENT:
		case CACHECTL_INTERNAL_ERROR:
		case CACHECTL_WRITE_BACK_FAILED:	/* cachectl_report_write_back_failure() */
			break;
	}
	/* the shim passed something impossible, or the core has a bug */
	elog(ERROR, "pg_cachectl core error (status %d, call %d): %s",
		 (int) error->status, (int) error->call, error->bug);
	pg_unreachable();
}

/*
 * As PostgreSQL raises the same failures on its own files: a failed start of
 * writeback like pg_flush_data (a WARNING if data_sync_retry is on, else a
 * PANIC), a failed fsync or wait like the checkpointer's fsync, at
 * data_sync_elevel(ERROR), so with data_sync_retry off the data reaches
 * crash recovery instead of a stale read.
 */
void
cachectl_report_write_back_failure(const cachectl_error *error)
{
	errno = error->saved_errno;
	switch (error->call)
	{
		case CACHECTL_CALL_START_WRITEBACK:
			ereport(data_sync_elevel(WARNING),
					(errcode_for_file_access(),
					 errmsg("could not start writing back file \"%s\" before dropping it from the OS page cache: %m",
							error->path)));
			return;
		case CACHECTL_CALL_WAIT_WRITEBACK:
			/* the wait reports what fsync would have: its level too */
			ereport(data_sync_elevel(ERROR),
					(errcode_for_file_access(),
					 errmsg("could not sync file \"%s\" before dropping it from the OS page cache: %m",
							error->path),
					 errdetail("Its pages were not dropped.")));
			return;
		case CACHECTL_CALL_FSYNC:
			ereport(data_sync_elevel(ERROR),
					(errcode_for_file_access(),
					 errmsg("could not fsync file \"%s\" before dropping it from the OS page cache: %m",
							error->path),
					 errdetail("Its pages were not dropped.")));
			return;
		case CACHECTL_CALL_FADVISE_DONTNEED:
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not drop file \"%s\" from the OS page cache: %m", error->path)));
			return;
		default:
			cachectl_raise_core_error(error);
	}
}
