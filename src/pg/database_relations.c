/*
 * database_relations.c — the relations with storage of the current
 * database, from one scan of pg_class, with the privilege of each checked on
 * the table it belongs to (an index's table, a TOAST table's owner).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "database_relations.h"
#include "version_compat.h"

/* A relation as read from pg_class, before the privilege check. */
typedef struct ClassEntry
{
	DatabaseRelation relation;
	Oid			toast_relid;	/* reltoastrelid */
} ClassEntry;

static int
entry_by_relid(const void *a, const void *b)
{
	Oid			left = ((const ClassEntry *) a)->relation.relid;
	Oid			right = ((const ClassEntry *) b)->relation.relid;

	return (left > right) - (left < right);
}

typedef struct ToastOwner
{
	Oid			toast_relid;
	Oid			owner;
} ToastOwner;

static int
toast_owner_by_toast(const void *a, const void *b)
{
	Oid			left = ((const ToastOwner *) a)->toast_relid;
	Oid			right = ((const ToastOwner *) b)->toast_relid;

	return (left > right) - (left < right);
}

/* Whether the user may SELECT the table a relation belongs to. */
static bool
readable(const ClassEntry *entry, const ToastOwner *owners, int owner_count)
{
	Oid			table = entry->relation.relid;
	char		table_kind = entry->relation.relkind;
	bool		missing = false;

	if (table_kind == RELKIND_INDEX)
	{
		table = IndexGetRelation(table, true);
		if (!OidIsValid(table))
			return false;		/* dropped meanwhile */
		table_kind = get_rel_relkind(table);
	}
	if (table_kind == RELKIND_TOASTVALUE)
	{
		ToastOwner	key = {table, InvalidOid};
		const ToastOwner *found = bsearch(&key, owners, owner_count, sizeof(ToastOwner), toast_owner_by_toast);

		if (found == NULL)
			return false;
		table = found->owner;
	}
	/* a table dropped since the scan is left out (the plain check raises 42P01) */
	return pg_class_aclcheck_ext(table, GetUserId(), ACL_SELECT, &missing) == ACLCHECK_OK &&
		!missing;
}

DatabaseRelation *
database_relations_list(bool readable_only, int *count)
{
	Relation	pg_class_rel;
	SysScanDesc scan;
	HeapTuple	tuple;
	ClassEntry *entries;
	ToastOwner *owners;
	int			entry_count = 0;
	int			owner_count = 0;
	int			capacity = 1024;
	DatabaseRelation *relations;
	int			kept = 0;

	entries = palloc(sizeof(ClassEntry) * capacity);
	owners = palloc(sizeof(ToastOwner) * capacity);
	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(pg_class_rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);
		ClassEntry *entry;

		CHECK_FOR_INTERRUPTS();
		if (entry_count == capacity)
		{
			capacity *= 2;
			entries = repalloc(entries, sizeof(ClassEntry) * capacity);
			owners = repalloc(owners, sizeof(ToastOwner) * capacity);
		}
		if (OidIsValid(form->reltoastrelid))
		{
			owners[owner_count].toast_relid = form->reltoastrelid;
			owners[owner_count].owner = form->oid;
			owner_count++;
		}
		if (!RELKIND_HAS_STORAGE(form->relkind) ||
			form->relpersistence == RELPERSISTENCE_TEMP ||
			form->relisshared)
			continue;
		entry = &entries[entry_count++];
		entry->relation.relid = form->oid;
		entry->relation.relkind = form->relkind;
		entry->relation.tablespace = OidIsValid(form->reltablespace) ? form->reltablespace : MyDatabaseTableSpace;
		entry->relation.file_number = OidIsValid(form->relfilenode)
			? form->relfilenode : CACHECTL_MAPPED_FILE_NUMBER(form->oid);
		entry->toast_relid = form->reltoastrelid;
	}
	systable_endscan(scan);
	table_close(pg_class_rel, AccessShareLock);

	if (entry_count > 1)
		qsort(entries, entry_count, sizeof(ClassEntry), entry_by_relid);
	if (owner_count > 1)
		qsort(owners, owner_count, sizeof(ToastOwner), toast_owner_by_toast);

	relations = palloc(sizeof(DatabaseRelation) * Max(entry_count, 1));
	for (int i = 0; i < entry_count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (readable_only && !readable(&entries[i], owners, owner_count))
			continue;
		relations[kept++] = entries[i].relation;
	}
	pfree(entries);
	pfree(owners);
	*count = kept;
	return relations;
}

char *
database_relation_fork_path(const DatabaseRelation *relation, ForkNumber fork)
{
	return CACHECTL_KEY_FORK_PATH(relation->tablespace, MyDatabaseId, relation->file_number, fork);
}

const char *
database_relation_kind(char relkind)
{
	switch (relkind)
	{
		case RELKIND_RELATION:
			return "table";
		case RELKIND_INDEX:
			return "index";
		case RELKIND_SEQUENCE:
			return "sequence";
		case RELKIND_TOASTVALUE:
			return "TOAST table";
		case RELKIND_MATVIEW:
			return "materialized view";
		default:
			return "other";
	}
}
