/*
 * relation_set.c — from the relations a user names to the relations with
 * storage a call works on, with privileges checked and locks taken.
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
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "relation_set.h"

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

/*
 * The table privileges are checked on: an index's table, a TOAST table's
 * owner (through a TOAST index too), else the relation itself — as
 * pg_prewarm and core's own statistics functions reason.
 */
static Oid
privilege_table_of(Oid relid, char relkind)
{
	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
	{
		relid = IndexGetRelation(relid, false);
		relkind = get_rel_relkind(relid);
	}
	if (relkind == RELKIND_TOASTVALUE)
	{
		Oid			owner = toast_table_owner(relid);

		if (OidIsValid(owner))
			relid = owner;
	}
	return relid;
}

static void
check_report_privilege(Oid relid, char relkind)
{
	Oid			table = privilege_table_of(relid, relkind);
	AclResult	result = pg_class_aclcheck(table, GetUserId(), ACL_SELECT);

	if (result != ACLCHECK_OK)
		aclcheck_error(result, get_relkind_objtype(get_rel_relkind(table)),
					   get_rel_name(table));
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

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	form = (Form_pg_class) GETSTRUCT(tuple);
	relkind = form->relkind;
	relpersistence = form->relpersistence;
	ReleaseSysCache(tuple);

	if (!RELKIND_HAS_STORAGE(relkind) && !RELKIND_HAS_PARTITIONS(relkind))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation \"%s\" has no storage", get_rel_name(relid)),
				 errdetail_relkind_not_supported(relkind)));

	if (purpose == RELATION_SET_REPORT)
		check_report_privilege(relid, relkind);

	if (purpose == RELATION_SET_ACTION && relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot act on temporary relation \"%s\"", get_rel_name(relid)),
				 errdetail("Its buffers are local to the session that created it.")));

	if (RELKIND_HAS_PARTITIONS(relkind))
	{
		List	   *partitions = find_all_inheritors(relid, NoLock, NULL);
		ListCell   *cell;

		foreach(cell, partitions)
			add_member(members, lfirst_oid(cell), cascade);
		list_free(partitions);
	}
	else
		add_member(members, relid, cascade);
}

/* For actions: leave out temporary members, saying so. */
static void
skip_temporary_members(MemberList *members)
{
	int			kept = 0;

	for (int i = 0; i < members->count; i++)
	{
		Oid			relid = members->relids[i];

		if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		{
			ereport(NOTICE,
					(errmsg("skipping temporary relation \"%s\"", get_rel_name(relid)),
					 errdetail("Its buffers are local to the session that created it.")));
			continue;
		}
		members->relids[kept++] = relid;
	}
	members->count = kept;
}

RelationSet *
relation_set_build(const Oid *named, int named_count, bool cascade,
				   RelationSetPurpose purpose)
{
	MemberList	members = {0};
	RelationSet *set = palloc0(sizeof(RelationSet));
	int			unique = 0;

	for (int i = 0; i < named_count; i++)
		add_named_relation(&members, named[i], cascade, purpose);

	if (members.count > 1)
		qsort(members.relids, members.count, sizeof(Oid), oid_compare);
	for (int i = 0; i < members.count; i++)
		if (unique == 0 || members.relids[unique - 1] != members.relids[i])
			members.relids[unique++] = members.relids[i];
	members.count = unique;

	if (purpose != RELATION_SET_REPORT)
		skip_temporary_members(&members);

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
	if (set->locked_to >= set->count)
		return false;

	end = Min(set->count, set->locked_to + batch_size);
	/* a set the lock table cannot hold at once: say where the work stands */
	if (set->locked_to > 0 || end < set->count)
		ereport(NOTICE,
				(errmsg("working on relations %d to %d of %d",
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
		}
	}
	set->locked_to = end;
	return true;
}
