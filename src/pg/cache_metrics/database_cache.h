/*
 * database_cache.h — both cache layers of every relation fork of the current
 * database, measured in one walk: one pass over the buffer pool, one listing
 * of each of the database's directories (so only forks that exist are
 * opened), cachestat (or mincore) counts per segment file, and an OS look at
 * only the blocks found in shared buffers.  No relation locks: a database may
 * hold more relations than the lock table; files that vanish meanwhile count
 * as empty.  The only walk of a database's relations over both layers:
 * what database_status(), database_summary() and top_relations() report.
 */
#ifndef PG_CACHECTL_DATABASE_CACHE_H
#define PG_CACHECTL_DATABASE_CACHE_H

#include "relation_set/database_relations.h"

/* One relation fork as the walk measured it, in bytes. */
typedef struct DatabaseForkCache
{
	const DatabaseRelation *relation;
	ForkNumber	fork;
	int64		size_bytes;			/* the fork's files */
	int64		shared_bytes;		/* in shared buffers */
	int64		shared_dirty_bytes; /* of those, dirty */
	int64		os_bytes;		/* in the OS page cache */
	int64		both_bytes;		/* in both: the very same blocks */
} DatabaseForkCache;

typedef void (*database_fork_visitor) (const DatabaseForkCache *fork, void *argument);

/*
 * Measures every fork of the given relations (database_relations_list) that
 * has a file or a shared buffer, and calls visit once for each, in relation
 * order, then fork order.  Cancellable; allocates in the current context.
 */
extern void database_cache_walk(const DatabaseRelation *relations, int relation_count,
								database_fork_visitor visit, void *argument);

#endif							/* PG_CACHECTL_DATABASE_CACHE_H */
