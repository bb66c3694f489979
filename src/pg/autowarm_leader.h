/*
 * autowarm_leader.h — registering the autowarm leader at server start.
 */
#ifndef PG_CACHECTL_AUTOWARM_LEADER_H
#define PG_CACHECTL_AUTOWARM_LEADER_H

extern void autowarm_register_leader(void);

#endif							/* PG_CACHECTL_AUTOWARM_LEADER_H */
