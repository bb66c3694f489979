/*
 * relation_reads_sql.c — cachectl.relation_reads() and
 * cachectl.reset_relation_reads(): the shared table of per-relation reads
 * (relation_reads.c) as rows.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "reads/relation_reads.h"

PG_FUNCTION_INFO_V1(pg_cachectl_relation_reads);
PG_FUNCTION_INFO_V1(pg_cachectl_reset_relation_reads);

#define RELATION_READS_COLUMNS 13

static void
require_shared_memory(void)
{
	if (!relation_reads_available())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the per-relation read counters need pg_cachectl in shared_preload_libraries"),
				 errhint("Add pg_cachectl to shared_preload_libraries, restart the server and set cachectl.track_reads = on.")));
}

static Datum
text_or_null(const char *value, bool *isnull)
{
	*isnull = value == NULL || value[0] == '\0';
	return *isnull ? (Datum) 0 : CStringGetTextDatum(value);
}

/*
 * The current database's relations by their names now (renamed since they
 * were first counted); others' by the names they had then.
 */
static void
current_names(const RelationReadsEntry *entry, const char **schema, const char **relation)
{
	*schema = entry->schema_name;
	*relation = entry->relation_name;
	if (entry->key.database == MyDatabaseId && OidIsValid(entry->key.relation))
	{
		char	   *name = get_rel_name(entry->key.relation);

		if (name != NULL)
		{
			char	   *namespace = get_namespace_name(get_rel_namespace(entry->key.relation));

			*relation = name;
			if (namespace != NULL)
				*schema = namespace;
		}
	}
}

static void
put_row(ReturnSetInfo *rsinfo, const RelationReadsEntry *entry, bool overflow, TimestampTz since)
{
	Datum		values[RELATION_READS_COLUMNS];
	bool		nulls[RELATION_READS_COLUMNS] = {0};
	const char *schema;
	const char *relation;
	int			c = 0;

	current_names(entry, &schema, &relation);
	nulls[c] = overflow;
	values[c++] = ObjectIdGetDatum(entry->key.database);
	values[c] = text_or_null(overflow ? NULL : entry->database_name, &nulls[c]);
	c++;
	nulls[c] = overflow || !OidIsValid(entry->key.relation);
	values[c++] = ObjectIdGetDatum(entry->key.relation);
	values[c] = text_or_null(overflow ? NULL : schema, &nulls[c]);
	c++;
	values[c] = text_or_null(overflow ? NULL : relation, &nulls[c]);
	c++;
	values[c++] = CStringGetTextDatum(overflow ? "not counted apart" : relation_reads_kind_name(entry->relkind));
	values[c++] = Int64GetDatum(entry->shared_hit_blocks);
	values[c++] = Int64GetDatum(entry->reads.read_blocks);
	values[c++] = Int64GetDatum(entry->reads.os_hit_blocks);
	values[c++] = Int64GetDatum(entry->reads.device_read_blocks);
	values[c++] = Int64GetDatum(entry->reads.unsplit_read_blocks);
	values[c++] = Int64GetDatum(entry->reads.device_read_bytes);
	values[c++] = TimestampTzGetDatum(since);
	Assert(c == RELATION_READS_COLUMNS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
pg_cachectl_relation_reads(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RelationReadsEntry overflow;
	RelationReadsEntry *entries;
	TimestampTz since;
	int			count;

	require_shared_memory();
	InitMaterializedSRF(fcinfo, 0);
	entries = relation_reads_copy(&count, &overflow, &since);
	for (int i = 0; i < count; i++)
		put_row(rsinfo, &entries[i], false, since);
	if (overflow.shared_hit_blocks != 0 || overflow.reads.read_blocks != 0 || overflow.reads.device_read_bytes != 0)
		put_row(rsinfo, &overflow, true, since);
	return (Datum) 0;
}

Datum
pg_cachectl_reset_relation_reads(PG_FUNCTION_ARGS)
{
	require_shared_memory();
	PG_RETURN_TIMESTAMPTZ(relation_reads_reset());
}
