/*
 * relation_set.c — from the relations a user names to the relations with
 * storage a call works on, with privileges checked (on each relation's
 * guard, decided here for every caller) and locks taken.
 *
 * Membership is read from the catalogs (pg_inherits, pg_index, pg_class)
 * without locks, so the whole set can then be locked in OID order; a member
 * dropped meanwhile is noticed after its lock is granted and left out.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/twophase.h"
#include "catalog/catalog.h"
#include "catalog/pg_authid.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "nodes/pg_list.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "api/version_compat.h"
#include "relation_set/relation_set.h"

struct RelationSet
{
	int			count;
	Oid		   *relids;			/* sorted, unique; InvalidOid once found dropped */
	int			locked_from;	/* the batch currently locked: [from, to) */
	int			locked_to;
	int			next;			/* the next member the walk returns */
};

typedef struct ToastOwner
{
	Oid			toast_relid;
	Oid			owner;
} ToastOwner;

struct ToastOwners
{
	ToastOwner *pairs;			/* sorted by toast_relid */
	int			count;
};

/* Members collected before sorting. */
typedef struct MemberList
{
	Oid		   *relids;
	int			count;
	int			capacity;
} MemberList;

static void
member_list_add(MemberList *members, Oid relid)
{
	if (members->count == members->capacity)
	{
		members->capacity = members->capacity == 0 ? 16 : members->capacity * 2;
		members->relids = members->relids == NULL
			? palloc(sizeof(Oid) * members->capacity)
			: repalloc(members->relids, sizeof(Oid) * members->capacity);
	}
	members->relids[members->count++] = relid;
}

static int
oid_compare(const void *a, const void *b)
{
	Oid			left = *(const Oid *) a;
	Oid			right = *(const Oid *) b;

	return (left > right) - (left < right);
}

/* The table whose TOAST table this is (InvalidOid if none is found). */
static Oid
toast_table_owner(Oid toast_relid)
{
	Relation	pg_class_rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			owner = InvalidOid;

	/* pg_class has no index on reltoastrelid: a filtered scan is the way */
	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_reltoastrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(toast_relid));
	scan = systable_beginscan(pg_class_rel, InvalidOid, false, NULL, 1, &key);
	if (HeapTupleIsValid(tuple = systable_getnext(scan)))
		owner = ((Form_pg_class) GETSTRUCT(tuple))->oid;
	systable_endscan(scan);
	table_close(pg_class_rel, AccessShareLock);
	return owner;
}

static int
toast_owner_by_toast(const void *a, const void *b)
{
	Oid			left = ((const ToastOwner *) a)->toast_relid;
	Oid			right = ((const ToastOwner *) b)->toast_relid;

	return (left > right) - (left < right);
}

ToastOwners *
toast_owners_read(void)
{
	ToastOwners *owners = palloc0(sizeof(ToastOwners));
	int			capacity = 256;
	Relation	pg_class_rel;
	SysScanDesc scan;
	HeapTuple	tuple;

	owners->pairs = palloc(sizeof(ToastOwner) * capacity);
	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(pg_class_rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		CHECK_FOR_INTERRUPTS();
		if (!OidIsValid(form->reltoastrelid))
			continue;
		if (owners->count == capacity)
		{
			capacity *= 2;
			owners->pairs = repalloc(owners->pairs, sizeof(ToastOwner) * capacity);
		}
		owners->pairs[owners->count].toast_relid = form->reltoastrelid;
		owners->pairs[owners->count].owner = form->oid;
		owners->count++;
	}
	systable_endscan(scan);
	table_close(pg_class_rel, AccessShareLock);
	if (owners->count > 1)
		qsort(owners->pairs, owners->count, sizeof(ToastOwner), toast_owner_by_toast);
	return owners;
}

static Oid
toast_owner_from(const ToastOwners *owners, Oid toast_relid)
{
	ToastOwner	key = {toast_relid, InvalidOid};
	const ToastOwner *found;

	if (owners == NULL)
		return toast_table_owner(toast_relid);
	found = bsearch(&key, owners->pairs, owners->count, sizeof(ToastOwner), toast_owner_by_toast);
	return found == NULL ? InvalidOid : found->owner;
}

