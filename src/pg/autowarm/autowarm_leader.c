/*
 * autowarm_leader.c — the autowarm leader: one background worker, started
 * by the server with pg_cachectl in shared_preload_libraries, that keeps a
 * worker (autowarm_database.c) running in each database that can be
 * connected to.  A worker connects to one database for its life, so the
 * leader connects to none: it reads pg_database (a shared catalog) every
 * ten seconds, launches a worker for each database that has none, and
 * relaunches one that ended on an error after AUTOWARM_RETRY_SECONDS (never
 * in a tight loop).  Databases are known by OID: a worker connects by OID
 * as the role cachectl.autowarm_role names (resolved here, in pg_authid,
 * another shared catalog), and a rename only changes the name the status
 * shows.  A database stays watched while a worker it started runs, even
 * once dropped or closed to connections (that worker is asked to leave):
 * never two workers in one database.  A database without the extension is
 * asked again every AUTOWARM_PROBE_SECONDS.  With cachectl.autowarm off it
 * launches nothing and cancels what its workers are doing (they then end
 * by themselves).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "utils/acl.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include <signal.h>

#include "autowarm/autowarm.h"
#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_state.h"

#define AUTOWARM_SCAN_SECONDS 10
#define AUTOWARM_RETRY_SECONDS 10
#define AUTOWARM_PROBE_SECONDS 10

/* The leader's own view of a database: its worker and when to launch again. */
typedef struct WatchedDatabase
{
	Oid			database;
	char		name[NAMEDATALEN];
	BackgroundWorkerHandle *worker;
	TimestampTz next_launch;
	bool		still_exists;
	bool		allows_connections;
} WatchedDatabase;

static WatchedDatabase watched[AUTOWARM_MAX_DATABASES];
static int	watched_count = 0;

PGDLLEXPORT void pg_cachectl_autowarm_leader_main(Datum main_arg);

/* At server start (from _PG_init): the leader, restarted by the server after an ERROR. */
void
autowarm_register_leader(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	/* on a hot standby once it is consistent, on a primary once recovery ends */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = AUTOWARM_RETRY_SECONDS;
	snprintf(worker.bgw_library_name, sizeof(worker.bgw_library_name), "pg_cachectl");
	snprintf(worker.bgw_function_name, sizeof(worker.bgw_function_name), "pg_cachectl_autowarm_leader_main");
	snprintf(worker.bgw_name, sizeof(worker.bgw_name), "pg_cachectl autowarm leader");
	snprintf(worker.bgw_type, sizeof(worker.bgw_type), "pg_cachectl autowarm leader");
	RegisterBackgroundWorker(&worker);
}

static WatchedDatabase *
watched_database(Oid database)
{
	for (int i = 0; i < watched_count; i++)
		if (watched[i].database == database)
			return &watched[i];
	return NULL;
}

/* The name a database has now, in its slot too (the status shows it). */
static void
rename_watched(WatchedDatabase *known, const char *name)
{
	AutowarmDatabase *slot;

	if (strcmp(known->name, name) == 0)
		return;
	strlcpy(known->name, name, NAMEDATALEN);
	slot = autowarm_slot_find(known->database);
	if (slot != NULL)
		AUTOWARM_SHARED_UPDATE(strlcpy(slot->database_name, name, NAMEDATALEN));
}

static bool
worker_running(WatchedDatabase *db)
{
	pid_t		pid;

	return db->worker != NULL && GetBackgroundWorkerPid(db->worker, &pid) != BGWH_STOPPED;
}

/* Which databases exist now (those that accept connections, templates aside). */
static void
scan_databases(void)
{
	Relation	pg_database;
	TableScanDesc scan;
	HeapTuple	tuple;
	static bool warned_full = false;

	for (int i = 0; i < watched_count; i++)
		watched[i].still_exists = false;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pg_database = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(pg_database, 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database row = (Form_pg_database) GETSTRUCT(tuple);
		bool		allows_connections = row->datallowconn && !row->datistemplate;
		WatchedDatabase *known = watched_database(row->oid);

		if (known == NULL)
		{
			if (!allows_connections)
				continue;
			if (watched_count == AUTOWARM_MAX_DATABASES)
			{
				if (!warned_full)
					ereport(WARNING,
							(errmsg("pg_cachectl autowarm watches at most %d databases; database \"%s\" is left out",
									AUTOWARM_MAX_DATABASES, NameStr(row->datname))));
				warned_full = true;
				continue;
			}
			known = &watched[watched_count++];
			memset(known, 0, sizeof(*known));
			known->database = row->oid;
			strlcpy(known->name, NameStr(row->datname), NAMEDATALEN);
		}
		rename_watched(known, NameStr(row->datname));
		known->still_exists = true;
		known->allows_connections = allows_connections;
	}
	table_endscan(scan);
	table_close(pg_database, AccessShareLock);
	PopActiveSnapshot();
	CommitTransactionCommand();

	/*
	 * A database dropped or closed to connections: its worker (if one still
	 * runs) is asked to leave, and the database is forgotten once it has.
	 */
	for (int i = 0; i < watched_count;)
	{
		if (watched[i].still_exists && watched[i].allows_connections)
		{
			i++;
			continue;
		}
		if (worker_running(&watched[i]))
		{
			(void) autowarm_ask_to_leave(watched[i].database);
			i++;
			continue;
		}
		if (watched[i].worker != NULL)
			pfree(watched[i].worker);
		autowarm_slot_release(watched[i].database);
		watched[i] = watched[--watched_count];
	}
}

