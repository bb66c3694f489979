/*
 * snapshots.h — the snapshots area: which blocks of which relations a cache
 * holds, recorded in the replicated table cachectl.snapshots and loaded back.
 * It owns the recorder (snapshot_record: cachectl.snapshot(), which the
 * autowarm worker calls too), the runs it records (snapshot_runs), the rule
 * that says which relation a row names here (snapshot_match, by the cluster
 * identity of cluster_identity), the plan of a load (snapshot_plan), the one
 * loader (snapshot_load) and the user's CALL restore() (snapshot_restore).  It
 * uses the api, relation_set, shared_buffers, os_cache and both_layers areas;
 * the autowarm area uses it.
 *
 * This header: what the snapshot files share.
 */
#ifndef PG_CACHECTL_SNAPSHOTS_H
#define PG_CACHECTL_SNAPSHOTS_H

/*
 * The cluster's system identifier as snapshots record it (decimal text): the
 * same on a primary and its physical standbys, different after a dump and
 * restore.
 */
extern text *cluster_system_identifier(void);

#endif							/* PG_CACHECTL_SNAPSHOTS_H */