/*
 * An index's table, a TOAST table's owner (through a TOAST index too), else
 * the relation itself — as pg_prewarm and core's own statistics functions
 * reason.
 */
Oid
relation_guard_table(Oid relid, char relkind, const ToastOwners *owners)
{
	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
	{
		relid = IndexGetRelation(relid, true);
		if (!OidIsValid(relid))
			return InvalidOid;	/* dropped meanwhile */
		relkind = get_rel_relkind(relid);
	}
	if (relkind == RELKIND_TOASTVALUE)
	{
		Oid			owner = toast_owner_from(owners, relid);

		if (OidIsValid(owner))
			relid = owner;
	}
	return relid;
}

bool
relation_guard_readable(Oid relid, char relkind, const ToastOwners *owners)
{
	Oid			table = relation_guard_table(relid, relkind, owners);
	bool		missing = false;

	if (!OidIsValid(table))
		return false;
	/* a table dropped meanwhile is not readable (the plain check raises 42P01) */
	return pg_class_aclcheck_ext(table, GetUserId(), ACL_SELECT, &missing) == ACLCHECK_OK &&
		!missing;
}

/* The schema-qualified name, quoted as format('%I.%I') quotes; NULL if gone. */
static char *
qualified_name_of(Oid namespace_oid, const char *relname)
{
	char	   *namespace_name = get_namespace_name(namespace_oid);

	if (namespace_name == NULL)
		return NULL;
	return quote_qualified_identifier(namespace_name, relname);
}

bool
relation_guard_describe(Oid relid, const ToastOwners *owners, RelationGuard *guard)
{
	HeapTuple	tuple;
	Form_pg_class form;
	Oid			namespace_oid;
	Oid			relfilenode;
	char	   *relname;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return false;
	form = (Form_pg_class) GETSTRUCT(tuple);
	if (!RELKIND_HAS_STORAGE(form->relkind))
	{
		ReleaseSysCache(tuple);
		return false;
	}
	guard->relid = relid;
	guard->relkind = form->relkind;
	guard->relpersistence = form->relpersistence;
	guard->relisshared = form->relisshared;
	namespace_oid = form->relnamespace;
	relfilenode = form->relfilenode;
	relname = pstrdup(NameStr(form->relname));
	ReleaseSysCache(tuple);

	guard->file_number = OidIsValid(relfilenode)
		? relfilenode : CACHECTL_MAPPED_FILE_NUMBER_OF(relid, guard->relisshared);
	guard->relation_name = qualified_name_of(namespace_oid, relname);
	guard->owner_table = relation_guard_table(relid, guard->relkind, owners);
	if (guard->relation_name == NULL || !OidIsValid(guard->owner_table))
		return false;
	if (guard->owner_table == relid)
		guard->owner_table_name = guard->relation_name;
	else
	{
		char	   *owner_name = get_rel_name(guard->owner_table);

		if (owner_name == NULL)
			return false;
		guard->owner_table_name = qualified_name_of(get_rel_namespace(guard->owner_table),
													owner_name);
		if (guard->owner_table_name == NULL)
			return false;
	}
	return true;
}

static void
relation_gone_error(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("relation with OID %u does not exist", relid)));
}

