/*
 * snapshot_load.h — the one loader of a cache snapshot, which CALL
 * cachectl.restore() and the autowarm worker share: the plan of
 * cachectl_internal.restore_plan(), the OS layer of every relation first,
 * then shared buffers within a budget, a chunk per transaction, paced as a
 * whole (see snapshot_load.c).
 */
#ifndef PG_CACHECTL_SNAPSHOT_LOAD_H
#define PG_CACHECTL_SNAPSHOT_LOAD_H

#include "datatype/timestamp.h"

/*
 * How the caller runs transactions and is told to stop.  A CALL commits
 * through SPI between chunks; a background worker starts and commits its
 * own.  begin_step runs before each step (the plan, then each chunk),
 * end_step after it; in between a transaction is open and SPI connected.
 */
typedef struct SnapshotLoadDriver
{
	void		(*begin_step) (void);
	void		(*end_step) (void);
	/* true when the load should stop between two chunks (NULL: never) */
	bool		(*should_stop) (void);
	/* the pace in MB/s, asked before each chunk (a reload may change it); <= 0: none */
	double		(*rate_mb_per_sec) (void *arg);
	void	   *rate_arg;
} SnapshotLoadDriver;

typedef struct SnapshotLoadRequest
{
	const char *label;
	const char *target;			/* 'both', 'shared' or 'os' */
	bool		missing_only;	/* leave out what is resident now */
	/* the share of shared_buffers the label's shared blocks may fill */
	double		shared_share;
	/*
	 * For a user's CALL: skips are NOTICEs, progress NOTICEs when
	 * cachectl.progress is on, any error but a relation dropped meanwhile
	 * ends the call, and the OS reads are waited for before it returns.  For
	 * the worker: a relation's error is logged and skips it, nothing is
	 * waited for.
	 */
	bool		for_user;
	const char *progress_name;	/* e.g. "restore", for the NOTICE prefix */
} SnapshotLoadRequest;

typedef struct SnapshotLoadResult
{
	int64		chunks_planned;
	/* "block", "name" or "mixed" (see restore()); NULL when nothing was planned */
	const char *matched_by;
	int64		relations_warmed;
	int64		relations_skipped;
	int64		relations_remapped;
	int64		shared_blocks_loaded;
	int64		os_blocks_loaded;
	int64		shared_blocks_left; /* for want of budget */
	bool		stopped;		/* should_stop ended it before the end */
	TimestampTz started;
	TimestampTz finished;
} SnapshotLoadResult;

/*
 * Loads the label's snapshot.  Between the driver's begin_step and end_step
 * a transaction is open and SPI connected.  Errors of the plan (a label
 * that does not exist, bad arguments) are raised as they are.
 */
extern void snapshot_load(const SnapshotLoadRequest *request, const SnapshotLoadDriver *driver,
						  SnapshotLoadResult *result);

#endif							/* PG_CACHECTL_SNAPSHOT_LOAD_H */
