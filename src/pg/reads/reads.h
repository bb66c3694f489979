/*
 * reads.h — the reads area: where each read came from (a shared-buffer hit,
 * the OS page cache or the device), per query, per plan node and per relation.
 * It owns the per-node tracking (read_tracking), cachectl.explain_reads()
 * (explain_reads, with plan_node_names), the EXPLAIN option of 18 and later
 * (explain_option), and the per-relation counters: a backend's counting
 * (relation_reads_counting, which fills the shared table), the shared table
 * itself (relation_reads, which never calls the counting) and its SQL
 * functions (relation_reads_sql).
 *
 * This header: the executor hooks of the per-relation counters, installed by
 * _PG_init from shared_preload_libraries.
 */
#ifndef PG_CACHECTL_RELATION_READS_COUNTING_H
#define PG_CACHECTL_RELATION_READS_COUNTING_H

/* From shared_preload_libraries: ExecutorStart and ExecutorEnd hooks. */
extern void relation_reads_install_hooks(void);

#endif							/* PG_CACHECTL_RELATION_READS_COUNTING_H */
