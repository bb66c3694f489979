/*
 * autowarm_status.c — cachectl.autowarm_status(): the autowarm worker of
 * each database, as the slots in shared memory say.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "commands/dbcommands.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"	/* get_database_name, there from 19 on */
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "autowarm_settings.h"
#include "autowarm_state.h"

PG_FUNCTION_INFO_V1(pg_cachectl_autowarm_status);

#define AUTOWARM_STATUS_COLUMNS 19

static Datum
timestamp_or_null(TimestampTz value, bool *isnull)
{
	*isnull = value == 0;
	return TimestampTzGetDatum(value);
}

static void
put_status_row(ReturnSetInfo *rsinfo, const AutowarmDatabase *db)
{
	Datum		values[AUTOWARM_STATUS_COLUMNS];
	bool		nulls[AUTOWARM_STATUS_COLUMNS] = {0};
	bool		snapshot_taken = db->snapshots_taken > 0;
	bool		load_done = db->load_started != 0;

	values[0] = CStringGetTextDatum(db->database_name);
	values[1] = CStringGetTextDatum(db->standby ? "standby" : "primary");
	values[2] = CStringGetTextDatum(autowarm_phase_name(db->phase));
	values[3] = Int32GetDatum(db->pid);
	nulls[3] = db->pid == 0;
	values[4] = timestamp_or_null(db->snapshot_at, &nulls[4]);
	values[5] = Int64GetDatum(db->snapshot_rows_written);
	values[6] = Int64GetDatum(db->snapshot_wal_bytes);
	values[7] = Float8GetDatum(db->snapshot_seconds);
	nulls[5] = nulls[6] = nulls[7] = !snapshot_taken;
	values[8] = timestamp_or_null(db->load_started, &nulls[8]);
	values[9] = timestamp_or_null(db->load_finished, &nulls[9]);
	values[10] = Int64GetDatum(db->load_shared_blocks);
	values[11] = Int64GetDatum(db->load_os_blocks);
	values[12] = Int64GetDatum(db->load_relations_skipped);
	values[13] = Float8GetDatum(db->load_seconds);
	nulls[10] = nulls[11] = nulls[12] = nulls[13] = !load_done || db->load_finished == 0;
	values[14] = Int64GetDatum(db->snapshots_taken);
	values[15] = Int64GetDatum(db->loads_done);
	values[16] = Int64GetDatum(db->failures);
	values[17] = CStringGetTextDatum(db->last_error);
	nulls[17] = db->last_error[0] == '\0';
	values[18] = timestamp_or_null(db->last_error_at, &nulls[18]);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl.autowarm_status() RETURNS TABLE (database name, role text, state text, pid int4,
 *     last_snapshot_at timestamptz, last_snapshot_rows_written int8, last_snapshot_wal_bytes int8,
 *     last_snapshot_seconds float8, last_load_started timestamptz, last_load_finished timestamptz,
 *     last_load_shared_blocks int8, last_load_os_blocks int8, last_load_relations_skipped int8,
 *     last_load_seconds float8, snapshots_taken int8, loads_done int8, failures int8,
 *     last_error text, last_error_at timestamptz)
 *
 * A row per database the worker watches, and one for the current database
 * when it has none (state disabled; last_error says why when the worker
 * cannot run at all).
 */
Datum
pg_cachectl_autowarm_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AutowarmDatabase *copies = palloc0(sizeof(AutowarmDatabase) * AUTOWARM_MAX_DATABASES);
	int			count = 0;
	bool		current_seen = false;

	InitMaterializedSRF(fcinfo, 0);
	if (autowarm_shared != NULL)
	{
		/* copied out first: no palloc or error under the spinlock */
		SpinLockAcquire(&autowarm_shared->mutex);
		for (int i = 0; i < AUTOWARM_MAX_DATABASES; i++)
			if (autowarm_shared->databases[i].in_use)
				copies[count++] = autowarm_shared->databases[i];
		SpinLockRelease(&autowarm_shared->mutex);
	}
	for (int i = 0; i < count; i++)
	{
		put_status_row(rsinfo, &copies[i]);
		current_seen |= copies[i].database == MyDatabaseId;
	}
	if (!current_seen)
	{
		AutowarmDatabase here;

		memset(&here, 0, sizeof(here));
		strlcpy(here.database_name, get_database_name(MyDatabaseId), NAMEDATALEN);
		here.standby = RecoveryInProgress();
		here.phase = AUTOWARM_DISABLED;
		if (autowarm_shared == NULL)
			strlcpy(here.last_error, "pg_cachectl is not in shared_preload_libraries: the autowarm worker cannot run",
					AUTOWARM_ERROR_LENGTH);
		else if (cachectl_autowarm_setting)
			here.phase = AUTOWARM_STARTING; /* the leader launches it within seconds */
		put_status_row(rsinfo, &here);
	}
	return (Datum) 0;
}
