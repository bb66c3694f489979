/*
 * read_tracking.h — where a query's reads came from, per plan node: the
 * blocks PostgreSQL read from the kernel split into page-cache hits and
 * device reads (src/core/read_sources.hpp), sampled only when a read
 * happened, for cachectl.explain_reads() and the EXPLAIN option.
 */
#ifndef PG_CACHECTL_READ_TRACKING_H
#define PG_CACHECTL_READ_TRACKING_H

#include "executor/execdesc.h"
#include "nodes/execnodes.h"

#include "pg_cachectl/read_sources.h"

typedef struct ReadTracker ReadTracker;

/* A node's figures, inclusive of its children as EXPLAIN's BUFFERS are. */
typedef struct NodeReads
{
	PlanState  *state;			/* valid until ExecutorEnd */
	const Plan *plan;			/* the plan tree outlives the executor state */
	int			parent;			/* index of the parent in the figures, -1 for the top */
	int			depth;
	double		loops;
	int64		shared_hit_blocks;	/* PostgreSQL's instrumentation: shared and local hits */
	int64		read_blocks;	/* PostgreSQL's instrumentation: asked of the kernel */
	double		read_seconds;	/* with track_io_timing only (else 0) */
	bool		split_known;	/* the sampled reads are exactly this node's */
	cachectl_read_sources sources;	/* sampled; valid when split_known */
} NodeReads;

/*
 * Why no node's split can be known in this session (the reads are made by
 * other processes: io_method = worker), or NULL.
 */
extern const char *read_sources_unknowable(void);

/* The workers a Gather or Gather Merge launched (0 for any other node). */
extern int	parallel_workers_launched(PlanState *state);

/* True while a query is tracked (one at a time per backend). */
extern bool read_tracking_active(void);
/* True while this tracker's query runs (compared, never dereferenced: it may be freed). */
extern bool read_tracker_running(const ReadTracker *tracker);
/* True if a running tracker wraps this plan node (of its query, not another's). */
extern bool read_tracker_tracks(const ReadTracker *tracker, const PlanState *state);

/* The two counters a sample reads: taken before ExecutorStart, they make its reads part of the query's. */
typedef struct ReadCounters
{
	int64		read_blocks;	/* asked of the kernel (pgBufferUsage) */
	int64		device_bytes;	/* getrusage's ru_inblock × 512 */
} ReadCounters;

extern ReadCounters read_counters_now(void);

/*
 * Tracks the query just started (ExecutorStart done, instrumented with
 * buffers): wraps each plan node's function, in the query's memory; the
 * tracking stops when its executor state is freed or read_tracker_stop()
 * is called.  The reads since before_start (ExecutorStart's: catalogs,
 * index metapages) count as the query's, outside its nodes.
 */
extern ReadTracker *read_tracker_start(QueryDesc *desc, const ReadCounters *before_start);
/* Takes the last sample: the reads since the last one were outside any node. */
extern void read_tracker_stop(ReadTracker *tracker);

/* Each node's figures (call after ExecutorFinish), in plan order; palloc'd. */
extern NodeReads *read_tracker_figures(ReadTracker *tracker, int *count);
/* The whole query, from its start to the stop: outside its nodes too. */
extern cachectl_read_sources read_tracker_total(ReadTracker *tracker);
/* The figures of one plan node (NULL if it was not tracked). */
extern const NodeReads *read_tracker_node(ReadTracker *tracker, NodeReads *figures, int count, PlanState *state);

#endif							/* PG_CACHECTL_READ_TRACKING_H */
