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
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "api/api.h"
#include "reads/read_tracking.h"
#include "reads/reads.h"
#include "reads/relation_reads.h"

/*
 * What a query knew of a relation's pg_stat pending counters when it last
 * looked (deltas[i] of the same index holds what it counted).
 */
typedef struct RelationSeen
{
	void	   *stat_entry;		/* its pending pg_stat counters then */
	int64		reads;			/* fetched less hit then */
	int64		hits;
} RelationSeen;

/* The relations of one plan node: members[first .. first + count - 1]. */
typedef struct NodeRelations
{
	int			first;
	int			count;
} NodeRelations;

/*
 * One query's counts.  A backend counts one query at a time (as it tracks
 * one), so the state and its arrays are the backend's, kept from query to
 * query and grown to the largest plan seen: a query without reads
 * (pgbench -S from shared buffers) allocates nothing here, and pays one walk
 * of its plan at its start and one lock at its end.
 */
typedef struct CountedQuery
{
	/* deltas[0] is the database's other reads (rel NULL); 1.. the relations */
	int			relation_count;
	int			relation_capacity;
	RelationReadsDelta *deltas;
	RelationSeen *seen;
	int			member_count;
	int			member_capacity;
	int		   *members;		/* indexes into deltas, by node */
	int			node_bound;
	int			node_capacity;
	NodeRelations *nodes;		/* by plan_node_id */
	int			widest_node;	/* the most members of one node */
	int			split_capacity;
	int64	   *split_blocks;	/* room for widest_node */
	cachectl_relation_reads **split_totals;	/* room for widest_node + 1 */
	bool		has_gather;
	bool		sources_known;	/* false with io_method = worker: every block unsplit */
} CountedQuery;

static CountedQuery counting;

/* Grows a backend-lifetime array to hold at least needed elements. */
static void *
grow_to(void *array, int *capacity, int needed, Size element)
{
	int			grown = Max(*capacity, 8);

	while (grown < needed)
		grown *= 2;
	array = array == NULL ? MemoryContextAlloc(TopMemoryContext, element * grown) : repalloc(array, element * grown);
	*capacity = grown;
	return array;
}

static ExecutorStart_hook_type previous_executor_start = NULL;
static ExecutorEnd_hook_type previous_executor_end = NULL;

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
 * The blocks relation i read since it was last looked at; a new pending
 * entry (the old one was flushed: a cursor across transactions) counts from 0.
 */
static int64
reads_since_seen(CountedQuery *query, int i)
{
	RelationSeen *seen = &query->seen[i];
	int64		reads;
	int64		hits;
	void	   *entry = stat_counts(query->deltas[i].rel, &reads, &hits);
	int64		since = entry == seen->stat_entry ? reads - seen->reads : reads;

	if (entry != seen->stat_entry)
	{
		query->deltas[i].shared_hit_blocks += hits;
		seen->hits = hits;
	}
	seen->stat_entry = entry;
	seen->reads = reads;
	return Max(since, 0);
}

static inline void *
room_for(void *array, int *capacity, int needed, Size element)
{
	return likely(array != NULL && needed <= *capacity) ? array : grow_to(array, capacity, needed, element);
}

/* Grows two arrays kept the same length (one capacity for both) to hold needed elements. */
static void
grow_both(void **first, Size first_element, void **second, Size second_element, int *capacity, int needed)
{
	int			second_capacity = *capacity;

	*first = grow_to(*first, capacity, needed, first_element);
	*second = grow_to(*second, &second_capacity, needed, second_element);
}

static inline void
room_for_both(void **first, Size first_element, void **second, Size second_element, int *capacity, int needed)
{
	if (unlikely(*first == NULL || needed > *capacity))
		grow_both(first, first_element, second, second_element, capacity, needed);
}

/* Makes room for one more relation. */
static void
room_for_relation(CountedQuery *query)
{
	room_for_both((void **) &query->deltas, sizeof(RelationReadsDelta), (void **) &query->seen, sizeof(RelationSeen),
				  &query->relation_capacity, query->relation_count + 1);
}

