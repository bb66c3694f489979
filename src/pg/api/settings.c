/*
 * settings.c — the settings every family of SQL functions reads (declared in
 * api.h): how OS residency is measured, progress and action logging, and the
 * share of the pool one prewarm call may fill.  The areas with settings of
 * their own (autowarm, reads) define them themselves.
 */
#include "postgres.h"

#include "utils/guc.h"

#include "api/api.h"

int			cachectl_os_engine_setting = CACHECTL_ENGINE_AUTO;
bool		cachectl_progress_setting = false;
bool		cachectl_log_actions_setting = false;
double		cachectl_prewarm_max_share_setting = 0.5;

static const struct config_enum_entry os_engine_options[] = {
	{"auto", CACHECTL_ENGINE_AUTO, false},
	{"cachestat", CACHECTL_ENGINE_CACHESTAT, false},
	{"mincore", CACHECTL_ENGINE_MINCORE, false},
	{NULL, 0, false}
};

void
api_define_settings(void)
{
	DefineCustomEnumVariable("cachectl.os_engine",
							 "Chooses how OS page-cache residency is measured.",
							 "auto uses cachestat(2) where the kernel has it and it can be trusted, "
							 "else mincore(2); cachestat and mincore force one engine.",
							 &cachectl_os_engine_setting,
							 CACHECTL_ENGINE_AUTO,
							 os_engine_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cachectl.progress",
							 "Reports the progress of long pg_cachectl calls as NOTICE messages.",
							 "At most one message a second, for calls that run longer than that.",
							 &cachectl_progress_setting,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cachectl.log_actions",
							 "Logs one line for each pg_cachectl action: what, how much, how fast.",
							 NULL,
							 &cachectl_log_actions_setting,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * Superuser-only: the cap protects the pool from the roles granted
	 * prewarm, which could otherwise raise it to 1 for their own calls.
	 */
	DefineCustomRealVariable("cachectl.prewarm_max_share",
							 "The largest share of shared_buffers one prewarm call fills.",
							 "Loading stops there with a NOTICE, so a prewarm never evicts the whole pool "
							 "(nor, with a ring too small, its own work).",
							 &cachectl_prewarm_max_share_setting,
							 0.5, 0.0, 1.0,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
}
