/*
 * core_errors.c — turning what a core call reported into a PostgreSQL error.
 *
 * The core has returned by the time this runs, so no C++ frame is on the
 * stack when ereport() longjmps.
 */
#include "postgres.h"

#include <errno.h>

#include "cachectl.h"

void
cachectl_raise_core_error(const cachectl_error *error)
{
	switch (error->status)
	{
		case CACHECTL_FILE_ERROR:
			/* errcode_for_file_access() maps errno: 42501, 58P01, 58030 ... */
			errno = error->saved_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("%s", error->message)));
			break;
		case CACHECTL_UNSAFE_FILE:
			/* the data directory was tampered with: no grant can fix that */
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("%s", error->message),
					 errhint("PostgreSQL keeps only regular files owned by the server's operating-system user "
							 "in the data directory: this one was replaced or changed outside PostgreSQL.")));
			break;
		case CACHECTL_NOT_SUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s", error->message),
					 errhint("Set cachectl.os_engine to \"auto\" or \"mincore\".")));
			break;
		case CACHECTL_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in the pg_cachectl core")));
			break;
		case CACHECTL_OK:
		case CACHECTL_INVALID_ARGUMENT:
		case CACHECTL_INTERNAL_ERROR:
		case CACHECTL_WRITE_BACK_FAILED:	/* raised by its caller, at its level */
			break;
	}
	/* the shim passed something impossible, or the core has a bug */
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("pg_cachectl core error: %s", error->message)));
	pg_unreachable();
}