static int
relation_index(CountedQuery *query, Relation rel)
{
	int			i;

	for (i = 1; i < query->relation_count; i++)
		if (query->deltas[i].rel == rel || RelationGetRelid(query->deltas[i].rel) == RelationGetRelid(rel))
			return i;
	room_for_relation(query);
	i = query->relation_count++;
	memset(&query->deltas[i], 0, sizeof(RelationReadsDelta));
	query->deltas[i].rel = rel;
	query->seen[i].stat_entry = stat_counts(rel, &query->seen[i].reads, &query->seen[i].hits);
	return i;
}

/* Adds a relation to the node whose members end the array (once). */
static void
add_member(CountedQuery *query, NodeRelations *node, Relation rel)
{
	int			index;

	if (rel == NULL)
		return;
	index = relation_index(query, rel);
	for (int m = node->first; m < node->first + node->count; m++)
		if (query->members[m] == index)
			return;
	query->members = room_for(query->members, &query->member_capacity, query->member_count + 1, sizeof(int));
	query->members[query->member_count++] = index;
	node->count++;
}

/* The indexes a bitmap heap scan's bitmap reads (run inside its call). */
static void
add_bitmap_indexes(CountedQuery *query, NodeRelations *node, PlanState *state)
{
	if (state == NULL)
		return;
	if (IsA(state, BitmapIndexScanState))
		add_member(query, node, ((BitmapIndexScanState *) state)->biss_RelationDesc);
	else if (IsA(state, BitmapAndState))
		for (int i = 0; i < ((BitmapAndState *) state)->nplans; i++)
			add_bitmap_indexes(query, node, ((BitmapAndState *) state)->bitmapplans[i]);
	else if (IsA(state, BitmapOrState))
		for (int i = 0; i < ((BitmapOrState *) state)->nplans; i++)
			add_bitmap_indexes(query, node, ((BitmapOrState *) state)->bitmapplans[i]);
}

static void
add_node_members(CountedQuery *query, NodeRelations *node, PlanState *state)
{
	switch (nodeTag(state))
	{
		case T_SeqScanState:
		case T_SampleScanState:
		case T_TidScanState:
		case T_TidRangeScanState:
			add_member(query, node, ((ScanState *) state)->ss_currentRelation);
			break;
		case T_IndexScanState:
			add_member(query, node, ((ScanState *) state)->ss_currentRelation);
			add_member(query, node, ((IndexScanState *) state)->iss_RelationDesc);
			break;
		case T_IndexOnlyScanState:
			add_member(query, node, ((ScanState *) state)->ss_currentRelation);
			add_member(query, node, ((IndexOnlyScanState *) state)->ioss_RelationDesc);
			break;
		case T_BitmapHeapScanState:
			add_member(query, node, ((ScanState *) state)->ss_currentRelation);
			add_bitmap_indexes(query, node, outerPlanState(state));
			break;
		case T_ModifyTableState:
			{
				ModifyTableState *modify = (ModifyTableState *) state;

				for (int i = 0; i < modify->mt_nrels; i++)
				{
					ResultRelInfo *result = &modify->resultRelInfo[i];

					add_member(query, node, result->ri_RelationDesc);
					for (int j = 0; j < result->ri_NumIndices; j++)
						add_member(query, node, result->ri_IndexRelationDescs[j]);
				}
			}
			break;
		default:
			break;
	}
}

/* Each plan node's relations, through the nodes the tracker wrapped (no walk of its own). */
static void
find_members(CountedQuery *query, const ReadTracker *tracker)
{
	for (int id = 0; id < query->node_bound; id++)
	{
		PlanState  *state = read_tracker_node_state(tracker, id);
		NodeRelations *node = &query->nodes[id];

		if (state == NULL)
			continue;
		node->first = query->member_count;
		node->count = 0;
		add_node_members(query, node, state);
		query->widest_node = Max(query->widest_node, node->count);
		if (IsA(state, GatherState) || IsA(state, GatherMergeState))
			query->has_gather = true;
	}
}

