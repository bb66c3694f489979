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
 * SIGTERM only sets a flag (the shutdown snapshot needs the worker alive);
 * the leader cancels the current statement (SIGINT) when a reload turns
 * autowarm off.  The worker leaves its database, between two transactions,
 * when another session needs it to itself (DROP DATABASE and the like wait
 * a few seconds for the others to go); the leader comes back 10 s later.  An ERROR ends the worker, recorded in the status slot; the
 * leader relaunches it after a delay, and the slot remembers that the start
 * load was done and when the last snapshot was taken, so a relaunch neither
 * loads again nor snapshots early.
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

#include "autowarm_settings.h"
#include "autowarm_worker.h"

/* How often a following standby looks for a newer snapshot. */
#define FOLLOW_POLL_MILLISECONDS 1000

PGDLLEXPORT void pg_cachectl_autowarm_database_main(Datum main_arg);

static volatile sig_atomic_t shutdown_requested = false;
static AutowarmDatabase *my_slot = NULL;
static bool ended_cleanly = false;
static bool leaving_database = false;	/* DDL waits for this worker to go */

static void
request_shutdown(SIGNAL_ARGS)
{
	int			save_errno = errno;

	shutdown_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

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
	reload_if_asked();
	if (!leaving_database && OidIsValid(MyDatabaseId) && database_wanted_elsewhere())
	{
		ereport(LOG,
				(errmsg("pg_cachectl autowarm: leaving database \"%s\": another session needs it to itself",
						my_slot ? my_slot->database_name : "?")));
		leaving_database = true;
	}
	return shutdown_requested || leaving_database || !cachectl_autowarm_setting;
}

/* On any exit: no worker runs for the slot; an unclean exit is a failure. */
static void
leave_slot(int code, Datum arg)
{
	if (my_slot == NULL)
		return;
	AUTOWARM_UPDATE(my_slot,
					my_slot->pid = 0;
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
record_snapshot(AutowarmDatabase *slot, const char *why)
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

	AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_RECORDING);
	pgstat_report_activity(STATE_RUNNING, "pg_cachectl autowarm: recording");
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: recording cache snapshot \"%s\" of database \"%s\" (%s)",
					cachectl_autowarm_label_setting, slot->database_name, why)));

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
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
	AUTOWARM_UPDATE(slot,
					slot->snapshot_at = started;
					slot->snapshot_rows_written = rows_written;
					slot->snapshot_wal_bytes = wal_bytes;
					slot->snapshot_seconds = (double) (finished - started) / USECS_PER_SEC;
					slot->snapshots_taken++);
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: recorded cache snapshot \"%s\" of database \"%s\": "
					INT64_FORMAT " relations, " INT64_FORMAT " shared and " INT64_FORMAT " OS blocks; "
					INT64_FORMAT " rows and " INT64_FORMAT " bytes of WAL written in %.3f s",
					cachectl_autowarm_label_setting, slot->database_name,
					relations, shared_blocks, os_blocks, rows_written, wal_bytes,
					(double) (finished - started) / USECS_PER_SEC)));
	pgstat_report_activity(STATE_IDLE, NULL);
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

static TimestampTz
after_interval(TimestampTz from)
{
	return TimestampTzPlusMilliseconds(from, (int64) cachectl_autowarm_interval_setting * 1000);
}

static void
run_worker(AutowarmDatabase *slot)
{
	bool		standby = RecoveryInProgress();
	bool		start_load_done;
	TimestampTz last_snapshot;
	TimestampTz next_snapshot;
	TimestampTz next_poll = 0;

	SpinLockAcquire(&autowarm_shared->mutex);
	slot->standby = standby;
	start_load_done = slot->start_load_done;
	last_snapshot = slot->snapshot_at;
	SpinLockRelease(&autowarm_shared->mutex);

	if (!start_load_done)
	{
		/*
		 * Only a load that ran to the end is done.  One stopped between two
		 * chunks (autowarm off, shutdown) is not, exactly as one cancelled
		 * within a chunk: the next worker loads again, and the shutdown
		 * snapshot below does not record the half-warm cache over the
		 * snapshot that was being loaded.
		 */
		start_load_done = autowarm_load(slot, false, standby ? "standby start" : "server start");
		AUTOWARM_UPDATE(slot, slot->start_load_done = start_load_done);
	}
	next_snapshot = after_interval(last_snapshot != 0 ? last_snapshot : GetCurrentTimestamp());

	for (;;)
	{
		TimestampTz now;

		CHECK_FOR_INTERRUPTS();
		if (autowarm_should_stop())
			break;
		now = GetCurrentTimestamp();
		if (RecoveryInProgress())
		{
			AUTOWARM_UPDATE(slot, slot->phase = cachectl_autowarm_follow_setting ? AUTOWARM_FOLLOWING : AUTOWARM_IDLE);
			if (cachectl_autowarm_follow_setting && now >= next_poll)
			{
				next_poll = TimestampTzPlusMilliseconds(now, FOLLOW_POLL_MILLISECONDS);
				if (newer_snapshot_replayed(slot))
				{
					autowarm_load(slot, true, "newer snapshot replayed");
					AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_FOLLOWING);
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
				AUTOWARM_UPDATE(slot, slot->standby = false);
				next_snapshot = after_interval(now);
			}
			AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_IDLE);
			if (cachectl_autowarm_interval_setting > 0 && now >= next_snapshot)
			{
				record_snapshot(slot, "interval");
				AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_IDLE);
				next_snapshot = after_interval(GetCurrentTimestamp());
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 standby ? FOLLOW_POLL_MILLISECONDS : 1000, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}

	/* a clean shutdown of a primary: its cache as it is now (once warmed) */
	if (shutdown_requested && !leaving_database && cachectl_autowarm_setting && !RecoveryInProgress() && start_load_done)
		record_snapshot(slot, "shutdown");
	if (!cachectl_autowarm_setting)
		AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_DISABLED);
	else if (leaving_database)
		AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_STARTING);	/* the leader comes back */
}

void
pg_cachectl_autowarm_database_main(Datum main_arg)
{
	Oid			database = DatumGetObjectId(main_arg);
	char		name[NAMEDATALEN];
	AutowarmDatabase *slot;
	MemoryContext worker_context;

	strlcpy(name, MyBgworkerEntry->bgw_extra, NAMEDATALEN);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, request_shutdown);
	BackgroundWorkerUnblockSignals();

	slot = autowarm_slot_for(database, name);
	if (slot == NULL)
		proc_exit(0);			/* every slot taken: the leader warned */
	my_slot = slot;
	AUTOWARM_UPDATE(slot,
					slot->pid = MyProcPid;
					slot->phase = AUTOWARM_STARTING);
	before_shmem_exit(leave_slot, 0);

	BackgroundWorkerInitializeConnection(name,
										 cachectl_autowarm_role_setting[0] != '\0' ? cachectl_autowarm_role_setting : NULL,
										 0);
	pgstat_report_appname("pg_cachectl autowarm");
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
				AUTOWARM_UPDATE(slot, slot->phase = AUTOWARM_DISABLED);
				ended_cleanly = true;
				proc_exit(0);
			}
			autowarm_load_abandon(slot);
			autowarm_record_error(slot, error->message);
			proc_exit(1);
		}
		/* what ended it, for the status view; then the error ends the worker */
		autowarm_load_abandon(slot);
		autowarm_record_error(slot, error->message);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ended_cleanly = true;
	proc_exit(0);
}