bool
may_report_every_relation(void)
{
	return has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

/*
 * Actions need SELECT on the table a named relation belongs to (their
 * per-relation counts reveal residency too, and they change it); reports
 * need it too, unless the user may see every relation in reports.
 */
static void
check_select_privilege(Oid relid, char relkind, RelationSetPurpose purpose)
{
	Oid			table = relation_guard_table(relid, relkind, NULL);
	bool		missing = false;
	AclResult	result;
	char	   *table_name;

	if (!OidIsValid(table))
		relation_gone_error(relid);
	result = pg_class_aclcheck_ext(table, GetUserId(), ACL_SELECT, &missing);
	if (missing)
		relation_gone_error(table);
	if (result == ACLCHECK_OK)
		return;
	if (purpose == RELATION_SET_REPORT && may_report_every_relation())
		return;
	table_name = get_rel_name(table);
	if (table_name == NULL)
		relation_gone_error(table);
	aclcheck_error(result, get_relkind_objtype(get_rel_relkind(table)), table_name);
}

/* Every index of a table, from pg_index (valid or not: all have storage). */
static void
add_indexes_of(MemberList *members, Oid table_relid)
{
	Relation	pg_index_rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;

	pg_index_rel = table_open(IndexRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_index_indrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(table_relid));
	scan = systable_beginscan(pg_index_rel, IndexIndrelidIndexId, true,
							  NULL, 1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		member_list_add(members, ((Form_pg_index) GETSTRUCT(tuple))->indexrelid);
	systable_endscan(scan);
	table_close(pg_index_rel, AccessShareLock);
}

/*
 * A partitioned table or index and everything below it, at any depth, read
 * from pg_inherits without locks.  Not find_all_inheritors(): it asks
 * has_subclass() about each child it meets, and that raises XX000 "cache
 * lookup failed" for a child dropped since pg_inherits listed it (a
 * partition detached and dropped concurrently).  Here such a child merely
 * has no rows of its own; add_member() then finds it gone.  A partition
 * whose detach is still pending is listed: it is a partition until the
 * detach completes.  Duplicates do no harm (the set is made unique later).
 */
static List *
partition_tree_of(Oid root)
{
	List	   *tree = list_make1_oid(root);
	Relation	pg_inherits_rel = table_open(InheritsRelationId, AccessShareLock);

	/* the list is walked while it grows: each entry's children go at its end */
	for (int next = 0; next < list_length(tree); next++)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;

		CHECK_FOR_INTERRUPTS();
		ScanKeyInit(&key, Anum_pg_inherits_inhparent, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(list_nth_oid(tree, next)));
		scan = systable_beginscan(pg_inherits_rel, InheritsParentIndexId, true,
								  NULL, 1, &key);
		while (HeapTupleIsValid(tuple = systable_getnext(scan)))
			tree = lappend_oid(tree, ((Form_pg_inherits) GETSTRUCT(tuple))->inhrelid);
		systable_endscan(scan);
	}
	table_close(pg_inherits_rel, AccessShareLock);
	return tree;
}

/* Adds a relation with storage and, with cascade, its TOAST and indexes. */
static void
add_member(MemberList *members, Oid relid, bool cascade)
{
	HeapTuple	tuple;
	char		relkind;
	Oid			toast_relid;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return;					/* dropped since it was listed */
	relkind = ((Form_pg_class) GETSTRUCT(tuple))->relkind;
	toast_relid = ((Form_pg_class) GETSTRUCT(tuple))->reltoastrelid;
	ReleaseSysCache(tuple);

	if (!RELKIND_HAS_STORAGE(relkind))
		return;					/* e.g. an intermediate partitioned table */
	member_list_add(members, relid);

	if (!cascade || relkind == RELKIND_INDEX || relkind == RELKIND_SEQUENCE)
		return;
	if (OidIsValid(toast_relid))
	{
		member_list_add(members, toast_relid);
		add_indexes_of(members, toast_relid);
	}
	add_indexes_of(members, relid);
}

/* Checks one named relation and adds what it stands for. */
static void
add_named_relation(MemberList *members, Oid relid, bool cascade,
				   RelationSetPurpose purpose)
{
	HeapTuple	tuple;
	Form_pg_class form;
	char		relkind;
	char		relpersistence;
	bool		relisshared;
	char	   *relname;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		relation_gone_error(relid);
	form = (Form_pg_class) GETSTRUCT(tuple);
	relkind = form->relkind;
	relpersistence = form->relpersistence;
	relisshared = form->relisshared;
	relname = pstrdup(NameStr(form->relname));
	ReleaseSysCache(tuple);

	if (!RELKIND_HAS_STORAGE(relkind) && !RELKIND_HAS_PARTITIONS(relkind))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation \"%s\" has no storage", relname),
				 errdetail_relkind_not_supported(relkind)));

	check_select_privilege(relid, relkind, purpose);

	if (purpose == RELATION_SET_SNAPSHOT && relisshared)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot snapshot shared relation \"%s\"", relname),
				 errhint("Shared catalogs belong to no database; snapshots record the relations of the current one.")));

	if ((purpose == RELATION_SET_ACTION || purpose == RELATION_SET_SNAPSHOT) &&
		relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot act on temporary relation \"%s\"", relname),
				 errdetail("Its buffers are local to the session that created it.")));

	if (RELKIND_HAS_PARTITIONS(relkind))
	{
		List	   *partitions = partition_tree_of(relid);
		ListCell   *cell;

		foreach(cell, partitions)
		{
			CHECK_FOR_INTERRUPTS();
			add_member(members, lfirst_oid(cell), cascade);
		}
		list_free(partitions);
	}
	else
		add_member(members, relid, cascade);
}

