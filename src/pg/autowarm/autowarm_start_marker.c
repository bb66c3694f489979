/*
 * autowarm_start_marker.c — a file per database, $PGDATA/pg_cachectl/
 * autowarm_start_<oid>, that exists while its start load runs and holds the
 * postmaster's start time and how many server starts in a row began that
 * load.  A crash in the load (a bad row once segfaulted the planner) leaves
 * it behind: the relaunched worker finds its own server's start time there
 * and does not load again, which without the file made a crash loop of
 * hundreds of restarts a minute.  A new server start tries again, up to
 * AUTOWARM_START_ATTEMPTS times; a newer snapshot sets the count back to
 * none (not the server start it names: a crash restart of the same server
 * still skips, else a bad row that every snapshot keeps would crash it once
 * an interval).
 */
#include "postgres.h"

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/timestamp.h"

#include <sys/stat.h>
#include <unistd.h>

#include "autowarm/autowarm_start_marker.h"

#define MARKER_DIRECTORY "pg_cachectl"

static void
marker_path(Oid database, char *path, size_t size)
{
	snprintf(path, size, "%s/autowarm_start_%u", MARKER_DIRECTORY, database);
}

/* The marker's server start time and attempts; false when there is none (or it is unreadable). */
static bool
read_marker(Oid database, TimestampTz *server_start, int *attempts)
{
	char		path[MAXPGPATH];
	FILE	   *file;
	long long	start;
	int			fields;

	marker_path(database, path, sizeof(path));
	file = AllocateFile(path, "r");
	if (file == NULL)
		return false;
	fields = fscanf(file, "%lld %d", &start, attempts);
	FreeFile(file);
	*server_start = (TimestampTz) start;
	return fields == 2 && *attempts >= 0;
}

static void
write_marker(Oid database, TimestampTz server_start, int attempts)
{
	char		path[MAXPGPATH];
	FILE	   *file;

	/* the data directory is the working directory of every server process */
	if (mkdir(MARKER_DIRECTORY, pg_dir_create_mode) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", MARKER_DIRECTORY)));
	marker_path(database, path, sizeof(path));
	file = AllocateFile(path, "w");
	if (file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	fprintf(file, "%lld %d\n", (long long) server_start, attempts);
	if (FreeFile(file) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
}

bool
autowarm_start_marker_begin(Oid database, char *why, size_t why_size)
{
	TimestampTz server_start;
	int			attempts = 0;

	if (read_marker(database, &server_start, &attempts))
	{
		if (server_start == PgStartTime)
		{
			snprintf(why, why_size,
					 "the start load did not end: the server crashed during it; it is tried again at the next server start");
			return false;
		}
		if (attempts >= AUTOWARM_START_ATTEMPTS)
		{
			snprintf(why, why_size,
					 "the start load did not end at %d server starts in a row; it is tried again once a newer snapshot is recorded",
					 attempts);
			return false;
		}
	}
	write_marker(database, PgStartTime, attempts + 1);
	return true;
}

void
autowarm_start_marker_snapshot_recorded(Oid database)
{
	TimestampTz server_start;
	int			attempts;

	/* the server start it names stays: a crash restart of this server still skips */
	if (read_marker(database, &server_start, &attempts) && attempts > 0)
		write_marker(database, server_start, 0);
}

void
autowarm_start_marker_clear(Oid database)
{
	char		path[MAXPGPATH];

	marker_path(database, path, sizeof(path));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}
