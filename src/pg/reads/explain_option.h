/*
 * explain_option.h — EXPLAIN (ANALYZE, CACHECTL_READS): where each plan
 * node's reads came from, in every EXPLAIN format (PostgreSQL 18 and later,
 * whose EXPLAIN takes options from extensions; a no-op before).
 */
#ifndef PG_CACHECTL_EXPLAIN_OPTION_H
#define PG_CACHECTL_EXPLAIN_OPTION_H

/* Registers the option and the hooks it needs (from _PG_init). */
extern void explain_option_register(void);

/*
 * Drops a request an EXPLAIN left that no executor start took (it explained
 * a statement without a plan): explain_reads() tracks its own query.
 */
extern void explain_option_forget_request(void);

#endif							/* PG_CACHECTL_EXPLAIN_OPTION_H */
