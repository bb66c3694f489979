/*
 * database_relations.h — every relation with storage of the current
 * database, read from pg_class without taking relation locks: what the
 * database-wide reports and actions work on (database_status, cold_database,
 * snapshots).  A set of 100,000 relations would exceed the lock table, so
 * these callers tolerate files that vanish meanwhile instead.
 */
#ifndef PG_CACHECTL_DATABASE_RELATIONS_H
#define PG_CACHECTL_DATABASE_RELATIONS_H

#include "common/relpath.h"

typedef struct DatabaseRelation
{
	Oid			relid;
	char		relkind;
	Oid			tablespace;		/* as buffer tags name it (never 0) */
	Oid			file_number;	/* the relfilenode, mapped catalogs resolved */
} DatabaseRelation;

/* Which relations a list keeps, by the user's privileges on each guard. */
typedef enum DatabaseRelationsFilter
{
	DATABASE_RELATIONS_ALL,			/* every one (whole-database actions) */
	DATABASE_RELATIONS_REPORTABLE,	/* what a report may show the user */
	DATABASE_RELATIONS_SELECTABLE	/* those whose table the user may SELECT */
} DatabaseRelationsFilter;

/*
 * The permanent and unlogged relations with storage of the current database
 * (temporary ones live in local buffers; shared catalogs belong to every
 * database), in OID order, those the filter drops left out silently.
 */
extern DatabaseRelation *database_relations_list(DatabaseRelationsFilter filter, int *count);

/* The path of one fork, relative to the data directory, palloc'd. */
extern char *database_relation_fork_path(const DatabaseRelation *relation, ForkNumber fork);

/*
 * The relation kinds every report names (database_status, database_summary,
 * top_relations and the monitoring labels), in the order a summary lists
 * them.  A TOAST table's own index is an index.
 */
typedef enum DatabaseRelationKind
{
	RELATION_KIND_TABLE,
	RELATION_KIND_INDEX,
	RELATION_KIND_TOAST,
	RELATION_KIND_SEQUENCE,
	RELATION_KIND_MATERIALIZED_VIEW,
	RELATION_KIND_OTHER
} DatabaseRelationKind;

#define RELATION_KIND_COUNT (RELATION_KIND_OTHER + 1)

/* The kind of a pg_class.relkind. */
extern DatabaseRelationKind database_relation_kind(char relkind);

/* Its name in the SQL output: "table", "index", "toast", "sequence", ... */
extern const char *database_relation_kind_name(DatabaseRelationKind kind);

#endif							/* PG_CACHECTL_DATABASE_RELATIONS_H */
