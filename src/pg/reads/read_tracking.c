/*
 * read_tracking.c — per plan node, where its reads came from.
 *
 * Every node's own function (ExecProcNodeReal) is wrapped.  The wrapper
 * compares the backend's count of blocks read from the kernel
 * (pgBufferUsage) with the count at the last sample, on entry and on exit;
 * only when it moved does it take a sample: getrusage()'s ru_inblock, the
 * bytes the kernel made the device read for this process.  A sample's span
 * goes to the node that was running while it happened: the caller's on
 * entry, the node's own on exit.  So a read costs one system call, and a
 * tuple that read nothing costs two comparisons.
 *
 * The split of a node is reported only where it is exact: the blocks its
 * samples hold (with its children's) must equal the blocks PostgreSQL's own
 * instrumentation counted in its window.  They differ where reads happened
 * outside the wrapped calls: nodes run through MultiExecProcNode (Hash,
 * Bitmap Index Scan, BitmapAnd/Or: their reads fall in their parent's
 * call), parallel workers' reads (counted to the leader's nodes, made in
 * other processes), an InitPlan run inside another node's call.  With
 * io_method = worker (18 and later) other processes make every read: nothing
 * is known.
 */
#include "postgres.h"

#include <sys/resource.h>

#include "nodes/nodeFuncs.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "api/api.h"
#include "reads/executor_compat.h"
#include "reads/read_tracking.h"

typedef struct TrackedNode
{
	ExecProcNodeMtd real;		/* the node's own function */
	PlanState  *state;
	cachectl_read_sources own;	/* spans sampled while it ran */
} TrackedNode;

struct ReadTracker
{
	int			node_count;		/* plan_node_id bound */
	TrackedNode *nodes;			/* by plan_node_id */
	TrackedNode *running;		/* innermost wrapped node running, NULL outside */
	int64		reads_seen;		/* kernel reads at the last sample */
	int64		device_bytes_seen;
	int64		unclaimed_device_bytes; /* readahead not yet matched to a read */
	cachectl_read_sources outside;	/* spans outside any node */
	PlanState  *top;
	BufferUsage usage_at_start;
	ReadSpanSink sink;			/* told every span (the per-relation counters), or NULL */
	void	   *sink_arg;
	bool		stopped;
	QueryReads	query;			/* summed by read_tracker_stop() */
	MemoryContextCallback on_free;	/* registered with the query's memory */
};

/* The tracker whose nodes are wrapped (one query at a time per backend). */
static ReadTracker *active_tracker = NULL;

/*
 * The backend's own tracker, reused from query to query while its last
 * query's memory is gone (so a query tracked while the per-relation
 * counters are on allocates nothing: pgbench -S spent 1 % of its
 * instructions making room for a tracker in the executor's memory).
 */
static ReadTracker *spare_tracker = NULL;
static int	spare_node_capacity = 0;
static bool spare_in_use = false;

const char *
read_sources_unknowable(void)
{
#if PG_VERSION_NUM >= 180000
	const char *io_method = GetConfigOption("io_method", true, false);

	if (io_method != NULL && strcmp(io_method, "worker") == 0)
		return "io_method = worker";
#endif
	return NULL;
}

bool
read_tracking_active(void)
{
	return active_tracker != NULL;
}

bool
read_tracker_running(const ReadTracker *tracker)
{
	return tracker != NULL && tracker == active_tracker;
}

bool
read_tracker_tracks(const ReadTracker *tracker, const PlanState *state)
{
	int			id = state->plan->plan_node_id;

	return read_tracker_running(tracker) && id >= 0 && id < tracker->node_count && tracker->nodes[id].state == state;
}

static int64
kernel_reads_now(void)
{
	return CACHECTL_KERNEL_READ_BLOCKS(&pgBufferUsage);
}

/*
 * Whose reads count: the whole process where io_uring's kernel workers (its
 * threads) may read for it, else this thread alone, which is the same count
 * in a backend of one thread and a cheaper call (180 against 300 ns here).
 * io_method is fixed at server start: decided once.
 */
static int
rusage_scope(void)
{
	static int	scope = -1;

	if (scope < 0)
	{
#if PG_VERSION_NUM >= 180000
		const char *io_method = GetConfigOption("io_method", true, false);

		scope = io_method != NULL && strcmp(io_method, "io_uring") == 0 ? RUSAGE_SELF : RUSAGE_THREAD;
#else
		scope = RUSAGE_THREAD;
#endif
	}
	return scope;
}