/* Says that a member was left out because it was dropped meanwhile. */
static void
notice_member_gone(Oid relid)
{
	ereport(NOTICE,
			(errmsg("skipping relation with OID %u: dropped while the call ran", relid)));
}

/*
 * For actions: leave out temporary members, saying so.  The members were
 * listed without locks: one dropped since (an index dropped concurrently,
 * the old index of REINDEX CONCURRENTLY) is left out too.
 */
static void
skip_temporary_members(MemberList *members)
{
	int			kept = 0;

	for (int i = 0; i < members->count; i++)
	{
		Oid			relid = members->relids[i];
		HeapTuple	tuple;
		Form_pg_class form;

		CHECK_FOR_INTERRUPTS();
		tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (!HeapTupleIsValid(tuple))
		{
			notice_member_gone(relid);
			continue;
		}
		form = (Form_pg_class) GETSTRUCT(tuple);
		if (form->relpersistence == RELPERSISTENCE_TEMP)
		{
			ereport(NOTICE,
					(errmsg("skipping temporary relation \"%s\"", NameStr(form->relname)),
					 errdetail("Its buffers are local to the session that created it.")));
			ReleaseSysCache(tuple);
			continue;
		}
		ReleaseSysCache(tuple);
		members->relids[kept++] = relid;
	}
	members->count = kept;
}

/* Sorts relids and removes duplicates; returns how many remain. */
static int
sort_unique_oids(Oid *relids, int count)
{
	int			unique = 0;

	if (count > 1)
		qsort(relids, count, sizeof(Oid), oid_compare);
	for (int i = 0; i < count; i++)
		if (unique == 0 || relids[unique - 1] != relids[i])
			relids[unique++] = relids[i];
	return unique;
}

/*
 * For snapshots: SELECT on every member's guard.  The snapshot table's
 * policy lets a role write a row only for a relation it may read, and a
 * partition's table is itself, not the partitioned table named: refused
 * here, before anything is measured, rather than by the policy at the end.
 * A member dropped meanwhile is left to the caller, which finds it gone.
 */
static void
check_members_readable(const MemberList *members)
{
	ToastOwners *owners = toast_owners_read();

	for (int i = 0; i < members->count; i++)
	{
		Oid			relid = members->relids[i];
		char		relkind = get_rel_relkind(relid);
		Oid			table;
		bool		missing = false;
		AclResult	result;
		char	   *table_name;

		CHECK_FOR_INTERRUPTS();
		if (relkind == '\0')
			continue;
		table = relation_guard_table(relid, relkind, owners);
		if (!OidIsValid(table))
			continue;
		result = pg_class_aclcheck_ext(table, GetUserId(), ACL_SELECT, &missing);
		if (missing || result == ACLCHECK_OK)
			continue;
		table_name = get_rel_name(table);
		if (table_name != NULL)
			aclcheck_error(result, get_relkind_objtype(get_rel_relkind(table)), table_name);
	}
}

static void
check_set_size(int count, bool named)
{
	if (count <= RELATION_SET_MAX_RELATIONS)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("a relation set may hold at most %d relations", RELATION_SET_MAX_RELATIONS),
			 named
			 ? errdetail("The call names %d distinct relations.", count)
			 : errdetail("The relations named expand to %d relations.", count),
			 errhint("Split the work into several calls.")));
}

