/*
 * autowarm_drop_database.h — DROP DATABASE sends the autowarm worker away
 * first, whoever drops the database.
 */
#ifndef PG_CACHECTL_AUTOWARM_DROP_DATABASE_H
#define PG_CACHECTL_AUTOWARM_DROP_DATABASE_H

extern void autowarm_install_drop_database_hook(void);

#endif							/* PG_CACHECTL_AUTOWARM_DROP_DATABASE_H */
