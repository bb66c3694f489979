/*
 * autowarm_database.c — the autowarm worker of one database (launched by
 * autowarm_leader.c).  On a primary it snapshots both layers every
 * cachectl.autowarm_interval under cachectl.autowarm_label, through
 * cachectl.snapshot(), which rewrites only the rows that changed, in one
 * transaction (a snapshot that fails or is cut off leaves the previous one
 * whole), and once more at a clean shutdown.  At start (after a restart,
 * after crash recovery, on a hot standby once consistent) it loads the
 * newest snapshot; on a standby it then follows: each newer snapshot that
 * replay brings is loaded, only what is not resident.  A promotion turns
 * following into recording.
 *
 * SIGTERM only sets core's shutdown flag (SignalHandlerForShutdownRequest:
 * the shutdown snapshot needs the worker alive);
 * the leader cancels the current statement (SIGINT) when a reload turns
 * autowarm off.  The worker leaves its database, between two transactions,
 * when another session needs it to itself (DROP DATABASE and the like wait
 * a few seconds for the others to go) or the leader asks it to (a DROP
 * DATABASE, connections disallowed); the leader comes back 10 s later.  A
 * reload that changes cachectl.autowarm_role ends it, and the leader
 * relaunches it at once as the new role.  Every ERROR or FATAL that ends
 * it, at connection included (a role that may not log in), is counted in
 * the status slot (emit_log_hook); the leader relaunches it after a delay,
 * and the slot remembers that the start load was done and when the last
 * snapshot was taken, so a relaunch neither loads again nor snapshots
 * early.  A crash restart wipes the slot: autowarm_start_marker.c keeps a
 * start load that crashed the server from running again at once.  Its own
 * writes commit with synchronous_commit = local (a shutdown never waits for
 * a synchronous standby), and a primary that is read-only for now
 * (default_transaction_read_only, as pg_auto_failover sets after a
 * failover) is waited for, not counted as a failure.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/instrument.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include <signal.h>

#include "api/action_progress.h"
#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_start_marker.h"
#include "autowarm/autowarm_worker.h"

/* How often a following standby looks for a newer snapshot. */
#define FOLLOW_POLL_MILLISECONDS 1000

PGDLLEXPORT void pg_cachectl_autowarm_database_main(Datum main_arg);

static AutowarmDatabase *my_slot = NULL;
static bool ended_cleanly = false;
static bool leaving_database = false;	/* DDL waits for this worker to go */
static bool role_changed = false;	/* a reload named another role: relaunch */
static char connected_role[NAMEDATALEN];	/* cachectl.autowarm_role as connected */
static bool read_only_logged = false;
static bool start_load_running = false;	/* its marker is to go at any clean exit */
static emit_log_hook_type previous_emit_log_hook = NULL;

