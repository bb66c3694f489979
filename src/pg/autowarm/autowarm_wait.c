/*
 * autowarm_wait.c — cachectl.wait_warm(): the gate of a planned switchover.
 * It returns when the current database's autowarm worker has loaded the
 * newest snapshot this server has (on a standby: the one replay brought;
 * on a primary: its start load is done), or when the timeout passes, and
 * says which, with the figures.  It never fails for the state it finds (no
 * worker, autowarm off, not preloaded): a hook of an HA manager that runs it
 * must not stop an unplanned failover; it reports the state and returns
 * false at once where waiting cannot help.
 *
 * Since 1.2 it also says what is missing: the blocks of the newest snapshot
 * not resident now, per layer, counted once when it returns, by the
 * planner the worker loads with.  The snapshot table is read as the role
 * the worker runs as (its view, whoever calls); a failure to read it (the
 * role dropped, a bad row) leaves the figures NULL with a NOTICE.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "api/action_progress.h"
#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_state.h"
#include "autowarm/autowarm_worker.h"

PG_FUNCTION_INFO_V1(pg_cachectl_wait_warm);

/* 1.1 declared the first 7 columns; 1.2 added the two missing counts */
#define WAIT_WARM_COLUMNS_1_1 7
#define WAIT_WARM_COLUMNS 9
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

/* Blocks of the newest snapshot not resident now, per layer. */
typedef struct MissingBlocks
{
	bool		counted;
	int64		shared_blocks_missing;
	int64		os_blocks_missing;
} MissingBlocks;

/* The role the worker runs as: cachectl.autowarm_role, or the bootstrap superuser. */
static Oid
worker_role(void)
{
	if (cachectl_autowarm_role_setting == NULL || cachectl_autowarm_role_setting[0] == '\0')
		return BOOTSTRAP_SUPERUSERID;
	return get_role_oid(cachectl_autowarm_role_setting, false);
}

/*
 * Runs work as the worker's role (so what it reads is the worker's view of
 * the snapshot table, whoever calls), with SPI, in a subtransaction: any
 * error but a cancel becomes a NOTICE and false (the gate must answer,
 * whatever it finds).
 */
static bool
run_as_worker_role(void (*work) (void *), void *argument, const char *if_failed)
{
	MemoryContext caller_context = CurrentMemoryContext;
	ResourceOwner caller_owner = CurrentResourceOwner;
	bool		done = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller_context);
	PG_TRY();
	{
		Oid			saved_user;
		int			saved_context;

		GetUserIdAndSecContext(&saved_user, &saved_context);
		SetUserIdAndSecContext(worker_role(),
							   saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		work(argument);
		SPI_finish();
		SetUserIdAndSecContext(saved_user, saved_context);
		ReleaseCurrentSubTransaction();
		done = true;
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(caller_context);
		error = CopyErrorData();
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED || error->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		ereport(NOTICE,
				(errmsg("cachectl.wait_warm: %s: %s", if_failed, error->message),
				 errhint("wait_warm() reads the snapshot table as cachectl.autowarm_role, as the worker does.")));
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller_context);
	CurrentResourceOwner = caller_owner;
	return done;
}

static void
find_newest_snapshot(void *argument)
{
	WarmLook   *look = argument;

	look->has_snapshot = autowarm_newest_snapshot(cachectl_autowarm_label_setting, &look->snapshot_taken_at);
}

/* The planner the worker loads with, on what is not resident now: its runs summed per layer. */
static void
count_missing_blocks(void *argument)
{
	MissingBlocks *missing = argument;
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(cachectl_autowarm_label_setting)};

	if (SPI_execute_with_args("SELECT p.layer = 'shared', sum(upper(r) - lower(r))::int8"
							  "  FROM cachectl_internal.restore_plan($1, 'both', NULL, true) AS p"
							  "  CROSS JOIN LATERAL unnest(p.runs) AS r"
							  " WHERE p.skip_reason IS NULL GROUP BY 1",
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "wait_warm could not count the missing blocks");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		bool		shared = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		int64		blocks = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));

		if (shared)
			missing->shared_blocks_missing = blocks;
		else
			missing->os_blocks_missing = blocks;
	}
	missing->counted = true;
}

static void
look_at_worker(WarmLook *look)
{
	AutowarmDatabase *slot;
	AutowarmDatabase seen;
	char		newest[AUTOWARM_FINGERPRINT_LENGTH] = "";

	memset(look, 0, sizeof(*look));
	/* the newest snapshot is named (and its missing blocks counted) in every state */
	(void) run_as_worker_role(find_newest_snapshot, look, "the newest snapshot was not read");
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
 *                   shared_blocks_loaded int8, os_blocks_loaded int8,
 *                   shared_blocks_missing int8, os_blocks_missing int8)
 * (1.1's declaration has the first seven columns only.)
 */
Datum
pg_cachectl_wait_warm(PG_FUNCTION_ARGS)
{
	TupleDesc	result_desc;
	int64		timeout_us;
	TimestampTz started = GetCurrentTimestamp();
	TimestampTz now;
	WarmLook	look;
	MissingBlocks missing = {0};
	Datum		values[WAIT_WARM_COLUMNS];
	bool		nulls[WAIT_WARM_COLUMNS] = {0};
	bool		loaded;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("timeout of wait_warm() must not be null"),
				 errhint("Leave it out for its default.")));
	timeout_us = timeout_microseconds(PG_GETARG_INTERVAL_P(0));
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE ||
		(result_desc->natts != WAIT_WARM_COLUMNS && result_desc->natts != WAIT_WARM_COLUMNS_1_1))
		elog(ERROR, "wait_warm must return a composite of %d columns", WAIT_WARM_COLUMNS);

	for (;;)
	{
		look_at_worker(&look);
		now = GetCurrentTimestamp();
		if (look.warm || look.hopeless || now - started >= timeout_us)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(WAIT_WARM_POLL_MS, (timeout_us - (now - started)) / 1000 + 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	if (look.has_snapshot && result_desc->natts == WAIT_WARM_COLUMNS &&
		!run_as_worker_role(count_missing_blocks, &missing, "the missing blocks were not counted"))
		memset(&missing, 0, sizeof(missing));

	loaded = look.last_load.finished != 0;
	values[0] = BoolGetDatum(look.warm);
	values[1] = CStringGetTextDatum(look.state);
	values[2] = Float8GetDatum(seconds_between(started, now));
	values[3] = TimestampTzGetDatum(look.snapshot_taken_at);
	nulls[3] = !look.has_snapshot;
	values[4] = Float8GetDatum(seconds_between(look.snapshot_taken_at, now));
	nulls[4] = !look.has_snapshot;
	values[5] = Int64GetDatum(look.last_load.shared_blocks_loaded);
	nulls[5] = !loaded;
	values[6] = Int64GetDatum(look.last_load.os_blocks_loaded);
	nulls[6] = !loaded;
	values[7] = Int64GetDatum(missing.shared_blocks_missing);
	nulls[7] = !missing.counted;
	values[8] = Int64GetDatum(missing.os_blocks_missing);
	nulls[8] = !missing.counted;
	if (!look.warm)
		ereport(NOTICE,
				(errmsg("cachectl.wait_warm: not warm (autowarm: %s)", look.state),
				 look.hopeless
				 ? errhint("Autowarm needs pg_cachectl in shared_preload_libraries and cachectl.autowarm = on.")
				 : 0));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}
