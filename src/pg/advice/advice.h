/*
 * advice.h — the sizing-advice area: what a larger or smaller shared_buffers
 * would buy.  It owns the sampler (advice_sampler: one background worker
 * that reads buffer headers and feeds the core's miniature pools), its
 * shared memory (advice_state), its settings (advice_settings), the reading
 * of headers and of the clock hand (advice_pool_watch), the measured counts
 * the curve is anchored to (advice_anchors) and the SQL reports
 * (advice_sql).
 *
 * This header: setting the area up from _PG_init.
 */
#ifndef PG_CACHECTL_ADVICE_H
#define PG_CACHECTL_ADVICE_H

/* The settings always; from shared_preload_libraries also memory and the sampler. */
extern void advice_init(bool preloading);

#endif							/* PG_CACHECTL_ADVICE_H */