RelationSet *
relation_set_build(const Oid *named, int named_count, bool cascade,
				   RelationSetPurpose purpose)
{
	MemberList	members = {0};
	RelationSet *set = palloc0(sizeof(RelationSet));
	Oid		   *distinct = palloc(sizeof(Oid) * Max(named_count, 1));
	int			distinct_count;

	/* a list of one relation repeated a million times is one relation */
	memcpy(distinct, named, sizeof(Oid) * named_count);
	distinct_count = sort_unique_oids(distinct, named_count);
	check_set_size(distinct_count, true);

	for (int i = 0; i < distinct_count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		add_named_relation(&members, distinct[i], cascade, purpose);
	}
	pfree(distinct);

	members.count = sort_unique_oids(members.relids, members.count);
	check_set_size(members.count, false);

	if (purpose != RELATION_SET_REPORT)
		skip_temporary_members(&members);
	if (purpose == RELATION_SET_SNAPSHOT)
		check_members_readable(&members);

	set->count = members.count;
	set->relids = members.relids;
	return set;
}

/* How many members a batch may hold. */
static int
relation_set_batch_size(void)
{
	/*
	 * The shared lock table holds about max_locks_per_transaction entries per
	 * backend; taking a quarter of all of them leaves room for everyone else.
	 */
	int			size = max_locks_per_xact * (MaxBackends + max_prepared_xacts) / 4;

	return Max(size, max_locks_per_xact);
}

static void
unlock_current_batch(RelationSet *set)
{
	for (int i = set->locked_from; i < set->locked_to; i++)
		if (OidIsValid(set->relids[i]))
			UnlockRelationOid(set->relids[i], AccessShareLock);
	set->locked_from = set->locked_to;
}

bool
relation_set_lock_next_batch(RelationSet *set)
{
	int			batch_size = relation_set_batch_size();
	int			end;

	unlock_current_batch(set);
	set->next = set->locked_to;
	if (set->locked_to >= set->count)
		return false;

	end = Min(set->count, set->locked_to + batch_size);
	/* a set the lock table cannot hold at once: say where the work stands */
	if (set->locked_to > 0 || end < set->count)
		ereport(NOTICE,
				(errmsg("cachectl: working on relations %d to %d of %d",
						set->locked_to + 1, end, set->count),
				 errdetail("The lock table holds %d relations of this set at a time.",
						   batch_size)));
	for (int i = set->locked_to; i < end; i++)
	{
		Oid			relid = set->relids[i];

		LockRelationOid(relid, AccessShareLock);
		/* granting the lock processed invalidations: is it still there? */
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		{
			UnlockRelationOid(relid, AccessShareLock);
			set->relids[i] = InvalidOid;
			notice_member_gone(relid);
		}
	}
	set->locked_to = end;
	return true;
}

void
relation_set_walk_batch(RelationSet *set)
{
	set->next = set->locked_from;
}

bool
relation_set_next_locked(RelationSet *set, Oid *relid)
{
	while (set->next < set->locked_to)
	{
		Oid			member = set->relids[set->next++];

		if (OidIsValid(member))
		{
			*relid = member;
			return true;
		}
	}
	return false;
}

bool
relation_set_next_member(RelationSet *set, Oid *relid)
{
	while (!relation_set_next_locked(set, relid))
	{
		if (!relation_set_lock_next_batch(set))
			return false;
	}
	return true;
}

bool
relation_set_next_unlocked(RelationSet *set, Oid *relid)
{
	Assert(set->locked_to == 0);
	if (set->next >= set->count)
		return false;
	*relid = set->relids[set->next++];
	return true;
}

void
require_unpartitioned(Oid relid, const char *function)
{
	char		relkind = get_rel_relkind(relid);

	if (relkind == RELKIND_PARTITIONED_TABLE || relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s works on one relation with storage, and \"%s\" is partitioned",
						function, get_rel_name(relid)),
				 errhint("Name one of its partitions.")));
}

RelationSet *
lock_one_relation(Oid relid, const char *function, RelationSetPurpose purpose)
{
	RelationSet *set;

	require_unpartitioned(relid, function);
	set = relation_set_build(&relid, 1, false, purpose);
	if (!relation_set_lock_next_batch(set) || set->count != 1 || !OidIsValid(set->relids[0]))
		relation_gone_error(relid);
	return set;
}
