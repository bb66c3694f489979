/*
 * read_tracking.h — where a query's reads came from, per plan node: the
 * blocks PostgreSQL read from the kernel split into page-cache hits and
 * device reads (src/core/read_sources.hpp), sampled only when a read
 * happened, for cachectl.explain_reads() and the EXPLAIN option.
 */
#ifndef PG_CACHECTL_READ_TRACKING_H
#define PG_CACHECTL_READ_TRACKING_H

#include "executor/execdesc.h"
#include "executor/instrument.h"
#include "nodes/execnodes.h"

#include "pg_cachectl/read_sources.h"

typedef struct ReadTracker ReadTracker;

/* What PostgreSQL itself counted over a span (a node's window, or the query). */
typedef struct BufferFigures
{
	int64		shared_hit_blocks;	/* shared and local hits */
	int64		read_blocks;	/* asked of the kernel: shared, local, temp */
	double		read_seconds;	/* with track_io_timing only (else 0) */
} BufferFigures;

/* A node's figures, inclusive of its children as EXPLAIN's BUFFERS are. */
typedef struct NodeReads
{
	PlanState  *state;			/* valid until ExecutorEnd */
	const Plan *plan;			/* the plan tree outlives the executor state */
	int			parent;			/* index of the parent in the figures, -1 for the top */
	int			depth;
	double		loops;
	BufferFigures counted;		/* PostgreSQL's instrumentation */
	bool		split_known;	/* the sampled reads are exactly this node's */
	cachectl_read_sources sources;	/* sampled; valid when split_known */
} NodeReads;

/* The whole query, from before its ExecutorStart to read_tracker_stop(): outside its nodes too. */
typedef struct QueryReads
{
	BufferFigures counted;		/* PostgreSQL's counts over the span */
	bool		split_known;
	cachectl_read_sources sources;	/* every sample; valid when split_known */
	int			parallel_workers;	/* launched by its Gather nodes: their reads are not sampled */
} QueryReads;

/*
 * Why no node's split can be known in this session (the reads are made by
 * other processes: io_method = worker), or NULL.
 */
extern const char *read_sources_unknowable(void);

/* True while a query is tracked (one at a time per backend). */
extern bool read_tracking_active(void);
/*
 * True while this tracker's query runs (compared, never dereferenced: it may
 * be freed, or be the backend's spare tracking a later query: see
 * read_tracker_tracks).
 */
extern bool read_tracker_running(const ReadTracker *tracker);
/* True if a running tracker wraps this plan node (of its query, not another's). */
extern bool read_tracker_tracks(const ReadTracker *tracker, const PlanState *state);

/* What the tracking starts from: taken before ExecutorStart, its reads are the query's. */
typedef struct ReadCounters
{
	BufferUsage usage;			/* pgBufferUsage */
	int64		device_bytes;	/* getrusage's ru_inblock × 512 */
} ReadCounters;

extern ReadCounters read_counters_now(void);

/*
 * The same without a system call when PostgreSQL read nothing from the
 * kernel since this backend's last look: the device bytes are then the
 * last look's (a device read since, outside PostgreSQL's buffers — an SLRU
 * page, a relation cache file — goes to the next span, as one inside a
 * node's span does).  What every query pays when the per-relation counters
 * are on: pgbench -S spent 1.45 % of its CPU in that getrusage().
 */
extern ReadCounters read_counters_since_last_look(void);

/*
 * Tracks the query just started (ExecutorStart done, instrumented with
 * buffers): wraps each plan node's function, in the query's memory; the
 * tracking stops when its executor state is freed or read_tracker_stop()
 * is called.  The reads since before_start (ExecutorStart's: catalogs,
 * index metapages) count as the query's, outside its nodes.  A query this
 * library tracks already (another of its hooks) gets that tracker.
 */
extern ReadTracker *read_tracker_start(QueryDesc *desc, const ReadCounters *before_start);
/* One more than the largest plan_node_id of its query: the size of an array by node id. */
extern int	read_tracker_node_bound(const ReadTracker *tracker);
/*
 * The plan node of that id the tracker wrapped (the first one seen, for a
 * subplan's shared state), or NULL: its plan's nodes without a second walk.
 */
extern PlanState *read_tracker_node_state(const ReadTracker *tracker, int plan_node_id);

/* The running tracker of this query (started by this library), or NULL. */
extern ReadTracker *read_tracker_of(const QueryDesc *desc);

/*
 * Tells sink every span as it is sampled: the node that ran it (NULL for
 * the reads outside any node) and the span's blocks and bytes, split.
 */
typedef void (*ReadSpanSink) (void *arg, PlanState *node, const cachectl_read_sources *span);
extern void read_tracker_set_sink(ReadTracker *tracker, ReadSpanSink sink, void *arg);
/* The argument the tracker's sink is given, if its sink is this one; else NULL. */
extern void *read_tracker_sink_arg(const ReadTracker *tracker, ReadSpanSink sink);

/*
 * Takes the last sample (the reads since the last one were outside any
 * node) and sums the query; call after ExecutorFinish, before ExecutorEnd.
 */
extern void read_tracker_stop(ReadTracker *tracker);

/* Each node's figures (call after ExecutorFinish), in plan order; palloc'd. */
extern NodeReads *read_tracker_figures(ReadTracker *tracker, int *count);
/* The whole query (after read_tracker_stop). */
extern QueryReads read_tracker_query(const ReadTracker *tracker);

#endif							/* PG_CACHECTL_READ_TRACKING_H */
