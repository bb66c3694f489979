/*
 * relation_set.h — the relations a call works on, built the same way for
 * every function (see DESIGN.md, "Relation sets" and "Privileges"):
 *
 *  - a partitioned table (or index) stands for its leaf partitions;
 *  - cascade adds each table's TOAST table, TOAST index and indexes;
 *  - relations without storage (views, foreign tables, ...) are 42809;
 *  - duplicates are removed (from the named list before it is expanded,
 *    and from the expansion) and the set is kept in OID order;
 *  - a set holds at most RELATION_SET_MAX_RELATIONS relations (54000);
 *  - SELECT on the table each named relation belongs to is checked before
 *    anything is locked, for reports and actions alike; members are locked
 *    AccessShareLock in OID order, in batches the lock table can hold;
 *  - a member dropped while the set is built or locked is left out with a
 *    NOTICE.
 */
#ifndef PG_CACHECTL_RELATION_SET_H
#define PG_CACHECTL_RELATION_SET_H

/*
 * The most relations a set may hold, after duplicates are removed: a
 * million, far more than a database holds in practice, and few enough that
 * the set's bookkeeping stays a few megabytes.
 */
#define RELATION_SET_MAX_RELATIONS 1000000

typedef enum RelationSetPurpose
{
	/* reporting */
	RELATION_SET_REPORT,
	/*
	 * actions.  Temporary relations have buffers private to the backend
	 * that owns them: naming one is an error, one met while expanding a set
	 * is skipped with a NOTICE.
	 */
	RELATION_SET_ACTION,
	/* an action on a list of relations: the list is an expansion too, so
	 * temporary relations in it are skipped with a NOTICE */
	RELATION_SET_ACTION_ON_LIST
} RelationSetPurpose;

typedef struct RelationSet
{
	int			count;
	Oid		   *relids;			/* sorted, unique */
	int			locked_from;	/* the batch currently locked: [from, to) */
	int			locked_to;
} RelationSet;

extern RelationSet *relation_set_build(const Oid *named, int named_count,
									   bool cascade, RelationSetPurpose purpose);

/*
 * Lock the next batch of members, starting after the last batch (which is
 * unlocked first).  Returns false when no member is left.  Members dropped
 * before their lock was granted are removed from the batch.
 */
extern bool relation_set_lock_next_batch(RelationSet *set);

#endif							/* PG_CACHECTL_RELATION_SET_H */