/* One sampled span, to the relations of the node that ran it. */
static void
span_to_relations(void *arg, PlanState *state, const cachectl_read_sources *span)
{
	CountedQuery *query = arg;
	NodeRelations *node;
	cachectl_error error;		/* filled by the bridge when it fails */
	int			id;

	if (state == NULL || IsA(state, GatherState) || IsA(state, GatherMergeState))
		return;
	id = state->plan->plan_node_id;
	if (id < 0 || id >= query->node_bound || query->nodes[id].first < 0)
		return;
	node = &query->nodes[id];
	if (node->count == 0 && query->has_gather)
		return;
	room_for_both((void **) &query->split_blocks, sizeof(int64), (void **) &query->split_totals,
				  sizeof(cachectl_relation_reads *), &query->split_capacity, query->widest_node + 1);
	for (int m = 0; m < node->count; m++)
	{
		int			index = query->members[node->first + m];
		int64		since = reads_since_seen(query, index);

		/* one relation: the whole span is its own (its TOAST, its stream's reads ahead) */
		query->split_blocks[m] = node->count == 1 ? span->read_blocks : since;
		query->split_totals[m] = &query->deltas[index].reads;
	}
	query->split_totals[node->count] = &query->deltas[0].reads;
	/* page-cache hits only (the common read) need no bridge call */
	if (!cachectl_read_sources_split_page_cache(span, query->split_blocks, node->count, query->sources_known,
												query->split_totals) &&
		cachectl_read_sources_split(span, query->split_blocks, node->count, query->sources_known,
									query->split_totals, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
}

/* The backend's counting state, emptied for a query of node_bound plan nodes. */
static CountedQuery *
new_counted_query(int node_bound)
{
	CountedQuery *query = &counting;

	query->nodes = room_for(query->nodes, &query->node_capacity, Max(node_bound, 1), sizeof(NodeRelations));
	query->node_bound = node_bound;
	for (int i = 0; i < node_bound; i++)
		query->nodes[i].first = -1;
	query->member_count = 0;
	query->widest_node = 0;
	query->has_gather = false;
	/* deltas[0]: the database's other reads */
	query->relation_count = 0;
	room_for_relation(query);
	memset(&query->deltas[0], 0, sizeof(RelationReadsDelta));
	memset(&query->seen[0], 0, sizeof(RelationSeen));
	query->relation_count = 1;
	return query;
}

static void
start_counting(QueryDesc *desc, const ReadCounters *before)
{
	ReadTracker *tracker = read_tracker_of(desc);
	CountedQuery *query;

	if (tracker == NULL)
		tracker = read_tracker_start(desc, before);
	/* the tracker walked the plan already: its bound and nodes, not a second walk */
	query = new_counted_query(read_tracker_node_bound(tracker));
	query->sources_known = read_sources_unknowable() == NULL;
	find_members(query, tracker);
	/* counted while its tracker runs: found again at ExecutorEnd through it (an error drops both) */
	read_tracker_set_sink(tracker, span_to_relations, query);
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
	for (int i = 1; i < query->relation_count; i++)
	{
		RelationSeen *seen = &query->seen[i];
		int64		reads;
		int64		hits;
		void	   *entry = stat_counts(query->deltas[i].rel, &reads, &hits);

		query->deltas[i].shared_hit_blocks += entry == seen->stat_entry ? hits - seen->hits : hits;
		query->deltas[i].shared_hit_blocks = Max(query->deltas[i].shared_hit_blocks, 0);
	}
	relation_reads_add(query->deltas, query->relation_count);
}

static void
end_executor(QueryDesc *desc)
{
	ReadTracker *tracker = read_tracker_of(desc);
	CountedQuery *query = tracker != NULL ? read_tracker_sink_arg(tracker, span_to_relations) : NULL;

	if (query != NULL)
	{
		/* counted once, even if a later hook fails and ExecutorEnd is not reached again */
		read_tracker_set_sink(tracker, NULL, NULL);
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
