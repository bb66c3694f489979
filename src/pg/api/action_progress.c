/*
 * action_progress.c — progress NOTICEs and the closing LOG line of long calls.
 */
#include "postgres.h"

#include <math.h>

#include "utils/timestamp.h"

#include "api/action_progress.h"
#include "api/api.h"

void
action_progress_begin(ActionProgress *progress, const char *action)
{
	progress->action = action;
	progress->started = GetCurrentTimestamp();
	progress->last_notice = progress->started;
	progress->bytes = 0;
	progress->forks = 0;
	progress->noticed = false;
	progress->stop_early = NULL;
}

bool
action_progress_stop_asked(const ActionProgress *progress)
{
	return progress->stop_early != NULL && progress->stop_early();
}

bool
action_progress_due(ActionProgress *progress)
{
	TimestampTz now;

	if (!cachectl_progress_setting)
		return false;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(progress->last_notice, now, 1000))
		return false;
	progress->last_notice = now;
	progress->noticed = true;
	return true;
}

double
seconds_between(TimestampTz from, TimestampTz to)
{
	return rint((double) (to - from) / 1000.0) / 1000.0;
}

double
action_progress_seconds(const ActionProgress *progress)
{
	return seconds_between(progress->started, GetCurrentTimestamp());
}

void
action_progress_end(ActionProgress *progress)
{
	double		seconds = action_progress_seconds(progress);
	double		megabytes = (double) progress->bytes / (1024.0 * 1024.0);

	if (!cachectl_log_actions_setting)
		return;
	ereport(LOG,
			(errmsg("cachectl.%s: " INT64_FORMAT " relation forks, %.1f MB in %.3f s (%.1f MB/s)",
					progress->action, progress->forks, megabytes, seconds,
					seconds > 0 ? megabytes / seconds : 0.0)));
}
