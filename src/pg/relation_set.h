/*
 * relation_set.h — the relations a call works on, built the same way for
 * every function (see DESIGN.md, "Relation sets" and "Privileges"):
 *
 *  - a partitioned table (or index) stands for its leaf partitions;
 *  - cascade adds each table's TOAST table, TOAST index and indexes;
 *  - relations without storage (views, foreign tables, ...) are 42809;
 *  - duplicates are removed and the set is kept in OID order;
 *  - privileges of the named relations are checked before anything is
 *    locked; members are locked AccessShareLock in OID order, in batches
 *    the lock table can hold.
 */
#ifndef PG_CACHECTL_RELATION_SET_H
#define PG_CACHECTL_RELATION_SET_H

typedef enum RelationSetPurpose
{
	/* reporting: needs SELECT on the table each named relation belongs to */
	RELATION_SET_REPORT,
	/*
	 * actions: EXECUTE on the function is the gate.  Temporary relations
	 * have buffers private to the backend that owns them: naming one is an
	 * error, one met while expanding a set is skipped with a NOTICE.
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