/* The settings as of the last reload (read between statements only). */
static void
reload_if_asked(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * Does another session want this database to itself?  DROP DATABASE, ALTER
 * DATABASE ... RENAME or SET TABLESPACE (AccessExclusiveLock on it) and
 * CREATE DATABASE copying it as a template (ShareLock) hold their lock and
 * then wait a few seconds for the other sessions to leave before they
 * fail; a conditional lock in a mode that conflicts with both, and not with
 * the lock every connection takes, tells the worker to leave.
 */
static bool
database_wanted_elsewhere(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, InvalidOid, DatabaseRelationId, MyDatabaseId, 0);
	if (LockAcquire(&tag, RowExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, RowExclusiveLock, true);
	return false;
}

bool
autowarm_should_stop(void)
{
	bool		asked_to_leave = false;

	reload_if_asked();
	if (my_slot != NULL)
	{
		SpinLockAcquire(&autowarm_shared->mutex);
		asked_to_leave = my_slot->leave_requested;
		SpinLockRelease(&autowarm_shared->mutex);
	}
	if (!leaving_database && OidIsValid(MyDatabaseId) && (asked_to_leave || database_wanted_elsewhere()))
	{
		ereport(LOG,
				(errmsg("pg_cachectl autowarm: leaving database \"%s\": %s",
						my_slot ? my_slot->database_name : "?",
						asked_to_leave ? "it is being dropped or closed to connections"
						: "another session needs it to itself")));
		leaving_database = true;
	}
	if (!role_changed && strcmp(connected_role, cachectl_autowarm_role_setting) != 0)
	{
		ereport(LOG,
				(errmsg("pg_cachectl autowarm: cachectl.autowarm_role changed; reconnecting to database \"%s\" as the new role",
						my_slot ? my_slot->database_name : "?")));
		role_changed = true;
	}
	return ShutdownRequestPending || leaving_database || role_changed || !cachectl_autowarm_setting;
}

/* Every ERROR and FATAL this worker reports, as it reports it: the status counts them all. */
static void
count_reported_failure(ErrorData *error)
{
	if (previous_emit_log_hook)
		previous_emit_log_hook(error);
	if (error->elevel >= ERROR && my_slot != NULL && error->message != NULL)
		autowarm_record_error(my_slot, error->message);
}

/* On any exit: no worker runs for the slot; an unclean exit is a failure. */
static void
leave_slot(int code, Datum arg)
{
	/* an exit that runs this (an ERROR, a cancel, a shutdown) is no crash */
	if (start_load_running)
		autowarm_start_marker_clear(MyDatabaseId);
	if (my_slot == NULL)
		return;
	AUTOWARM_SHARED_UPDATE(my_slot->pid = 0;
					if (!ended_cleanly)
						my_slot->phase = AUTOWARM_FAILED);
}

static bool
extension_installed(void)
{
	bool		installed;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	installed = OidIsValid(get_extension_oid("pg_cachectl", true));
	CommitTransactionCommand();
	return installed;
}

/* One snapshot of the whole database under the label, and its cost. */
static void
record_snapshot_now(AutowarmDatabase *slot, const char *why)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	TimestampTz started = GetCurrentTimestamp();
	TimestampTz finished;
	int64		wal_before = pgWalUsage.wal_bytes;
	int64		wal_bytes;
	int64		rows_written = 0;
	int64		relations = 0;
	int64		shared_blocks = 0;
	int64		os_blocks = 0;
	bool		isnull;

	AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_RECORDING);
	pgstat_report_activity(STATE_RUNNING, "pg_cachectl autowarm: recording");
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: recording cache snapshot \"%s\" of database \"%s\" (%s)",
					cachectl_autowarm_label_setting, slot->database_name, why)));

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
	values[0] = CStringGetTextDatum(cachectl_autowarm_label_setting);
	if (SPI_execute_with_args("SELECT s.relations, s.shared_blocks, s.os_blocks FROM cachectl.snapshot($1) AS s",
							  1, types, values, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not record the autowarm snapshot");
	relations = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	shared_blocks = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	os_blocks = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	/* rows inserted and deleted by this transaction (no row is updated) */
	if (SPI_execute("SELECT pg_catalog.pg_stat_get_xact_tuples_inserted(t.c) OPERATOR(pg_catalog.+) "
					"pg_catalog.pg_stat_get_xact_tuples_deleted(t.c) "
					"FROM (SELECT 'cachectl.snapshot'::pg_catalog.regclass::pg_catalog.oid) AS t (c)",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		rows_written = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(true);	/* pg_stat_user_tables shows the rows written now */

	finished = GetCurrentTimestamp();
	wal_bytes = pgWalUsage.wal_bytes - wal_before;
	AUTOWARM_SHARED_UPDATE(slot->snapshot_at = started;
					slot->snapshot_rows_written = rows_written;
					slot->snapshot_wal_bytes = wal_bytes;
					slot->snapshot_seconds = seconds_between(started, finished);
					slot->snapshots_taken++);
	/* a newer snapshot: the next server start loads it, whatever the last start loads did */
	autowarm_start_marker_snapshot_recorded(MyDatabaseId);
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: recorded cache snapshot \"%s\" of database \"%s\": "
					INT64_FORMAT " relations, " INT64_FORMAT " shared and " INT64_FORMAT " OS blocks; "
					INT64_FORMAT " rows and " INT64_FORMAT " bytes of WAL written in %.3f s",
					cachectl_autowarm_label_setting, slot->database_name,
					relations, shared_blocks, os_blocks, rows_written, wal_bytes,
					(double) (finished - started) / USECS_PER_SEC)));
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * A snapshot, unless the primary may not write yet: then false, and the
 * next round tries again (not a failure).  Checked before, and caught
 * during, for a primary made read-only meanwhile.
 */
static bool
record_snapshot(AutowarmDatabase *slot, const char *why)
{
	MemoryContext caller_context = CurrentMemoryContext;
	bool		recorded = true;

	if (DefaultXactReadOnly)
		recorded = false;
	else
	{
		PG_TRY();
		{
			record_snapshot_now(slot, why);
		}
		PG_CATCH();
		{
			ErrorData  *error;

			MemoryContextSwitchTo(caller_context);
			error = CopyErrorData();
			if (error->sqlerrcode != ERRCODE_READ_ONLY_SQL_TRANSACTION)
				PG_RE_THROW();
			FlushErrorState();
			AbortCurrentTransaction();
			FreeErrorData(error);
			recorded = false;
		}
		PG_END_TRY();
	}
	AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_IDLE);
	pgstat_report_activity(STATE_IDLE, NULL);
	if (!recorded && !read_only_logged)
		ereport(LOG,
				(errmsg("pg_cachectl autowarm: database \"%s\" is read-only for now; the snapshot waits until it may write",
						slot->database_name),
				 errdetail("default_transaction_read_only is on (a failover manager sets it until the new primary is confirmed).")));
	read_only_logged = !recorded;
	return recorded;
}

