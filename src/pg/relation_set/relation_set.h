/*
 * The relation_set area: from the relations a user names to the relations
 * with storage a call works on, privileges checked and locks taken, for every
 * function.  It owns relation sets and their guards (relation_set), every
 * relation with storage of the current database (database_relations), a fork's
 * files, size and page size (fork_files), and the relation_guard view and a
 * snapshot's relation list as SQL reads them (relation_guard).  It uses only the
 * api area; every family of SQL functions uses it.
 *
 * relation_set.h — the relations a call works on, built the same way for
 * every function (see DESIGN.md, "Relation sets" and "Privileges"):
 *
 *  - a partitioned table (or index) stands for its leaf partitions;
 *  - cascade adds each table's TOAST table, TOAST index and indexes;
 *  - relations without storage (views, foreign tables, ...) are 42809;
 *  - duplicates are removed (from the named list before it is expanded,
 *    and from the expansion) and the set is kept in OID order;
 *  - a set holds at most RELATION_SET_MAX_RELATIONS relations (54000);
 *  - SELECT on the table each named relation belongs to (its guard, below)
 *    is checked before anything is locked, for reports and actions alike;
 *    members are locked AccessShareLock in OID order, in batches the lock
 *    table can hold;
 *  - a member dropped while the set is built or locked is left out with a
 *    NOTICE.
 *
 * The guard of a relation — the table whose SELECT privilege protects what
 * is known of its pages — is decided here too, for sets, for the database
 * lists of database_relations.c, for snapshots and for the relation_guard
 * view: the relation itself, an index's table, a TOAST table's owner.
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
	RELATION_SET_ACTION_ON_LIST,
	/*
	 * a snapshot: as an action, and a shared catalog named is refused (its
	 * rows would belong to no one database); SELECT is checked on every
	 * member's guard, as the snapshot table's policy checks each row.
	 */
	RELATION_SET_SNAPSHOT
} RelationSetPurpose;

/* A set's members and where its walk stands; read through the calls below. */
typedef struct RelationSet RelationSet;

extern RelationSet *relation_set_build(const Oid *named, int named_count,
									   bool cascade, RelationSetPurpose purpose);

/*
 * Lock the next batch of members, starting after the last batch (which is
 * unlocked first).  Returns false when no member is left.  Members dropped
 * before their lock was granted are left out of the batch.
 */
extern bool relation_set_lock_next_batch(RelationSet *set);

/*
 * The next member of the batch locked last, in OID order; false at the end
 * of the batch.  Locking a batch starts a walk of it; relation_set_walk_batch()
 * starts another (cold() passes over the pool twice per batch).
 */
extern bool relation_set_next_locked(RelationSet *set, Oid *relid);
extern void relation_set_walk_batch(RelationSet *set);

/*
 * The next member of the set, locked: each batch is locked (the one before
 * it unlocked) when the walk reaches it; false at the end, with the last
 * batch unlocked.  For calls that work member by member; a pass over the
 * pool per batch walks the batches itself, with the two calls above.
 */
extern bool relation_set_next_member(RelationSet *set, Oid *relid);

/*
 * The next member of a set that is never locked (for callers that read only
 * the catalogs, such as snapshots' relation list); false at the end.
 */
extern bool relation_set_next_unlocked(RelationSet *set, Oid *relid);

/*
 * Checks that relid names one relation with storage, not a partitioned one
 * (42809: what works on one fork of one relation cannot stand for many),
 * then builds its set for `purpose` and locks it; returns the set with its
 * one member locked, for the calls that take a set.  42P01 if it is gone.
 */
extern RelationSet *lock_one_relation(Oid relid, const char *function, RelationSetPurpose purpose);

/* The 42809 check alone, for calls that expand a set only without a range. */
extern void require_unpartitioned(Oid relid, const char *function);

/*
 * The owners of TOAST tables, read in one scan of pg_class: for callers that
 * ask for the guards of many relations (pg_class has no index on
 * reltoastrelid, so one question would be one scan).
 */
typedef struct ToastOwners ToastOwners;

extern ToastOwners *toast_owners_read(void);

/*
 * The guard of a relation of the given kind; owners may be NULL (then a
 * TOAST table's owner is looked up alone).  InvalidOid if an index's table
 * is gone.
 */
extern Oid	relation_guard_table(Oid relid, char relkind, const ToastOwners *owners);

/*
 * Whether the user may see every relation in reports: residency is
 * metadata, which pg_read_all_stats (and so pg_monitor) reads for every
 * relation, as pg_buffercache shows it every buffer's.  Actions still need
 * SELECT on each relation.
 */
extern bool may_report_every_relation(void);

/* Whether the user may SELECT the guard: false, never an error, if it is gone. */
extern bool relation_guard_readable(Oid relid, char relkind, const ToastOwners *owners);

/* What the snapshots record of a relation with storage, and its guard. */
typedef struct RelationGuard
{
	Oid			relid;
	char		relkind;
	char		relpersistence;
	bool		relisshared;
	Oid			file_number;	/* as pg_relation_filenode() gives it */
	char	   *relation_name;	/* schema-qualified, quoted as needed */
	Oid			owner_table;	/* the guard */
	char	   *owner_table_name;
} RelationGuard;

/* Fills *guard; false for a relation gone or without storage, or whose guard is gone. */
extern bool relation_guard_describe(Oid relid, const ToastOwners *owners, RelationGuard *guard);

#endif							/* PG_CACHECTL_RELATION_SET_H */
