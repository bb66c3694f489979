/*
 * The cache_metrics area: the database-wide reports that monitoring scrapes
 * (postgres_exporter, Prometheus), both layers of every relation of the
 * current database from one walk (database_cache: one pass over the pool, one
 * listing of each directory), and the SQL functions of this file.  It uses the
 * api, relation_set, shared_buffers and os_cache areas.
 *
 * cache_metrics.c — the database-wide reports over both layers:
 * database_status(), one row per relation; database_summary(), the figures
 * monitoring scrapes per relation kind; and top_relations(), the relation
 * forks holding the most bytes in each layer.  All three come from the one
 * walk of the database (database_cache.c): one pass over the pool, no
 * relation locks, nothing written, so they run on a hot standby too.  Which
 * relations a user may see is database_relations.c's rule.
 *
 * The autowarm worker's status, which monitoring scrapes too, is
 * autowarm_status.c's (it reads shared memory, not the pool).
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "api/internal_entry.h"
#include "api/null_arguments.h"
#include "cache_metrics/database_cache.h"
#include "relation_set/database_relations.h"

PG_FUNCTION_INFO_V1(pg_cachectl_database_status);
PG_FUNCTION_INFO_V1(pg_cachectl_snapshot_database_status);
PG_FUNCTION_INFO_V1(pg_cachectl_database_summary);
PG_FUNCTION_INFO_V1(pg_cachectl_top_relations);

#define DATABASE_STATUS_COLUMNS 6
#define SUMMARY_COLUMNS 8
#define TOP_COLUMNS 7
#define TOP_LIMIT 1000

/* Both layers of one relation: the sum of its forks. */
typedef struct RelationTotals
{
	int64		size_bytes;
	int64		shared_bytes;
	int64		os_bytes;
	int64		both_bytes;
} RelationTotals;

typedef struct RelationTotalsOf
{
	const DatabaseRelation *relations;
	RelationTotals *totals;		/* one per relation, in the same order */
} RelationTotalsOf;

static void
add_to_relation(const DatabaseForkCache *fork, void *argument)
{
	RelationTotalsOf *of = argument;
	RelationTotals *totals = &of->totals[fork->relation - of->relations];

	totals->size_bytes += fork->size_bytes;
	totals->shared_bytes += fork->shared_bytes;
	totals->os_bytes += fork->os_bytes;
	totals->both_bytes += fork->both_bytes;
}

/*
 * cachectl.database_status()
 *   RETURNS TABLE (relation regclass, kind text, size_bytes int8,
 *                  shared_bytes int8, os_bytes int8, both_bytes int8)
 *
 * Every relation with storage of the current database that the user may
 * read (on the table, for an index or TOAST relation), others left out
 * silently (it backs a view); a relation without files has a row of zeros.
 */
