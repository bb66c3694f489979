/*
 * autowarm.h — the autowarm area: bringing a restarted server or a promoted
 * standby back warm with no call.  It owns the leader (autowarm_leader: one
 * background worker that keeps a worker per database), the worker of one
 * database (autowarm_database: snapshots on a primary, loads at start and on a
 * standby, through autowarm_load), their shared memory (autowarm_state) and
 * settings (autowarm_settings), the crash-proof marker of a start load
 * (autowarm_start_marker), DROP DATABASE sending a worker away first
 * (autowarm_drop_database), the status view (autowarm_status) and the gate of
 * a planned switchover (autowarm_wait).  It records and loads through the
 * snapshots area.
 *
 * This header: registering the leader at server start.
 */
#ifndef PG_CACHECTL_AUTOWARM_LEADER_H
#define PG_CACHECTL_AUTOWARM_LEADER_H

extern void autowarm_register_leader(void);

#endif							/* PG_CACHECTL_AUTOWARM_LEADER_H */
