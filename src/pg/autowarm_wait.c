/*
 * autowarm_wait.c — cachectl.wait_warm(): the gate of a planned switchover.
 * It returns when the current database's autowarm worker has loaded the
 * newest snapshot this server has (on a standby: the one replay brought;
 * on a primary: its start load is done), or when the timeout passes, and
 * says which, with the figures.  It never fails for the state it finds (no
 * worker, autowarm off, not preloaded): a hook of an HA manager that runs it
 * must not stop an unplanned failover; it reports the state and returns
 * false at once where waiting cannot help.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "action_progress.h"
#include "autowarm_settings.h"
#include "autowarm_state.h"
#include "autowarm_worker.h"

PG_FUNCTION_INFO_V1(pg_cachectl_wait_warm);

#define WAIT_WARM_COLUMNS 7
#define WAIT_WARM_POLL_MS 100

/* What one look at the worker found. */
typedef struct WarmLook
{
	bool		warm;
	bool		hopeless;		/* waiting cannot change it */
	const char *state;
	bool		has_snapshot;
	TimestampTz snapshot_taken_at;
	AutowarmLoadFigures last_load;
} WarmLook;

static void
look_at_worker(WarmLook *look)
{
	AutowarmDatabase *slot;
	AutowarmDatabase seen;
	char		newest[AUTOWARM_FINGERPRINT_LENGTH] = "";

	memset(look, 0, sizeof(*look));
	if (autowarm_shared == NULL)
	{
		look->state = "not preloaded";
		look->hopeless = true;
		return;
	}
	if (!cachectl_autowarm_setting)
	{
		look->state = "off";
		look->hopeless = true;
		return;
	}
	look->has_snapshot = autowarm_newest_snapshot(cachectl_autowarm_label_setting, &look->snapshot_taken_at);
	autowarm_fingerprint_of(look->has_snapshot, look->snapshot_taken_at, newest, sizeof(newest));
	slot = autowarm_slot_find(MyDatabaseId);
	if (slot == NULL)
	{
		look->state = "no worker";
		return;
	}
	SpinLockAcquire(&autowarm_shared->mutex);
	seen = *slot;
	SpinLockRelease(&autowarm_shared->mutex);

	look->state = seen.pid == 0 ? "no worker" : autowarm_phase_name(seen.phase);
	look->last_load = seen.follow_load.finished > seen.start_load.finished ? seen.follow_load : seen.start_load;
	if (seen.pid == 0 || !seen.start_load_done || seen.phase == AUTOWARM_LOADING ||
		seen.phase == AUTOWARM_STARTING)
		return;
	/*
	 * A primary is warm once its start load is done; a standby that follows
	 * once it has loaded the newest snapshot replay brought.
	 */
	look->warm = !RecoveryInProgress() || !cachectl_autowarm_follow_setting ||
		strcmp(newest, seen.loaded_fingerprint) == 0;
}

static int64
timeout_microseconds(const Interval *timeout)
{
	int64		total;

#ifdef INTERVAL_NOT_FINITE
	if (INTERVAL_NOT_FINITE(timeout))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeout of wait_warm() must be finite")));
#endif
	total = timeout->time + (int64) Min(Max(timeout->day, -366), 366) * USECS_PER_DAY;
	if (timeout->month != 0 || total < 0 || total > 365 * USECS_PER_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeout of wait_warm() must be between 0 and 365 days, without months"),
				 errhint("A pre_promote hook waits seconds, e.g. '30 s'.")));
	return total;
}

/*
 * cachectl.wait_warm(timeout interval DEFAULT '60 s')
 *   RETURNS record (warm boolean, state text, waited_seconds float8,
 *                   snapshot_taken_at timestamptz, snapshot_age_seconds float8,
 *                   shared_blocks_loaded int8, os_blocks_loaded int8)
 */
Datum
pg_cachectl_wait_warm(PG_FUNCTION_ARGS)
{
	TupleDesc	result_desc;
	int64		timeout_us;
	TimestampTz started = GetCurrentTimestamp();
	TimestampTz now;
	WarmLook	look;
	Datum		values[WAIT_WARM_COLUMNS];
	bool		nulls[WAIT_WARM_COLUMNS] = {0};
	bool		loaded;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("timeout of wait_warm() must not be null"),
				 errhint("Leave it out for its default.")));
	timeout_us = timeout_microseconds(PG_GETARG_INTERVAL_P(0));
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "wait_warm must return a composite");

	for (;;)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		look_at_worker(&look);
		SPI_finish();
		now = GetCurrentTimestamp();
		if (look.warm || look.hopeless || now - started >= timeout_us)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(WAIT_WARM_POLL_MS, (timeout_us - (now - started)) / 1000 + 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	loaded = look.last_load.finished != 0;
	values[0] = BoolGetDatum(look.warm);
	values[1] = CStringGetTextDatum(look.state);
	values[2] = Float8GetDatum(seconds_between(started, now));
	values[3] = TimestampTzGetDatum(look.snapshot_taken_at);
	nulls[3] = !look.has_snapshot;
	values[4] = Float8GetDatum(seconds_between(look.snapshot_taken_at, now));
	nulls[4] = !look.has_snapshot;
	values[5] = Int64GetDatum(look.last_load.shared_blocks);
	nulls[5] = !loaded;
	values[6] = Int64GetDatum(look.last_load.os_blocks);
	nulls[6] = !loaded;
	if (!look.warm)
		ereport(NOTICE,
				(errmsg("cachectl.wait_warm: not warm (autowarm: %s)", look.state),
				 look.hopeless
				 ? errhint("Autowarm needs pg_cachectl in shared_preload_libraries and cachectl.autowarm = on.")
				 : 0));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}