Datum
pg_cachectl_database_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DatabaseRelation *relations;
	int			relation_count;
	RelationTotalsOf of;

	InitMaterializedSRF(fcinfo, 0);
	relations = database_relations_list(DATABASE_RELATIONS_REPORTABLE, &relation_count);
	of.relations = relations;
	of.totals = palloc0(sizeof(RelationTotals) * Max(relation_count, 1));
	database_cache_walk(relations, relation_count, add_to_relation, &of);

	for (int i = 0; i < relation_count; i++)
	{
		const RelationTotals *totals = &of.totals[i];
		Datum		values[DATABASE_STATUS_COLUMNS];
		bool		nulls[DATABASE_STATUS_COLUMNS] = {false};

		values[0] = ObjectIdGetDatum(relations[i].relid);
		values[1] = CStringGetTextDatum(database_relation_kind_name(database_relation_kind(relations[i].relkind)));
		values[2] = Int64GetDatum(totals->size_bytes);
		values[3] = Int64GetDatum(totals->shared_bytes);
		values[4] = Int64GetDatum(totals->os_bytes);
		values[5] = Int64GetDatum(totals->both_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(of.totals);
	pfree(relations);
	return (Datum) 0;
}

/*
 * cachectl_internal.database_status(): the same rows, for snapshot() of a
 * whole database (it reads the OS maps only of the relations found cached),
 * so that a role granted snapshot() needs no grant of the report.
 */
Datum
pg_cachectl_snapshot_database_status(PG_FUNCTION_ARGS)
{
	require_entry_point_privilege(INTERNAL_FOR_SNAPSHOT, "cachectl_internal.database_status()");
	return pg_cachectl_database_status(fcinfo);
}

typedef struct KindTotals
{
	int64		relations;
	int64		size_bytes;
	int64		shared_bytes;
	int64		shared_dirty_bytes;
	int64		os_bytes;
	int64		both_bytes;
} KindTotals;

static void
add_to_kind(const DatabaseForkCache *fork, void *argument)
{
	KindTotals *totals = &((KindTotals *) argument)[database_relation_kind(fork->relation->relkind)];

	totals->size_bytes += fork->size_bytes;
	totals->shared_bytes += fork->shared_bytes;
	totals->shared_dirty_bytes += fork->shared_dirty_bytes;
	totals->os_bytes += fork->os_bytes;
	totals->both_bytes += fork->both_bytes;
}

/*
 * cachectl.database_summary()
 *   RETURNS TABLE (database name, kind text, relations int8, size_bytes int8,
 *                  shared_bytes int8, shared_dirty_bytes int8,
 *                  os_bytes int8, both_bytes int8)
 *
 * One row per kind (table, index, toast, sequence, materialized_view, other:
 * database_relations.h's order), zeros included, so a scraper's series never
 * disappear.  Sums over every relation with storage
 * of the current database, whoever may read it: the EXECUTE grant covers a
 * figure per kind, as it does the database-wide actions.
 */
Datum
pg_cachectl_database_summary(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	KindTotals	totals[RELATION_KIND_COUNT];
	DatabaseRelation *relations;
	int			relation_count;
	char	   *database = get_database_name(MyDatabaseId);

	InitMaterializedSRF(fcinfo, 0);
	memset(totals, 0, sizeof(totals));
	relations = database_relations_list(DATABASE_RELATIONS_ALL, &relation_count);
	for (int i = 0; i < relation_count; i++)
		totals[database_relation_kind(relations[i].relkind)].relations++;
	database_cache_walk(relations, relation_count, add_to_kind, totals);

	for (int kind = 0; kind < RELATION_KIND_COUNT; kind++)
	{
		Datum		values[SUMMARY_COLUMNS];
		bool		nulls[SUMMARY_COLUMNS] = {false};

		/* name is fixed-length: pass it as the type's own representation */
		values[0] = DirectFunctionCall1(namein, CStringGetDatum(database));
		values[1] = CStringGetTextDatum(database_relation_kind_name(kind));
		values[2] = Int64GetDatum(totals[kind].relations);
		values[3] = Int64GetDatum(totals[kind].size_bytes);
		values[4] = Int64GetDatum(totals[kind].shared_bytes);
		values[5] = Int64GetDatum(totals[kind].shared_dirty_bytes);
		values[6] = Int64GetDatum(totals[kind].os_bytes);
		values[7] = Int64GetDatum(totals[kind].both_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* The cached forks of a walk, for ranking. */
typedef struct CachedForks
{
	DatabaseForkCache *forks;
	int			count;
	int			capacity;
} CachedForks;

static void
keep_cached_fork(const DatabaseForkCache *fork, void *argument)
{
	CachedForks *kept = argument;

	if (fork->shared_bytes == 0 && fork->os_bytes == 0)
		return;
	if (kept->count == kept->capacity)
	{
		kept->capacity *= 2;
		kept->forks = repalloc_huge(kept->forks, sizeof(DatabaseForkCache) * kept->capacity);
	}
	kept->forks[kept->count++] = *fork;
}

/* The layers top_relations ranks by, in output order. */
typedef enum RankedLayer
{
	RANKED_BOTH,
	RANKED_OS,
	RANKED_SHARED
} RankedLayer;

#define RANKED_LAYER_COUNT (RANKED_SHARED + 1)

static const char *const ranked_layer_names[RANKED_LAYER_COUNT] = {"both", "os", "shared"};

static int64
layer_bytes(const DatabaseForkCache *fork, RankedLayer layer)
{
	switch (layer)
	{
		case RANKED_BOTH:
			return fork->both_bytes;
		case RANKED_OS:
			return fork->os_bytes;
		case RANKED_SHARED:
			return fork->shared_bytes;
	}
	return 0;
}

/* Most bytes first; ties by relation OID, then fork, so the order is stable. */
static int
by_layer_bytes(const void *a, const void *b, void *argument)
{
	const DatabaseForkCache *left = a;
	const DatabaseForkCache *right = b;
	RankedLayer layer = *(const RankedLayer *) argument;
	int64		left_bytes = layer_bytes(left, layer);
	int64		right_bytes = layer_bytes(right, layer);

	if (left_bytes != right_bytes)
		return left_bytes > right_bytes ? -1 : 1;
	if (left->relation->relid != right->relation->relid)
		return left->relation->relid < right->relation->relid ? -1 : 1;
	return (int) left->fork - (int) right->fork;
}

/*
 * cachectl.top_relations(n int4 DEFAULT 10)
 *   RETURNS TABLE (database name, schema name, relation name, kind text,
 *                  fork text, layer text, bytes int8)
 *
 * For each layer — 'both' (bytes cached twice), 'os', 'shared' — the n
 * relation forks of the current database holding the most bytes in it
 * (forks with none left out): at most 3 n rows, from one walk.  Only
 * relations the user may SELECT (on the table, for an index or TOAST
 * relation), others left out silently, as database_status does.
 */
static const ArgumentNullRule top_relations_null_rules[] = {{"n", NULL_REFUSED}};

Datum
pg_cachectl_top_relations(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		n;
	DatabaseRelation *relations;
	int			relation_count;
	CachedForks kept;
	Datum		database;

	(void) null_arguments_ask_nothing(fcinfo, "top_relations", top_relations_null_rules, 1);
	n = PG_GETARG_INT32(0);
	if (n < 1 || n > TOP_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 1 and %d relation forks", TOP_LIMIT)));
	InitMaterializedSRF(fcinfo, 0);
	database = DirectFunctionCall1(namein, CStringGetDatum(get_database_name(MyDatabaseId)));

	relations = database_relations_list(DATABASE_RELATIONS_REPORTABLE, &relation_count);
	kept.count = 0;
	kept.capacity = 64;
	kept.forks = palloc(sizeof(DatabaseForkCache) * kept.capacity);
	database_cache_walk(relations, relation_count, keep_cached_fork, &kept);

	for (RankedLayer layer = 0; layer < RANKED_LAYER_COUNT; layer++)
	{
		int			emitted = 0;

		if (kept.count > 1)
			qsort_arg(kept.forks, kept.count, sizeof(DatabaseForkCache), by_layer_bytes, &layer);
		for (int i = 0; i < kept.count && emitted < n; i++)
		{
			const DatabaseForkCache *fork = &kept.forks[i];
			int64		bytes = layer_bytes(fork, layer);
			char	   *relation_name;
			char	   *schema_name;
			Datum		values[TOP_COLUMNS];
			bool		nulls[TOP_COLUMNS] = {false};

			if (bytes == 0)
				break;
			/* dropped since the walk: left out */
			relation_name = get_rel_name(fork->relation->relid);
			schema_name = get_namespace_name(get_rel_namespace(fork->relation->relid));
			if (relation_name == NULL || schema_name == NULL)
				continue;
			values[0] = database;
			values[1] = DirectFunctionCall1(namein, CStringGetDatum(schema_name));
			values[2] = DirectFunctionCall1(namein, CStringGetDatum(relation_name));
			values[3] = CStringGetTextDatum(database_relation_kind_name(database_relation_kind(fork->relation->relkind)));
			values[4] = CStringGetTextDatum(forkNames[fork->fork]);
			values[5] = CStringGetTextDatum(ranked_layer_names[layer]);
			values[6] = Int64GetDatum(bytes);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			emitted++;
		}
	}
	return (Datum) 0;
}
