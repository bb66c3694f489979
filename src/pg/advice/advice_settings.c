/*
 * advice_settings.c — the settings of the sizing advice.  track_advice is
 * read by the one sampler of the cluster, so it is changed by a reload, not
 * per session.
 */
#include "postgres.h"

#include "utils/guc.h"

#include "advice/advice_settings.h"

bool		cachectl_track_advice_setting = false;
int			cachectl_advice_sample_blocks_setting = 65536;

void
advice_define_settings(bool preloading)
{
	DefineCustomBoolVariable("cachectl.track_advice",
							 "Follows a sample of blocks through shared buffers to predict the hit ratio of other pool sizes.",
							 "Needs pg_cachectl in shared_preload_libraries; read in cachectl.shared_buffers_advice(). Turning it on starts a new window.",
							 &cachectl_track_advice_setting,
							 false,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);
	/* a PGC_POSTMASTER setting exists only where it can take effect */
	if (!preloading)
		return;
	DefineCustomIntVariable("cachectl.advice_sample_blocks",
							"The most distinct blocks the sizing advice follows.",
							"Beyond it the sample rate drops; memory grows by about 100 bytes per block.",
							&cachectl_advice_sample_blocks_setting,
							65536, 1024, 524288,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);
}
