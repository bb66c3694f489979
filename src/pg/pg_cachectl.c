/*
 * pg_cachectl.c — the module: its magic and _PG_init, which has each area
 * define its settings and, when loaded at server start, request its shared
 * memory and install its hooks and workers.  The areas are the folders
 * beside this file (each says what it owns at the top of its main file).
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "advice/advice.h"
#include "api/api.h"
#include "autowarm/autowarm.h"
#include "autowarm/autowarm_drop_database.h"
#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_state.h"
#include "reads/explain_option.h"
#include "reads/reads.h"
#include "reads/relation_reads.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	/* the settings every family of SQL functions reads */
	api_define_settings();
	autowarm_define_settings();
	/* the per-relation read counters: settings always, memory and hooks when preloaded */
	relation_reads_init(process_shared_preload_libraries_in_progress);
	if (process_shared_preload_libraries_in_progress)
		relation_reads_install_hooks();
	/* the sizing advice: settings always, its sampler and memory when preloaded */
	advice_init(process_shared_preload_libraries_in_progress);
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
