/*
 * autowarm_settings.c — the settings of the autowarm worker.  All can be
 * changed with a reload (SIGHUP); the worker itself starts only with
 * pg_cachectl in shared_preload_libraries.
 */
#include "postgres.h"

#include "utils/guc.h"

#include "autowarm/autowarm_settings.h"

bool		cachectl_autowarm_setting = false;
int			cachectl_autowarm_interval_setting = 300;
char	   *cachectl_autowarm_label_setting = NULL;
double		cachectl_autowarm_max_mb_per_sec_setting = 0;
double		cachectl_autowarm_max_share_setting = 0.9;
bool		cachectl_autowarm_follow_setting = true;
char	   *cachectl_autowarm_role_setting = NULL;

/* A label is what snapshot() takes: any text but the empty string. */
static bool
check_label(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || (*newval)[0] == '\0')
	{
		GUC_check_errdetail("The autowarm label must not be empty.");
		return false;
	}
	return true;
}

void
autowarm_define_settings(void)
{
	DefineCustomBoolVariable("cachectl.autowarm",
							 "Records the cache on a primary and loads it back at start and on standbys.",
							 "Needs pg_cachectl in shared_preload_libraries; off stops the worker's activity within a second.",
							 &cachectl_autowarm_setting,
							 false,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("cachectl.autowarm_interval",
							"How often the autowarm worker snapshots the cache on a primary.",
							"0 takes no snapshot on a timer (only at a clean shutdown).",
							&cachectl_autowarm_interval_setting,
							300, 0, 7 * 24 * 3600,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomStringVariable("cachectl.autowarm_label",
							   "The snapshot label the autowarm worker records and loads.",
							   NULL,
							   &cachectl_autowarm_label_setting,
							   "autowarm",
							   PGC_SIGHUP,
							   0,
							   check_label, NULL, NULL);

	DefineCustomRealVariable("cachectl.autowarm_max_mb_per_sec",
							 "The rate the autowarm worker loads at, in MB per second.",
							 "0 sets no limit.",
							 &cachectl_autowarm_max_mb_per_sec_setting,
							 0, 0, 1e6,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	/*
	 * 0.9, not prewarm_max_share's 0.5: a standby that is to take over should
	 * hold as much of the primary's hot set as its pool allows; a tenth is
	 * left to its own readers (and to what replay reads).
	 */
	DefineCustomRealVariable("cachectl.autowarm_max_share",
							 "The largest share of shared_buffers a snapshot's blocks fill after an autowarm load.",
							 "Those an earlier load left there count; when the snapshot does not fit, every relation gets the same share of its blocks.",
							 &cachectl_autowarm_max_share_setting,
							 0.9, 0.0, 1.0,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cachectl.autowarm_follow",
							 "On a standby, loads each newer snapshot that replay brings.",
							 NULL,
							 &cachectl_autowarm_follow_setting,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("cachectl.autowarm_role",
							   "The role the autowarm worker connects as.",
							   "Empty: the bootstrap superuser.  The worker snapshots and loads only what this role may read.",
							   &cachectl_autowarm_role_setting,
							   "",
							   PGC_SIGHUP,
							   0,
							   NULL, NULL, NULL);
}