/* Bytes the device read for this backend (with io_uring, for all its threads). */
static int64
device_bytes_now(void)
{
	struct rusage usage;

	if (getrusage(rusage_scope(), &usage) != 0)
		elog(ERROR, "getrusage failed: %m");
	return (int64) usage.ru_inblock * 512;
}

/*
 * The counters at this backend's last look (a sample, or a call of
 * read_counters_now), for read_counters_since_last_look().
 */
static int64 last_look_reads = -1;
static int64 last_look_device_bytes = 0;

static void
remember_look(int64 reads, int64 device_bytes)
{
	last_look_reads = reads;
	last_look_device_bytes = device_bytes;
}

ReadCounters
read_counters_now(void)
{
	ReadCounters counters;

	counters.usage = pgBufferUsage;
	counters.device_bytes = device_bytes_now();
	remember_look(CACHECTL_KERNEL_READ_BLOCKS(&pgBufferUsage), counters.device_bytes);
	return counters;
}

ReadCounters
read_counters_since_last_look(void)
{
	ReadCounters counters;

	if (last_look_reads != kernel_reads_now())
		return read_counters_now();
	counters.usage = pgBufferUsage;
	counters.device_bytes = last_look_device_bytes;
	return counters;
}

/* The span since the last sample, to the node that ran it (NULL: outside any node). */
static void
take_sample(ReadTracker *tracker, TrackedNode *node)
{
	int64		reads = kernel_reads_now();
	int64		device_bytes = device_bytes_now();
	cachectl_read_sources span = {0};
	cachectl_error error;		/* filled by the bridge when it fails */
	int64		span_reads = Max(reads - tracker->reads_seen, 0);
	int64		span_device_bytes = Max(device_bytes - tracker->device_bytes_seen, 0);

	/* page-cache hits only (the common read) need no bridge call */
	if (!cachectl_read_sources_page_cache_span(&span, tracker->unclaimed_device_bytes, span_reads, span_device_bytes) &&
		cachectl_read_sources_add_span(&span, &tracker->unclaimed_device_bytes, span_reads, span_device_bytes,
									   BLCKSZ, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	tracker->reads_seen = reads;
	tracker->device_bytes_seen = device_bytes;
	remember_look(reads, device_bytes);
	cachectl_read_sources_add(node != NULL ? &node->own : &tracker->outside, &span);
	if (tracker->sink != NULL)
		tracker->sink(tracker->sink_arg, node != NULL ? node->state : NULL, &span);
}

static TupleTableSlot *
tracked_node_exec(PlanState *state)
{
	ReadTracker *tracker = active_tracker;
	TrackedNode *node;
	TrackedNode *caller;
	TupleTableSlot *slot;

	/* wrapped nodes run only while their tracker is active (stop or free unwraps nothing: the state dies with it) */
	Assert(tracker != NULL);
	node = &tracker->nodes[state->plan->plan_node_id];
	caller = tracker->running;
	if (kernel_reads_now() != tracker->reads_seen)
		take_sample(tracker, caller);
	tracker->running = node;
	slot = node->real(state);
	if (kernel_reads_now() != tracker->reads_seen)
		take_sample(tracker, node);
	tracker->running = caller;
	return slot;
}

static bool
find_node_bound(PlanState *state, void *context)
{
	int		   *bound = context;

	*bound = Max(*bound, state->plan->plan_node_id + 1);
	return planstate_tree_walker(state, find_node_bound, context);
}

int
read_tracker_node_bound(const ReadTracker *tracker)
{
	return tracker->node_count;
}

PlanState *
read_tracker_node_state(const ReadTracker *tracker, int plan_node_id)
{
	return plan_node_id >= 0 && plan_node_id < tracker->node_count ? tracker->nodes[plan_node_id].state : NULL;
}

static bool
wrap_node(PlanState *state, void *context)
{
	ReadTracker *tracker = context;
	TrackedNode *node = &tracker->nodes[state->plan->plan_node_id];

	if (node->state == NULL)
	{
		node->state = state;
		node->real = state->ExecProcNodeReal;
		/* MultiExec nodes have none (their parent calls them directly) */
		if (state->ExecProcNodeReal != NULL)
			state->ExecProcNodeReal = tracked_node_exec;
	}
	return planstate_tree_walker(state, wrap_node, context);
}

/* The executor state is freed (ExecutorEnd, or an error's cleanup): no node runs any more. */
static void
forget_tracker(void *argument)
{
	if (active_tracker == argument)
		active_tracker = NULL;
	if (spare_tracker == argument)
		spare_in_use = false;
}

/* An empty tracker for a plan of bound nodes: the spare, or (nested in its use) a new one in the query's memory. */
static ReadTracker *
empty_tracker(MemoryContext query_context, int bound)
{
	ReadTracker *tracker;

	if (spare_in_use)
	{
		tracker = MemoryContextAllocZero(query_context, sizeof(ReadTracker));
		tracker->nodes = MemoryContextAllocZero(query_context, sizeof(TrackedNode) * Max(bound, 1));
		return tracker;
	}
	if (spare_tracker == NULL)
		spare_tracker = MemoryContextAlloc(TopMemoryContext, sizeof(ReadTracker));
	if (spare_node_capacity < Max(bound, 1))
	{
		TrackedNode *nodes = spare_node_capacity == 0 ? NULL : spare_tracker->nodes;

		spare_node_capacity = Max(Max(bound, 1), spare_node_capacity * 2);
		nodes = nodes == NULL ? MemoryContextAlloc(TopMemoryContext, sizeof(TrackedNode) * spare_node_capacity) :
			repalloc(nodes, sizeof(TrackedNode) * spare_node_capacity);
		spare_tracker->nodes = nodes;
	}
	tracker = spare_tracker;
	{
		TrackedNode *nodes = tracker->nodes;

		memset(tracker, 0, sizeof(ReadTracker));
		memset(nodes, 0, sizeof(TrackedNode) * Max(bound, 1));
		tracker->nodes = nodes;
	}
	spare_in_use = true;
	return tracker;
}

ReadTracker *
read_tracker_start(QueryDesc *desc, const ReadCounters *before_start)
{
	ReadTracker *tracker;
	int			bound;

	/* started already by another hook of this library (the per-relation counters) */
	if (active_tracker != NULL && active_tracker->top == desc->planstate)
		return active_tracker;
	if (active_tracker != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the reads of a query run inside a query whose reads are tracked cannot be tracked")));
	bound = 0;
	(void) find_node_bound(desc->planstate, &bound);
	tracker = empty_tracker(desc->estate->es_query_cxt, bound);
	tracker->node_count = bound;
	tracker->top = desc->planstate;
	/* from here the tracker is forgotten with its query's memory, however it ends */
	tracker->on_free.func = forget_tracker;
	tracker->on_free.arg = tracker;
	MemoryContextRegisterResetCallback(desc->estate->es_query_cxt, &tracker->on_free);
	(void) wrap_node(desc->planstate, tracker);
	tracker->usage_at_start = before_start->usage;
	tracker->reads_seen = CACHECTL_KERNEL_READ_BLOCKS(&before_start->usage);
	tracker->device_bytes_seen = before_start->device_bytes;
	if (kernel_reads_now() != tracker->reads_seen)
		take_sample(tracker, NULL);
	active_tracker = tracker;
	return tracker;
}

/* PostgreSQL's counts of a span, in the figures' terms. */
static BufferFigures
buffer_figures(const BufferUsage *usage)
{
	BufferFigures figures;

	figures.shared_hit_blocks = usage->shared_blks_hit + usage->local_blks_hit;
	figures.read_blocks = CACHECTL_KERNEL_READ_BLOCKS(usage);
	figures.read_seconds = CACHECTL_READ_SECONDS(usage);
	return figures;
}

/* The workers a Gather or Gather Merge launched (0 for any other node). */
static int
parallel_workers_launched(PlanState *state)
{
	if (IsA(state, GatherState))
		return ((GatherState *) state)->nworkers_launched;
	if (IsA(state, GatherMergeState))
		return ((GatherMergeState *) state)->nworkers_launched;
	return 0;
}

static bool
count_parallel_workers(PlanState *state, void *context)
{
	int		   *workers = context;

	*workers += parallel_workers_launched(state);
	return planstate_tree_walker(state, count_parallel_workers, context);
}

void
read_tracker_stop(ReadTracker *tracker)
{
	BufferUsage span = {0};
	QueryReads *query = &tracker->query;

	if (tracker->stopped)
		return;
	if (kernel_reads_now() != tracker->reads_seen)
		take_sample(tracker, NULL);
	tracker->stopped = true;

	BufferUsageAccumDiff(&span, &pgBufferUsage, &tracker->usage_at_start);
	query->counted = buffer_figures(&span);
	query->sources = tracker->outside;
	for (int i = 0; i < tracker->node_count; i++)
		cachectl_read_sources_add(&query->sources, &tracker->nodes[i].own);
	(void) count_parallel_workers(tracker->top, &query->parallel_workers);
	/* workers' counts reach this backend's in one jump, as if read here */
	query->split_known = read_sources_unknowable() == NULL && query->parallel_workers == 0 &&
		query->sources.read_blocks == query->counted.read_blocks;
}

ReadTracker *
read_tracker_of(const QueryDesc *desc)
{
	return active_tracker != NULL && active_tracker->top == desc->planstate ? active_tracker : NULL;
}

void
read_tracker_set_sink(ReadTracker *tracker, ReadSpanSink sink, void *arg)
{
	tracker->sink = sink;
	tracker->sink_arg = arg;
}

void *
read_tracker_sink_arg(const ReadTracker *tracker, ReadSpanSink sink)
{
	return tracker->sink == sink ? tracker->sink_arg : NULL;
}

QueryReads
read_tracker_query(const ReadTracker *tracker)
{
	Assert(tracker->stopped);
	return tracker->query;
}

/* Pre-order walk: each node once, with its parent's index. */
typedef struct FigureWalk
{
	ReadTracker *tracker;
	NodeReads  *figures;
	int			count;
	int			parent;
	int			depth;
	bool	   *seen;
} FigureWalk;

static bool
collect_node(PlanState *state, void *context)
{
	FigureWalk *walk = context;
	int			id = state->plan->plan_node_id;
	NodeReads  *figure;
	int			saved_parent = walk->parent;
	bool		stop;

	if (walk->seen[id])
		return false;
	walk->seen[id] = true;
	figure = &walk->figures[walk->count];
	memset(figure, 0, sizeof(*figure));
	figure->state = state;
	figure->plan = state->plan;
	figure->parent = walk->parent;
	figure->depth = walk->depth;
	figure->sources = walk->tracker->nodes[id].own;
	if (state->instrument != NULL)
	{
		InstrEndLoop(state->instrument);
		figure->loops = state->instrument->nloops;
		figure->counted = buffer_figures(CACHECTL_NODE_BUFFER_USAGE(state->instrument));
	}
	walk->parent = walk->count++;
	walk->depth++;
	stop = planstate_tree_walker(state, collect_node, context);
	walk->depth--;
	walk->parent = saved_parent;
	return stop;
}

/*
 * A Gather whose workers ran: their reads are made in other processes, and
 * their buffer counts reach this backend's in one jump when they finish
 * (inside the Gather's call, as if it had read them itself).  Nothing at it,
 * above it or below it can be split.
 */
static void
mark_unknown_around(NodeReads *figures, int count, int gather)
{
	for (int i = gather; i >= 0; i = figures[i].parent)
		figures[i].split_known = false;
	/* pre-order: its subtree is the run of deeper nodes right after it */
	for (int i = gather + 1; i < count && figures[i].depth > figures[gather].depth; i++)
		figures[i].split_known = false;
}

NodeReads *
read_tracker_figures(ReadTracker *tracker, int *count)
{
	FigureWalk	walk = {0};
	const char *unknowable = read_sources_unknowable();

	walk.tracker = tracker;
	walk.figures = palloc0(sizeof(NodeReads) * Max(tracker->node_count, 1));
	walk.seen = palloc0(sizeof(bool) * Max(tracker->node_count, 1));
	walk.parent = -1;
	(void) collect_node(tracker->top, &walk);
	/* children come after their parent: summed backwards, each is whole when added */
	for (int i = walk.count - 1; i > 0; i--)
		cachectl_read_sources_add(&walk.figures[walk.figures[i].parent].sources, &walk.figures[i].sources);
	for (int i = 0; i < walk.count; i++)
		walk.figures[i].split_known = unknowable == NULL && walk.figures[i].state->instrument != NULL &&
			walk.figures[i].sources.read_blocks == walk.figures[i].counted.read_blocks;
	for (int i = 0; i < walk.count; i++)
		if (parallel_workers_launched(walk.figures[i].state) > 0)
			mark_unknown_around(walk.figures, walk.count, i);
	*count = walk.count;
	return walk.figures;
}
