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

#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_state.h"

PG_FUNCTION_INFO_V1(pg_cachectl_autowarm_status);

#define AUTOWARM_STATUS_COLUMNS 25

static Datum
timestamp_or_null(TimestampTz value, bool *isnull)
{
	*isnull = value == 0;
	return TimestampTzGetDatum(value);
}

/* A load's six columns from first on: NULL until it has finished once. */
static void
put_load_columns(Datum *values, bool *nulls, int first, const AutowarmLoadFigures *load)
{
	bool		finished = load->started != 0 && load->finished != 0;

	values[first] = timestamp_or_null(load->started, &nulls[first]);
	values[first + 1] = timestamp_or_null(load->finished, &nulls[first + 1]);
	values[first + 2] = Int64GetDatum(load->shared_blocks_loaded);
	values[first + 3] = Int64GetDatum(load->os_blocks_loaded);
	values[first + 4] = Int64GetDatum(load->relations_skipped);
	values[first + 5] = Float8GetDatum(load->seconds);
	for (int i = first + 2; i < first + 6; i++)
		nulls[i] = !finished;
}

static void
put_status_row(ReturnSetInfo *rsinfo, const AutowarmDatabase *db)
{
	Datum		values[AUTOWARM_STATUS_COLUMNS];
	bool		nulls[AUTOWARM_STATUS_COLUMNS] = {0};
	bool		snapshot_taken = db->snapshots_taken > 0;

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
	put_load_columns(values, nulls, 8, &db->start_load);
	put_load_columns(values, nulls, 14, &db->follow_load);
	values[20] = Int64GetDatum(db->snapshots_taken);
	values[21] = Int64GetDatum(db->loads_done);
	values[22] = Int64GetDatum(db->failures);
	values[23] = CStringGetTextDatum(db->last_error);
	nulls[23] = db->last_error[0] == '\0';
	values[24] = timestamp_or_null(db->last_error_at, &nulls[24]);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl.autowarm_status() RETURNS TABLE (database name, role text, state text, pid int4,
 *     last_snapshot_at timestamptz, last_snapshot_rows_written int8, last_snapshot_wal_bytes int8,
 *     last_snapshot_seconds float8,
 *     start_load_started timestamptz, start_load_finished timestamptz, start_load_shared_blocks int8,
 *     start_load_os_blocks int8, start_load_relations_skipped int8, start_load_seconds float8,
 *     follow_load_started timestamptz, follow_load_finished timestamptz, follow_load_shared_blocks int8,
 *     follow_load_os_blocks int8, follow_load_relations_skipped int8, follow_load_seconds float8,
 *     snapshots_taken int8, loads_done int8, failures int8, last_error text, last_error_at timestamptz)
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
