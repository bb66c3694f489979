/*
 * autowarm_worker.h — what the parts of a database's autowarm worker share.
 */
#ifndef PG_CACHECTL_AUTOWARM_WORKER_H
#define PG_CACHECTL_AUTOWARM_WORKER_H

#include "autowarm/autowarm_state.h"

/*
 * True once the worker should stop what it is doing: the server shuts down
 * (SIGTERM) or a reload turned cachectl.autowarm off.  Long work asks it
 * between transactions.
 */
extern bool autowarm_should_stop(void);

/*
 * Loads the newest snapshot of the label into both layers, a chunk per
 * transaction (what restore_plan() plans); with missing_only only what is
 * not resident.  start says whose figures it updates in the status (the
 * start load's or the last follow load's); why says when in the LOG lines.
 * Returns false when it stopped before the end (should_stop(), asked
 * between chunks; the worker passes autowarm_should_stop):
 * such a load is not done, and the snapshot is not marked as loaded.
 */
extern bool autowarm_load(AutowarmDatabase *slot, bool missing_only, bool start, const char *why,
						  bool (*should_stop) (void));

/*
 * After an ERROR ended a load: it counts as done (the start load) and its
 * snapshot as loaded (following), so a persistent error is not met again at
 * each relaunch; the next newer snapshot is loaded as usual.
 */
extern void autowarm_load_abandon(AutowarmDatabase *slot);

/* The label's rows as they stand (their newest taken_at), "" when none. */
extern void autowarm_snapshot_fingerprint(char *fingerprint, size_t size);

/*
 * Inside a transaction with SPI connected: the newest taken_at of a label's
 * rows the user may see; false when there is none.
 */
extern bool autowarm_newest_snapshot(const char *label, TimestampTz *taken_at);

/*
 * The fingerprint of a label's rows as the worker keeps it (their newest
 * taken_at as int64 text, no time zone in it), "" when it has none.
 */
extern void autowarm_fingerprint_of(bool has_rows, TimestampTz newest, char *fingerprint, size_t size);

#endif							/* PG_CACHECTL_AUTOWARM_WORKER_H */
