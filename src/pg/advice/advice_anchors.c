/*
 * advice_anchors.c — pg_stat_database's block counters summed over the
 * cluster, and the baseline of track_reads' per-relation counters, for the
 * sizing advice.  The counters are read through the functions the
 * pg_stat_database view calls, which every major keeps.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_database.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "advice/advice_anchors.h"
#include "advice/advice_state.h"
#include "reads/relation_reads.h"

static void
add_database(ClusterBlockCounts *counts, Oid database)
{
	Datum		oid = ObjectIdGetDatum(database);
	Datum		reset;
	LOCAL_FCINFO(fcinfo, 1);

	counts->hits += (double) DatumGetInt64(DirectFunctionCall1(pg_stat_get_db_blocks_hit, oid));
	counts->accesses += (double) DatumGetInt64(DirectFunctionCall1(pg_stat_get_db_blocks_fetched, oid));
	/* NULL when the database's counters were never reset */
	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = oid;
	fcinfo->args[0].isnull = false;
	reset = pg_stat_get_db_stat_reset_time(fcinfo);
	if (!fcinfo->isnull && DatumGetTimestampTz(reset) > counts->last_reset)
		counts->last_reset = DatumGetTimestampTz(reset);
}

void
advice_read_cluster_counts(ClusterBlockCounts *counts)
{
	Relation	pg_database;
	TableScanDesc scan;
	HeapTuple	tuple;

	memset(counts, 0, sizeof(*counts));
	add_database(counts, InvalidOid);	/* the shared catalogs' row */
	pg_database = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(pg_database, 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
		add_database(counts, ((Form_pg_database) GETSTRUCT(tuple))->oid);
	table_endscan(scan);
	table_close(pg_database, AccessShareLock);
}

bool
advice_take_reads_baseline(TimestampTz *reset_at)
{
	RelationReadsEntry overflow;
	RelationReadsEntry *entries;
	int			count = 0;
	int			kept = 0;

	/* off, its counters stand still: a window's device reads would read 0 */
	if (!relation_reads_available() || !cachectl_track_reads_setting)
		return false;
	entries = relation_reads_copy(&count, &overflow, reset_at);
	for (int i = 0; i < count && kept < advice_baseline_capacity(); i++)
	{
		AdviceReadsBaseline *baseline = &advice_shared->baselines[kept++];

		baseline->database = entries[i].key.database;
		baseline->relation = entries[i].key.relation;
		baseline->shared_hit_blocks = entries[i].shared_hit_blocks;
		baseline->read_blocks = entries[i].reads.read_blocks;
		baseline->os_hit_blocks = entries[i].reads.os_hit_blocks;
		baseline->device_read_blocks = entries[i].reads.device_read_blocks;
		baseline->unsplit_read_blocks = entries[i].reads.unsplit_read_blocks;
	}
	advice_shared->baseline_count = kept;
	pfree(entries);
	return true;
}
