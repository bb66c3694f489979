/*
 * action_progress.h — what a long call tells while it works and when it is
 * done (DESIGN.md, "SQL API conventions"): at most one progress NOTICE a
 * second when cachectl.progress is on, one LOG line at the end when
 * cachectl.log_actions is on.
 */
#ifndef PG_CACHECTL_ACTION_PROGRESS_H
#define PG_CACHECTL_ACTION_PROGRESS_H

#include "datatype/timestamp.h"

typedef struct ActionProgress
{
	const char *action;			/* the SQL function, e.g. "os_prefetch" */
	TimestampTz started;
	TimestampTz last_notice;
	int64		bytes;			/* the bytes the action has worked on so far */
	int64		forks;			/* the relation forks it finished */
	bool		noticed;		/* a progress NOTICE was given */
	/*
	 * The owner's own reason to end the action early, asked between steps
	 * and in its waits for a rate (the autowarm worker asked to leave a
	 * database); NULL for none.  What was done stays done.
	 */
	bool		(*stop_early) (void);
} ActionProgress;

extern void action_progress_begin(ActionProgress *progress, const char *action);

/* Has the owner asked, through stop_early, to end the action now? */
extern bool action_progress_stop_asked(const ActionProgress *progress);

/* True at most once a second, and only when cachectl.progress is on. */
extern bool action_progress_due(ActionProgress *progress);

/* Seconds since the action began, rounded as every seconds column is. */
extern double action_progress_seconds(const ActionProgress *progress);

/*
 * Seconds from one time to another, rounded to the millisecond: every
 * seconds column and figure of the extension (restore()'s PL/pgSQL rounds
 * alike) reads the same.
 */
extern double seconds_between(TimestampTz from, TimestampTz to);

/* One LOG line (action, forks, MB, MB/s, seconds) if cachectl.log_actions. */
extern void action_progress_end(ActionProgress *progress);

#endif							/* PG_CACHECTL_ACTION_PROGRESS_H */
