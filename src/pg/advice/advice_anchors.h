/*
 * advice_anchors.h — the measured counts the sizing curve is anchored to:
 * shared-buffer hits and accesses of the whole cluster (pg_stat_database's
 * counters of every database and of the shared catalogs), and the
 * per-relation read sources of track_reads.
 */
#ifndef PG_CACHECTL_ADVICE_ANCHORS_H
#define PG_CACHECTL_ADVICE_ANCHORS_H

#include "datatype/timestamp.h"

typedef struct ClusterBlockCounts
{
	double		hits;			/* blks_hit summed */
	double		accesses;		/* blks_hit + blks_read summed */
	TimestampTz last_reset;		/* the latest stats_reset of any database */
} ClusterBlockCounts;

/*
 * Sums pg_stat_database's counters over every database (read in
 * pg_database, a shared catalog) and the shared row; in a transaction.
 */
extern void advice_read_cluster_counts(ClusterBlockCounts *counts);

/*
 * Copies track_reads' counters into the shared baselines (under the advice
 * lock, taken exclusively by the caller); false when track_reads has no
 * memory.  *reset_at: its last reset.
 */
extern bool advice_take_reads_baseline(TimestampTz *reset_at);

#endif							/* PG_CACHECTL_ADVICE_ANCHORS_H */