/* Has replay brought rows other than those the last load saw? */
static bool
newer_snapshot_replayed(AutowarmDatabase *slot)
{
	char		now[AUTOWARM_FINGERPRINT_LENGTH];
	bool		newer;

	autowarm_snapshot_fingerprint(now, sizeof(now));
	SpinLockAcquire(&autowarm_shared->mutex);
	newer = now[0] != '\0' && strcmp(now, slot->loaded_fingerprint) != 0;
	SpinLockRelease(&autowarm_shared->mutex);
	return newer;
}

/* When the next snapshot is due: the last one (or the worker's start) plus the interval as set now. */
static TimestampTz
snapshot_due(TimestampTz last)
{
	return TimestampTzPlusMilliseconds(last, (int64) cachectl_autowarm_interval_setting * 1000);
}

/* The start load, unless it crashed the server before (autowarm_start_marker.c). */
static bool
start_load(AutowarmDatabase *slot, bool standby)
{
	char		why_not[AUTOWARM_ERROR_LENGTH];
	bool		done;

	if (!autowarm_start_marker_begin(MyDatabaseId, why_not, sizeof(why_not)))
	{
		ereport(LOG,
				(errmsg("pg_cachectl autowarm: not loading cache snapshot \"%s\" into database \"%s\": %s",
						cachectl_autowarm_label_setting, slot->database_name, why_not)));
		autowarm_record_error(slot, why_not);
		return true;
	}

	/*
	 * Only a load that ran to the end is done.  One stopped between two
	 * chunks (autowarm off, shutdown) is not, exactly as one cancelled within
	 * a chunk: the next worker loads again, and the shutdown snapshot does
	 * not record the half-warm cache over the snapshot that was being
	 * loaded.  Either way it did not crash: the marker goes.
	 */
	start_load_running = true;
	done = autowarm_load(slot, false, true, standby ? "standby start" : "server start", autowarm_should_stop);
	autowarm_start_marker_clear(MyDatabaseId);
	start_load_running = false;
	return done;
}

