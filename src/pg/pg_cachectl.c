/*
 * pg_cachectl.c — module magic and settings; the autowarm worker's
 * registration when loaded at server start.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "autowarm_drop_database.h"
#include "autowarm_leader.h"
#include "autowarm_settings.h"
#include "autowarm_state.h"
#include "cachectl.h"
#include "explain_option.h"
#include "relation_reads.h"

PG_MODULE_MAGIC;

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

void		_PG_init(void);

void
_PG_init(void)
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

	autowarm_define_settings();
	/* the per-relation read counters: settings always, memory and hooks when preloaded */
	relation_reads_init(process_shared_preload_libraries_in_progress);
	MarkGUCPrefixReserved("cachectl");

	/* EXPLAIN (ANALYZE, CACHECTL_READS) on 18 and later, however the library was loaded */
	explain_option_register();

	/* the autowarm worker: only from shared_preload_libraries, at server start */
	if (process_shared_preload_libraries_in_progress)
	{
		autowarm_state_request();
		autowarm_register_leader();
		autowarm_install_drop_database_hook();
	}
	else if (cachectl_autowarm_setting)
		ereport(WARNING,
				(errmsg("cachectl.autowarm is on, but pg_cachectl is not in shared_preload_libraries"),
				 errhint("Add pg_cachectl to shared_preload_libraries and restart the server: the autowarm worker starts only then.")));
}
