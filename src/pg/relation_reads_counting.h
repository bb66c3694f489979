/*
 * relation_reads_counting.h — a backend's side of the per-relation counters:
 * the executor hooks that track each query's reads while
 * cachectl.track_reads is on, and the relations each plan node reads.
 */
#ifndef PG_CACHECTL_RELATION_READS_COUNTING_H
#define PG_CACHECTL_RELATION_READS_COUNTING_H

/* From shared_preload_libraries: ExecutorStart and ExecutorEnd hooks. */
extern void relation_reads_install_hooks(void);

#endif							/* PG_CACHECTL_RELATION_READS_COUNTING_H */
