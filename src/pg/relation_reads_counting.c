/*
 * relation_reads_counting.c — while cachectl.track_reads is on, every query
 * a backend runs is tracked (read_tracking.c samples a span whenever a read
 * happened) and each sampled span is given to the relations of the plan
 * node that ran it; the query's counts reach the shared table at
 * ExecutorEnd.
 *
 * A node reads the relations it scans: a scan its table, an index scan its
 * index too, a bitmap heap scan the indexes of its bitmap, a ModifyTable
 * its result relations and their indexes.  A node of one relation gives it
 * the whole span (TOAST and read-stream reads included).  A node of several
 * splits each span by PostgreSQL's own per-relation counts (pg_stat's
 * blocks fetched less hit, which track_counts keeps) and the source rule of
 * relation_split.hpp.  Reads no relation count claims (temporary files,
 * catalogs, nested queries) are the database's other reads.
 *
 * Not counted: reads outside plan nodes (planning, ExecutorStart's catalog
 * reads, VACUUM, COPY FROM, index builds, autovacuum), the spans of a
 * Gather (its workers count their own reads; the leader's buffer counts
 * jump by theirs there), and the spans of nodes without relations in a
 * plan with a Gather (a Limit may end the workers inside its own call).  A
 * query that fails is not counted: its counts are added at ExecutorEnd.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "cachectl.h"
#include "read_tracking.h"
#include "relation_reads.h"
#include "relation_reads_counting.h"

/* One relation a query's nodes read. */
typedef struct CountedRelation
{
	Relation	rel;			/* open until ExecutorEnd */
	void	   *stat_entry_seen;	/* its pending pg_stat counters when last read */
	int64		reads_seen;		/* fetched less hit then */
	int64		hits_seen;
	int64		shared_hit_blocks;
	cachectl_relation_reads reads;
} CountedRelation;

/* The relations of one plan node, and room to split a span between them. */
typedef struct NodeRelations
{
	int			count;
	int		   *members;		/* indexes into CountedQuery.relations */
	int64	   *blocks;			/* per member, for one span */
	cachectl_relation_reads *shares;	/* count + 1: the last is other's */
} NodeRelations;

typedef struct CountedQuery
{
	QueryDesc  *desc;
	int			relation_count;
	int			relation_capacity;
	CountedRelation *relations;
	int			node_bound;
	NodeRelations *nodes;		/* by plan_node_id */
	bool		has_gather;
	bool		sources_known;	/* false with io_method = worker: every block unsplit */
	cachectl_relation_reads other;
} CountedQuery;

static ExecutorStart_hook_type previous_executor_start = NULL;
static ExecutorEnd_hook_type previous_executor_end = NULL;

/* The query being counted (one at a time, as the tracker). */
static CountedQuery *counted = NULL;

/* pg_stat's pending counts of a relation in this backend. */
static void *
stat_counts(Relation rel, int64 *reads, int64 *hits)
{
	PgStat_TableStatus *status = rel->pgstat_info;

	*reads = 0;
	*hits = 0;
	if (status == NULL)
		return NULL;
#if PG_VERSION_NUM >= 160000
	*hits = status->counts.blocks_hit;
	*reads = status->counts.blocks_fetched - status->counts.blocks_hit;
#else
	*hits = status->t_counts.t_blocks_hit;
	*reads = status->t_counts.t_blocks_fetched - status->t_counts.t_blocks_hit;
#endif
	return status;
}

/*
 * The blocks the relation read since it was last looked at; a new pending
 * entry (the old one was flushed: a cursor across transactions) counts from 0.
 */
static int64
reads_since_seen(CountedRelation *relation)
{
	int64		reads;
	int64		hits;
	void	   *entry = stat_counts(relation->rel, &reads, &hits);
	int64		since = entry == relation->stat_entry_seen ? reads - relation->reads_seen : reads;

	if (entry != relation->stat_entry_seen)
	{
		relation->shared_hit_blocks += hits;
		relation->hits_seen = hits;
	}
	relation->stat_entry_seen = entry;
	relation->reads_seen = reads;
	return Max(since, 0);
}

