/*
 * relation_guard.c — relation sets and their guards as SQL reads them:
 * the relation list of a snapshot, and each relation's guard behind the
 * relation_guard view.  Both are relation_set.c's answers, so snapshot()
 * and the snapshot table's policy neither expand sets nor derive guards in
 * SQL.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "api/call_arguments.h"
#include "api/internal_entry.h"
#include "relation_set/database_relations.h"
#include "relation_set/relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_snapshot_relations);
PG_FUNCTION_INFO_V1(pg_cachectl_relation_guard_of);

#define SNAPSHOT_RELATION_COLUMNS 6
#define RELATION_GUARD_COLUMNS 7

static void
put_snapshot_relation(ReturnSetInfo *rsinfo, const RelationGuard *guard)
{
	Datum		values[SNAPSHOT_RELATION_COLUMNS];
	bool		nulls[SNAPSHOT_RELATION_COLUMNS] = {0};

	values[0] = ObjectIdGetDatum(guard->relid);
	values[1] = CStringGetTextDatum(guard->relation_name);
	values[2] = ObjectIdGetDatum(guard->file_number);
	values[3] = CharGetDatum(guard->relpersistence);
	values[4] = ObjectIdGetDatum(guard->owner_table);
	values[5] = CStringGetTextDatum(guard->owner_table_name);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * cachectl_internal.snapshot_relations(rels regclass[], cascade boolean)
 *   RETURNS TABLE (relation oid, relation_name text, relfilenode oid,
 *                  relpersistence "char", owner_table oid, owner_table_name text)
 *
 * The relations a snapshot records: the set the relations named stand for
 * (NULL elements ignored), or with NULL every relation of the database the
 * user may read, each with its guard.  Nothing is locked: a snapshot of a
 * whole database names more relations than the lock table holds.
 */
Datum
pg_cachectl_snapshot_relations(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ToastOwners *owners;
	RelationGuard guard;
	ErrorContextCallback *caller_stack = internal_errors_to_user();

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(1))
	{
		error_context_stack = caller_stack;
		PG_RETURN_NULL();
	}
	if (PG_ARGISNULL(0))
	{
		int			relation_count;
		DatabaseRelation *relations = database_relations_list(DATABASE_RELATIONS_SELECTABLE, &relation_count);

		owners = toast_owners_read();
		for (int i = 0; i < relation_count; i++)
			if (relation_guard_describe(relations[i].relid, owners, &guard))
				put_snapshot_relation(rsinfo, &guard);
	}
	else
	{
		int			named_count;
		Oid		   *named = relation_list_argument(PG_GETARG_ARRAYTYPE_P(0), &named_count);
		RelationSet *set = relation_set_build(named, named_count, PG_GETARG_BOOL(1),
											  RELATION_SET_SNAPSHOT);
		Oid			relid;

		owners = toast_owners_read();
		while (relation_set_next_unlocked(set, &relid))
			if (relation_guard_describe(relid, owners, &guard))
				put_snapshot_relation(rsinfo, &guard);
	}
	error_context_stack = caller_stack;
	return (Datum) 0;
}

/*
 * cachectl_internal.relation_guard_of(rel oid)
 *   RETURNS TABLE (relation_name text, relfilenode oid, relkind "char",
 *                  relpersistence "char", relisshared boolean,
 *                  owner_table oid, owner_table_name text)
 *
 * One row for a relation with storage, none otherwise: what the
 * relation_guard view shows of it.
 */
Datum
pg_cachectl_relation_guard_of(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RelationGuard guard;
	Datum		values[RELATION_GUARD_COLUMNS];
	bool		nulls[RELATION_GUARD_COLUMNS] = {0};

	InitMaterializedSRF(fcinfo, 0);
	if (!relation_guard_describe(PG_GETARG_OID(0), NULL, &guard))
		return (Datum) 0;
	values[0] = CStringGetTextDatum(guard.relation_name);
	values[1] = ObjectIdGetDatum(guard.file_number);
	values[2] = CharGetDatum(guard.relkind);
	values[3] = CharGetDatum(guard.relpersistence);
	values[4] = BoolGetDatum(guard.relisshared);
	values[5] = ObjectIdGetDatum(guard.owner_table);
	values[6] = CStringGetTextDatum(guard.owner_table_name);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
