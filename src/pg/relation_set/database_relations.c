/*
 * database_relations.c — the relations with storage of the current
 * database, from one scan of pg_class, with the privilege of each checked on
 * its guard (relation_set.h: an index's table, a TOAST table's owner).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "api/version_compat.h"
#include "relation_set/database_relations.h"
#include "relation_set/relation_set.h"

static int
relation_by_relid(const void *a, const void *b)
{
	Oid			left = ((const DatabaseRelation *) a)->relid;
	Oid			right = ((const DatabaseRelation *) b)->relid;

	return (left > right) - (left < right);
}

DatabaseRelation *
database_relations_list(DatabaseRelationsFilter filter, int *count)
{
	Relation	pg_class_rel;
	SysScanDesc scan;
	HeapTuple	tuple;
	DatabaseRelation *relations;
	int			relation_count = 0;
	int			capacity = 1024;
	int			kept = 0;
	ToastOwners *owners;

	relations = palloc(sizeof(DatabaseRelation) * capacity);
	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(pg_class_rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);
		DatabaseRelation *relation;

		CHECK_FOR_INTERRUPTS();
		if (!RELKIND_HAS_STORAGE(form->relkind) ||
			form->relpersistence == RELPERSISTENCE_TEMP ||
			form->relisshared)
			continue;
		if (relation_count == capacity)
		{
			capacity *= 2;
			relations = repalloc(relations, sizeof(DatabaseRelation) * capacity);
		}
		relation = &relations[relation_count++];
		relation->relid = form->oid;
		relation->relkind = form->relkind;
		relation->tablespace = OidIsValid(form->reltablespace) ? form->reltablespace : MyDatabaseTableSpace;
		relation->file_number = OidIsValid(form->relfilenode)
			? form->relfilenode : CACHECTL_MAPPED_FILE_NUMBER(form->oid);
	}
	systable_endscan(scan);
	table_close(pg_class_rel, AccessShareLock);

	if (relation_count > 1)
		qsort(relations, relation_count, sizeof(DatabaseRelation), relation_by_relid);
	if (filter == DATABASE_RELATIONS_ALL ||
		(filter == DATABASE_RELATIONS_REPORTABLE && may_report_every_relation()))
	{
		*count = relation_count;
		return relations;
	}

	/* the guard of each, as every relation set decides it (relation_set.h) */
	owners = toast_owners_read();
	for (int i = 0; i < relation_count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (relation_guard_readable(relations[i].relid, relations[i].relkind, owners))
			relations[kept++] = relations[i];
	}
	*count = kept;
	return relations;
}

char *
database_relation_fork_path(const DatabaseRelation *relation, ForkNumber fork)
{
	return CACHECTL_KEY_FORK_PATH(relation->tablespace, MyDatabaseId, relation->file_number, fork);
}

DatabaseRelationKind
database_relation_kind(char relkind)
{
	switch (relkind)
	{
		case RELKIND_RELATION:
			return RELATION_KIND_TABLE;
		case RELKIND_INDEX:
			return RELATION_KIND_INDEX;
		case RELKIND_TOASTVALUE:
			return RELATION_KIND_TOAST;
		case RELKIND_SEQUENCE:
			return RELATION_KIND_SEQUENCE;
		case RELKIND_MATVIEW:
			return RELATION_KIND_MATERIALIZED_VIEW;
		default:
			return RELATION_KIND_OTHER;
	}
}

const char *
database_relation_kind_name(DatabaseRelationKind kind)
{
	static const char *const names[RELATION_KIND_COUNT] = {
		"table", "index", "toast", "sequence", "materialized_view", "other"
	};

	Assert(kind >= 0 && kind < RELATION_KIND_COUNT);
	return names[kind];
}