static int
relation_index(CountedQuery *query, Relation rel)
{
	CountedRelation *relation;

	for (int i = 0; i < query->relation_count; i++)
		if (query->relations[i].rel == rel || RelationGetRelid(query->relations[i].rel) == RelationGetRelid(rel))
			return i;
	if (query->relation_count == query->relation_capacity)
	{
		query->relation_capacity *= 2;
		query->relations = repalloc(query->relations, sizeof(CountedRelation) * query->relation_capacity);
	}
	relation = &query->relations[query->relation_count];
	memset(relation, 0, sizeof(*relation));
	relation->rel = rel;
	relation->stat_entry_seen = stat_counts(rel, &relation->reads_seen, &relation->hits_seen);
	return query->relation_count++;
}

static void
add_member(CountedQuery *query, List **members, Relation rel)
{
	int			index;

	if (rel == NULL)
		return;
	index = relation_index(query, rel);
	if (!list_member_int(*members, index))
		*members = lappend_int(*members, index);
}

/* The indexes a bitmap heap scan's bitmap reads (run inside its call). */
static void
add_bitmap_indexes(CountedQuery *query, List **members, PlanState *state)
{
	if (state == NULL)
		return;
	if (IsA(state, BitmapIndexScanState))
		add_member(query, members, ((BitmapIndexScanState *) state)->biss_RelationDesc);
	else if (IsA(state, BitmapAndState))
		for (int i = 0; i < ((BitmapAndState *) state)->nplans; i++)
			add_bitmap_indexes(query, members, ((BitmapAndState *) state)->bitmapplans[i]);
	else if (IsA(state, BitmapOrState))
		for (int i = 0; i < ((BitmapOrState *) state)->nplans; i++)
			add_bitmap_indexes(query, members, ((BitmapOrState *) state)->bitmapplans[i]);
}

static List *
node_members(CountedQuery *query, PlanState *state)
{
	List	   *members = NIL;

	switch (nodeTag(state))
	{
		case T_SeqScanState:
		case T_SampleScanState:
		case T_TidScanState:
		case T_TidRangeScanState:
			add_member(query, &members, ((ScanState *) state)->ss_currentRelation);
			break;
		case T_IndexScanState:
			add_member(query, &members, ((ScanState *) state)->ss_currentRelation);
			add_member(query, &members, ((IndexScanState *) state)->iss_RelationDesc);
			break;
		case T_IndexOnlyScanState:
			add_member(query, &members, ((ScanState *) state)->ss_currentRelation);
			add_member(query, &members, ((IndexOnlyScanState *) state)->ioss_RelationDesc);
			break;
		case T_BitmapHeapScanState:
			add_member(query, &members, ((ScanState *) state)->ss_currentRelation);
			add_bitmap_indexes(query, &members, outerPlanState(state));
			break;
		case T_ModifyTableState:
			{
				ModifyTableState *modify = (ModifyTableState *) state;

				for (int i = 0; i < modify->mt_nrels; i++)
				{
					ResultRelInfo *result = &modify->resultRelInfo[i];

					add_member(query, &members, result->ri_RelationDesc);
					for (int j = 0; j < result->ri_NumIndices; j++)
						add_member(query, &members, result->ri_IndexRelationDescs[j]);
				}
			}
			break;
		default:
			break;
	}
	return members;
}

static bool
find_members(PlanState *state, void *context)
{
	CountedQuery *query = context;
	int			id = state->plan->plan_node_id;

	if (id >= 0 && id < query->node_bound && query->nodes[id].members == NULL)
	{
		NodeRelations *node = &query->nodes[id];
		List	   *members = node_members(query, state);
		int			i = 0;
		ListCell   *cell;

		node->count = list_length(members);
		node->members = palloc(sizeof(int) * Max(node->count, 1));
		node->blocks = palloc(sizeof(int64) * Max(node->count, 1));
		node->shares = palloc(sizeof(cachectl_relation_reads) * (node->count + 1));
		foreach(cell, members)
			node->members[i++] = lfirst_int(cell);
		list_free(members);
	}
	if (IsA(state, GatherState) || IsA(state, GatherMergeState))
		query->has_gather = true;
	return planstate_tree_walker(state, find_members, context);
}