static void
run_worker(AutowarmDatabase *slot)
{
	bool		standby = RecoveryInProgress();
	bool		start_load_done;
	TimestampTz last_snapshot;
	TimestampTz next_poll = 0;

	SpinLockAcquire(&autowarm_shared->mutex);
	slot->standby = standby;
	start_load_done = slot->start_load_done;
	last_snapshot = slot->snapshot_at;
	SpinLockRelease(&autowarm_shared->mutex);

	if (!start_load_done)
	{
		start_load_done = start_load(slot, standby);
		AUTOWARM_SHARED_UPDATE(slot->start_load_done = start_load_done);
	}
	if (last_snapshot == 0)
		last_snapshot = GetCurrentTimestamp();

	for (;;)
	{
		TimestampTz now;

		CHECK_FOR_INTERRUPTS();
		if (autowarm_should_stop())
			break;
		now = GetCurrentTimestamp();
		if (RecoveryInProgress())
		{
			AUTOWARM_SHARED_UPDATE(slot->phase = cachectl_autowarm_follow_setting ? AUTOWARM_FOLLOWING : AUTOWARM_IDLE);
			if (cachectl_autowarm_follow_setting && now >= next_poll)
			{
				next_poll = TimestampTzPlusMilliseconds(now, FOLLOW_POLL_MILLISECONDS);
				if (newer_snapshot_replayed(slot))
				{
					autowarm_load(slot, true, false, "newer snapshot replayed", autowarm_should_stop);
					AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_FOLLOWING);
				}
			}
		}
		else
		{
			if (standby)
			{
				ereport(LOG,
						(errmsg("pg_cachectl autowarm: database \"%s\" is on a primary now: recording, no longer following",
								slot->database_name)));
				standby = false;
				AUTOWARM_SHARED_UPDATE(slot->standby = false);
				last_snapshot = now;
			}
			AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_IDLE);
			/* due from the interval as set now: a reload that shortens it takes effect at once */
			if (cachectl_autowarm_interval_setting > 0 && now >= snapshot_due(last_snapshot))
			{
				if (record_snapshot(slot, "interval"))
					last_snapshot = GetCurrentTimestamp();
				else
					last_snapshot = now - (int64) cachectl_autowarm_interval_setting * USECS_PER_SEC
						+ 5 * USECS_PER_SEC;	/* read-only: again in 5 s */
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 standby ? FOLLOW_POLL_MILLISECONDS : 1000, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}

	/* a clean shutdown of a primary: its cache as it is now (once warmed) */
	if (ShutdownRequestPending && !leaving_database && cachectl_autowarm_setting && !RecoveryInProgress() && start_load_done)
		(void) record_snapshot(slot, "shutdown");
	if (!cachectl_autowarm_setting)
		AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_DISABLED);
	else if (leaving_database || role_changed)
		AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_STARTING;	/* the leader comes back */
						slot->relaunch_now = role_changed && !leaving_database);
}

void
pg_cachectl_autowarm_database_main(Datum main_arg)
{
	Oid			database = DatumGetObjectId(main_arg);
	unsigned int role = InvalidOid;
	int			role_name_at = 0;
	AutowarmDatabase *slot;
	MemoryContext worker_context;

	/* "<role oid> <the setting that named it>" (autowarm_leader.c) */
	if (sscanf(MyBgworkerEntry->bgw_extra, "%u %n", &role, &role_name_at) < 1)
		elog(ERROR, "pg_cachectl autowarm worker launched without its role");
	strlcpy(connected_role, MyBgworkerEntry->bgw_extra + role_name_at, sizeof(connected_role));
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	slot = autowarm_slot_find(database);
	if (slot == NULL)
		proc_exit(0);			/* the leader released it meanwhile (database dropped) */
	my_slot = slot;
	AUTOWARM_SHARED_UPDATE(slot->pid = MyProcPid;
					slot->phase = AUTOWARM_STARTING);
	before_shmem_exit(leave_slot, 0);
	previous_emit_log_hook = emit_log_hook;
	emit_log_hook = count_reported_failure;

	/* by OID: a database renamed keeps its worker, one made with the old name gets its own */
	BackgroundWorkerInitializeConnectionByOid(database, (Oid) role, 0);
	pgstat_report_appname("pg_cachectl autowarm");
	/* the worker's own commits never wait for a synchronous standby (nor hold a shutdown) */
	SetConfigOption("synchronous_commit", "local", PGC_SUSET, PGC_S_OVERRIDE);
	if (!extension_installed())
	{
		/* nothing to do here; the leader asks again later */
		ended_cleanly = true;
		my_slot = NULL;
		autowarm_slot_release(database);
		proc_exit(0);
	}

	worker_context = AllocSetContextCreate(TopMemoryContext, "pg_cachectl autowarm worker",
										   ALLOCSET_DEFAULT_SIZES);
	PG_TRY();
	{
		run_worker(slot);
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(worker_context);
		error = CopyErrorData();
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED)
		{
			/* the leader cancels what runs when a reload turns autowarm off */
			FlushErrorState();
			AbortCurrentTransaction();
			reload_if_asked();
			if (!cachectl_autowarm_setting)
			{
				AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_DISABLED);
				ended_cleanly = true;
				proc_exit(0);
			}
			autowarm_load_abandon(slot);
			autowarm_record_error(slot, error->message);
			proc_exit(1);
		}
		/* the error ends the worker; count_reported_failure records it as it is reported */
		autowarm_load_abandon(slot);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ended_cleanly = true;
	proc_exit(0);
}
