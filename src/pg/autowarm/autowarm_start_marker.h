/*
 * autowarm_start_marker.h — remembering, across a crash restart, that a
 * database's start load was under way: shared memory is wiped when the
 * server reinitialises after a crash, a file in the data directory is not.
 */
#ifndef PG_CACHECTL_AUTOWARM_START_MARKER_H
#define PG_CACHECTL_AUTOWARM_START_MARKER_H

/* A start load that was under way at this many server starts in a row is not tried again. */
#define AUTOWARM_START_ATTEMPTS 3

/*
 * Whether the start load may run.  False (and why, for the status and the
 * log) when one was under way in this server's life and did not end (a
 * crash ended it), or at AUTOWARM_START_ATTEMPTS server starts in a row.
 * When true, the marker is written: the load is under way.
 */
extern bool autowarm_start_marker_begin(Oid database, char *why, size_t why_size);

/*
 * A newer snapshot was recorded: the next server start loads again (a
 * crash restart of this one still does not).
 */
extern void autowarm_start_marker_snapshot_recorded(Oid database);

/*
 * The start load ended (loaded, stopped, or an ERROR that was recorded):
 * the next start loads again.
 */
extern void autowarm_start_marker_clear(Oid database);

#endif							/* PG_CACHECTL_AUTOWARM_START_MARKER_H */