/* The role cachectl.autowarm_role names (InvalidOid: the bootstrap superuser); false if none has that name. */
static bool
autowarm_role(Oid *role)
{
	*role = InvalidOid;
	if (cachectl_autowarm_role_setting[0] == '\0')
		return true;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	*role = get_role_oid(cachectl_autowarm_role_setting, true);
	CommitTransactionCommand();
	return OidIsValid(*role);
}

static void
launch_worker(WatchedDatabase *db)
{
	BackgroundWorker worker;
	AutowarmDatabase *slot = autowarm_slot_for(db->database, db->name);
	Oid			role;

	db->next_launch = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), AUTOWARM_RETRY_SECONDS * 1000);
	if (slot == NULL)
		return;					/* every slot taken: the scan warned */
	if (!autowarm_role(&role))
	{
		char		message[AUTOWARM_ERROR_LENGTH];

		snprintf(message, sizeof(message), "role \"%s\" (cachectl.autowarm_role) does not exist",
				 cachectl_autowarm_role_setting);
		autowarm_record_error(slot, message);
		AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_FAILED);
		ereport(LOG,
				(errmsg("pg_cachectl autowarm could not start a worker for database \"%s\": %s", db->name, message)));
		return;
	}
	AUTOWARM_SHARED_UPDATE(slot->leave_requested = false;
					slot->relaunch_now = false;
					slot->phase = AUTOWARM_STARTING);

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = BGW_NEVER_RESTART;	/* the leader relaunches, after a delay */
	snprintf(worker.bgw_library_name, sizeof(worker.bgw_library_name), "pg_cachectl");
	snprintf(worker.bgw_function_name, sizeof(worker.bgw_function_name), "pg_cachectl_autowarm_database_main");
	snprintf(worker.bgw_name, sizeof(worker.bgw_name), "pg_cachectl autowarm %s", db->name);
	snprintf(worker.bgw_type, sizeof(worker.bgw_type), "pg_cachectl autowarm");
	worker.bgw_main_arg = ObjectIdGetDatum(db->database);
	/* the role as an OID and as the setting named it (a reload that changes it relaunches) */
	snprintf(worker.bgw_extra, sizeof(worker.bgw_extra), "%u %s", role, cachectl_autowarm_role_setting);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &db->worker))
	{
		/* every max_worker_processes slot is taken: try again later */
		db->worker = NULL;
		ereport(LOG,
				(errmsg("pg_cachectl autowarm could not start a worker for database \"%s\"", db->name),
				 errhint("Raise max_worker_processes: autowarm needs one worker per database and its leader.")));
	}
}

/* A worker that has ended: when to launch the next, from how it ended. */
static void
after_worker_ended(WatchedDatabase *db, TimestampTz now)
{
	AutowarmDatabase *slot = autowarm_slot_find(db->database);
	int			delay = AUTOWARM_RETRY_SECONDS;

	pfree(db->worker);
	db->worker = NULL;
	if (slot == NULL)
		delay = AUTOWARM_PROBE_SECONDS; /* the database has no pg_cachectl */
	else if (slot->phase == AUTOWARM_DISABLED || slot->relaunch_now)
		delay = 0;				/* autowarm is on again, or the role changed */
	db->next_launch = TimestampTzPlusMilliseconds(now, delay * 1000);
}

/* autowarm off: cancel what the workers run; each then sees the setting and ends. */
static void
quiet_workers(void)
{
	for (int i = 0; i < watched_count; i++)
	{
		pid_t		pid;

		if (watched[i].worker != NULL &&
			GetBackgroundWorkerPid(watched[i].worker, &pid) == BGWH_STARTED)
			kill(pid, SIGINT);
	}
	SpinLockAcquire(&autowarm_shared->mutex);
	for (int i = 0; i < AUTOWARM_MAX_DATABASES; i++)
		if (autowarm_shared->databases[i].in_use)
			autowarm_shared->databases[i].phase = AUTOWARM_DISABLED;
	SpinLockRelease(&autowarm_shared->mutex);
}

void
pg_cachectl_autowarm_leader_main(Datum main_arg)
{
	TimestampTz next_scan = 0;
	bool		was_on = false;

	/* a shutdown is a clean stop between two rounds: no FATAL in the log */
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	while (!ShutdownRequestPending)
	{
		TimestampTz now;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		now = GetCurrentTimestamp();
		if (!cachectl_autowarm_setting)
		{
			if (was_on)
				quiet_workers();
			was_on = false;
		}
		else
		{
			if (!was_on)
				next_scan = 0;
			was_on = true;
			if (now >= next_scan)
			{
				scan_databases();
				next_scan = TimestampTzPlusMilliseconds(now, AUTOWARM_SCAN_SECONDS * 1000);
			}
			for (int i = 0; i < watched_count; i++)
			{
				WatchedDatabase *db = &watched[i];

				if (db->worker != NULL && !worker_running(db))
					after_worker_ended(db, now);
				if (db->worker == NULL && db->still_exists && db->allows_connections && now >= db->next_launch)
					launch_worker(db);
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	proc_exit(0);
}
