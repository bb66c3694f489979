/*
 * snapshot_restore.c — CALL cachectl.restore(): a user's load of a cache
 * snapshot, through the loader the autowarm worker uses (snapshot_load.c),
 * committing after each chunk through SPI.  Its counts come back in its
 * INOUT parameters (a procedure's OUT parameters cannot follow parameters
 * with defaults; what is passed in them is ignored).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "api/action_progress.h"
#include "api/api.h"
#include "api/call_arguments.h"
#include "api/transaction_block.h"
#include "snapshots/snapshot_load.h"

PG_FUNCTION_INFO_V1(pg_cachectl_restore);
PG_FUNCTION_INFO_V1(pg_cachectl_require_own_transaction);

#define RESTORE_COLUMNS 7

/* A CALL's transactions: SPI commits after each step and starts the next. */
static void
call_begin_step(void)
{
}

static void
call_end_step(void)
{
	SPI_commit();
}

static double
fixed_rate(void *arg)
{
	return *(const double *) arg;
}

/*
 * CALL cachectl.restore(label text DEFAULT 'default', target text DEFAULT 'both',
 *     max_mb_per_sec float8 DEFAULT NULL, INOUT relations_warmed int8, INOUT relations_skipped int8,
 *     INOUT relations_remapped int8, INOUT shared_blocks_loaded int8, INOUT os_blocks_loaded int8,
 *     INOUT seconds float8, INOUT matched_by text)
 */
Datum
pg_cachectl_restore(PG_FUNCTION_ARGS)
{
	SnapshotLoadRequest request = {0};
	SnapshotLoadDriver driver = {0};
	SnapshotLoadResult result;
	double		rate_mb_per_sec = 0;
	TupleDesc	result_desc;
	Datum		values[RESTORE_COLUMNS];
	bool		nulls[RESTORE_COLUMNS] = {0};
	double		seconds;

	require_own_transaction(fcinfo, "CALL cachectl.restore()");
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "restore must return a composite");
	/* the rate and target checked as every function checks them; NULLs by restore_plan() */
	if (!PG_ARGISNULL(1))
		(void) target_argument(fcinfo, 1);
	if (!PG_ARGISNULL(2))
		rate_mb_per_sec = rate_argument(fcinfo, 2) / (1024.0 * 1024.0);

	request.label = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	request.target = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	request.missing_only = false;
	request.shared_share = cachectl_prewarm_max_share_setting;
	request.for_user = true;
	request.progress_name = "restore";
	driver.begin_step = call_begin_step;
	driver.end_step = call_end_step;
	driver.rate_mb_per_sec = fixed_rate;
	driver.rate_arg = &rate_mb_per_sec;

	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	snapshot_load(&request, &driver, &result);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");

	seconds = seconds_between(result.started, result.finished);
	values[0] = Int64GetDatum(result.relations_warmed);
	values[1] = Int64GetDatum(result.relations_skipped);
	values[2] = Int64GetDatum(result.relations_remapped);
	values[3] = Int64GetDatum(result.shared_blocks_loaded);
	values[4] = Int64GetDatum(result.os_blocks_loaded);
	values[5] = Float8GetDatum(seconds);
	values[6] = result.matched_by ? CStringGetTextDatum(result.matched_by) : (Datum) 0;
	nulls[6] = result.matched_by == NULL;

	if (cachectl_log_actions_setting)
		ereport(LOG,
				(errmsg("cachectl restore of \"%s\": " INT64_FORMAT " relations warmed, " INT64_FORMAT " skipped, "
						INT64_FORMAT " remapped, " INT64_FORMAT " shared and " INT64_FORMAT " OS blocks loaded in %.3f s",
						request.label, result.relations_warmed, result.relations_skipped,
						result.relations_remapped, result.shared_blocks_loaded, result.os_blocks_loaded, seconds)));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}

/*
 * cachectl_internal.require_own_transaction(caller text): what restore() of
 * version 1.0 (PL/pgSQL) called first; kept for a server whose library is
 * newer than the extension's installed version until ALTER EXTENSION ...
 * UPDATE.
 */
Datum
pg_cachectl_require_own_transaction(PG_FUNCTION_ARGS)
{
	if (IsTransactionBlock())
		refuse_transaction_block(PG_ARGISNULL(0) ? "this procedure" : text_to_cstring(PG_GETARG_TEXT_PP(0)), true);
	PG_RETURN_VOID();
}
