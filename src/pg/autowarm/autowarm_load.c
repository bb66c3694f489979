/*
 * autowarm_load.c — the autowarm worker loading a snapshot back, through
 * the loader CALL cachectl.restore() uses (snapshot_load.c): the worker
 * starts and commits a transaction per chunk, stops between chunks when it
 * should, paces the load at cachectl.autowarm_max_mb_per_sec (asked again
 * before each chunk: a reload may change it), and keeps the snapshot's
 * blocks in shared buffers to cachectl.autowarm_max_share of the pool.
 * What it adds: the figures in its shared state, the LOG lines, and the
 * fingerprint of what it loaded.  The label is read once per load, so a
 * reload that changes it meanwhile does not mix two snapshots.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "api/action_progress.h"
#include "api/api.h"
#include "autowarm/autowarm_settings.h"
#include "autowarm/autowarm_start_marker.h"
#include "autowarm/autowarm_worker.h"
#include "snapshots/snapshot_load.h"

/* The load under way, if any, and the rows it planned from (for autowarm_load_abandon). */
static bool load_in_progress = false;
static char planned_fingerprint[AUTOWARM_FINGERPRINT_LENGTH];

/* The worker's transactions: one per step, SPI connected, a snapshot set. */
static void
begin_statement_transaction(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

static void
end_statement_transaction(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
}

static double
autowarm_rate(void *arg)
{
	return cachectl_autowarm_max_mb_per_sec_setting;
}

/*
 * Inside a transaction with SPI connected: the newest taken_at of the
 * label's rows, false when it has none.  One probe of the index on (label,
 * taken_at), whatever the label's row count (the standby asks every
 * second).  A snapshot that only deletes rows (relations dropped or gone
 * cold) leaves it as it was: such a snapshot has nothing to load.
 */
bool
autowarm_newest_snapshot(const char *label, TimestampTz *taken_at)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(label)};
	bool		isnull;

	if (SPI_execute_with_args("SELECT s.taken_at FROM cachectl.snapshot AS s "
							  "WHERE s.label OPERATOR(pg_catalog.=) $1 "
							  "ORDER BY s.taken_at DESC LIMIT 1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the autowarm snapshot's rows");
	if (SPI_processed != 1)
		return false;
	*taken_at = DatumGetTimestampTz(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	return !isnull;
}

void
autowarm_fingerprint_of(bool has_rows, TimestampTz newest, char *fingerprint, size_t size)
{
	fingerprint[0] = '\0';
	if (has_rows)
		snprintf(fingerprint, size, INT64_FORMAT, (int64) newest);
}

/* Inside a transaction with SPI connected: the label's fingerprint now. */
static void
label_fingerprint(const char *label, char *fingerprint, size_t size)
{
	TimestampTz newest = 0;
	bool		has_rows = autowarm_newest_snapshot(label, &newest);

	autowarm_fingerprint_of(has_rows, newest, fingerprint, size);
}

void
autowarm_snapshot_fingerprint(char *fingerprint, size_t size)
{
	begin_statement_transaction();
	label_fingerprint(cachectl_autowarm_label_setting, fingerprint, size);
	end_statement_transaction();
}

/* Where a load's figures go: the start load's or the last follow load's. */
static AutowarmLoadFigures *
figures_of(AutowarmDatabase *slot, bool start)
{
	return start ? &slot->start_load : &slot->follow_load;
}

bool
autowarm_load(AutowarmDatabase *slot, bool missing_only, bool start, const char *why, bool (*should_stop) (void))
{
	char	   *label = pstrdup(cachectl_autowarm_label_setting);
	char		fingerprint[AUTOWARM_FINGERPRINT_LENGTH];
	SnapshotLoadRequest request = {
		.label = label,
		.target = "both",
		.missing_only = missing_only,
		.shared_share = cachectl_autowarm_max_share_setting,
		.for_user = false,
		.progress_name = "autowarm",
	};
	SnapshotLoadDriver driver = {
		.begin_step = begin_statement_transaction,
		.end_step = end_statement_transaction,
		.should_stop = should_stop,
		.rate_mb_per_sec = autowarm_rate,
	};
	SnapshotLoadResult result;
	double		seconds;
	AutowarmLoadFigures *figures = figures_of(slot, start);

	AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_LOADING);
	pgstat_report_activity(STATE_RUNNING, "pg_cachectl autowarm: loading");

	/*
	 * The fingerprint is read before the plan: a snapshot taken in between
	 * makes it older than what is loaded (loaded again later), never newer.
	 */
	autowarm_snapshot_fingerprint(fingerprint, sizeof(fingerprint));
	if (fingerprint[0] == '\0')
	{
		/* nothing recorded yet under the label */
		AUTOWARM_SHARED_UPDATE(slot->phase = AUTOWARM_IDLE;
						strlcpy(slot->loaded_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
		pgstat_report_activity(STATE_IDLE, NULL);
		return true;
	}
	strlcpy(planned_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH);
	load_in_progress = true;
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: loading cache snapshot \"%s\" into database \"%s\" (%s)",
					label, slot->database_name, why)));
	AUTOWARM_SHARED_UPDATE(memset(figures, 0, sizeof(*figures));
					figures->started = GetCurrentTimestamp());

	snapshot_load(&request, &driver, &result);

	seconds = seconds_between(result.started, result.finished);
	/*
	 * A load stopped midway (shutdown, autowarm off) has not loaded this
	 * snapshot: its fingerprint is not kept, so a following standby loads it
	 * again.
	 */
	AUTOWARM_SHARED_UPDATE(figures->finished = result.finished;
					figures->shared_blocks_loaded = result.shared_blocks_loaded;
					figures->os_blocks_loaded = result.os_blocks_loaded;
					figures->relations_skipped = result.relations_skipped;
					figures->seconds = seconds;
					slot->loads_done++;
					if (!result.stopped)
						strlcpy(slot->loaded_fingerprint, fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
	ereport(LOG,
			(errmsg("pg_cachectl autowarm: %s cache snapshot \"%s\" into database \"%s\": "
					INT64_FORMAT " shared and " INT64_FORMAT " OS blocks, " INT64_FORMAT " relations skipped, in %.3f s",
					result.stopped ? "stopped loading" : "loaded",
					label, slot->database_name,
					result.shared_blocks_loaded, result.os_blocks_loaded, result.relations_skipped, seconds)));
	load_in_progress = false;
	pgstat_report_activity(STATE_IDLE, NULL);
	pfree(label);
	return !result.stopped;
}

void
autowarm_load_abandon(AutowarmDatabase *slot)
{
	if (!load_in_progress)
		return;
	AUTOWARM_SHARED_UPDATE(slot->start_load_done = true;
					strlcpy(slot->loaded_fingerprint, planned_fingerprint, AUTOWARM_FINGERPRINT_LENGTH));
	/* an ERROR, recorded, is not a crash: the next server start may try */
	autowarm_start_marker_clear(MyDatabaseId);
	load_in_progress = false;
}