/* One sampled span, to the relations of the node that ran it. */
static void
span_to_relations(void *arg, PlanState *state, const cachectl_read_sources *span)
{
	CountedQuery *query = arg;
	NodeRelations *node;
	cachectl_error error = {0};
	int			id;

	if (state == NULL || IsA(state, GatherState) || IsA(state, GatherMergeState))
		return;
	id = state->plan->plan_node_id;
	if (id < 0 || id >= query->node_bound)
		return;
	node = &query->nodes[id];
	if (node->count == 0 && query->has_gather)
		return;
	for (int i = 0; i < node->count; i++)
	{
		int64		since = reads_since_seen(&query->relations[node->members[i]]);

		/* one relation: the whole span is its own (its TOAST, its stream's reads ahead) */
		node->blocks[i] = node->count == 1 ? span->read_blocks : since;
	}
	memset(node->shares, 0, sizeof(cachectl_relation_reads) * (node->count + 1));
	if (cachectl_read_sources_split(span, node->blocks, node->count, query->sources_known, node->shares,
									&error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	for (int i = 0; i < node->count; i++)
		cachectl_relation_reads_add(&query->relations[node->members[i]].reads, &node->shares[i]);
	cachectl_relation_reads_add(&query->other, &node->shares[node->count]);
}

static void
forget_counted(void *argument)
{
	if (counted == argument)
		counted = NULL;
}

static void
start_counting(QueryDesc *desc, const ReadCounters *before)
{
	MemoryContext query_context = desc->estate->es_query_cxt;
	MemoryContext caller = MemoryContextSwitchTo(query_context);
	ReadTracker *tracker = read_tracker_of(desc);
	CountedQuery *query;
	MemoryContextCallback *callback;

	if (tracker == NULL)
		tracker = read_tracker_start(desc, before);
	query = palloc0(sizeof(CountedQuery));
	query->desc = desc;
	query->sources_known = read_sources_unknowable() == NULL;
	query->relation_capacity = 8;
	query->relations = palloc(sizeof(CountedRelation) * query->relation_capacity);
	/* the tracker walked the plan already: its bound, not a second walk */
	query->node_bound = read_tracker_node_bound(tracker);
	query->nodes = palloc0(sizeof(NodeRelations) * Max(query->node_bound, 1));
	(void) find_members(desc->planstate, query);
	read_tracker_set_sink(tracker, span_to_relations, query);
	callback = palloc0(sizeof(MemoryContextCallback));
	callback->func = forget_counted;
	callback->arg = query;
	MemoryContextRegisterResetCallback(query_context, callback);
	counted = query;
	MemoryContextSwitchTo(caller);
}

static void
start_executor(QueryDesc *desc, int eflags)
{
	/* a query inside a tracked one (a function's) is counted in the outer node's spans */
	bool		count = cachectl_track_reads_setting && relation_reads_available() &&
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && !read_tracking_active() && OidIsValid(MyDatabaseId);
	ReadCounters before = {0};

	if (count)
		before = read_counters_since_last_look();
	if (previous_executor_start)
		previous_executor_start(desc, eflags);
	else
		standard_ExecutorStart(desc, eflags);
	if (count && desc->planstate != NULL && (read_tracker_of(desc) != NULL || !read_tracking_active()))
		start_counting(desc, &before);
}

/* The query's counts into the shared table. */
static void
add_counted(CountedQuery *query)
{
	for (int i = 0; i < query->relation_count; i++)
	{
		CountedRelation *relation = &query->relations[i];
		int64		reads;
		int64		hits;
		void	   *entry = stat_counts(relation->rel, &reads, &hits);

		relation->shared_hit_blocks += entry == relation->stat_entry_seen ? hits - relation->hits_seen : hits;
		relation_reads_add(relation->rel, Max(relation->shared_hit_blocks, 0), &relation->reads);
	}
	relation_reads_add(NULL, 0, &query->other);
}

static void
end_executor(QueryDesc *desc)
{
	if (counted != NULL && counted->desc == desc)
	{
		CountedQuery *query = counted;

		counted = NULL;
		add_counted(query);
	}
	if (previous_executor_end)
		previous_executor_end(desc);
	else
		standard_ExecutorEnd(desc);
}

void
relation_reads_install_hooks(void)
{
	previous_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = start_executor;
	previous_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = end_executor;
}
