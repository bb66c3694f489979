/*
 * explain_option.c — EXPLAIN (ANALYZE, CACHECTL_READS) on PostgreSQL 18
 * and later: each plan node gets a "Read Sources" line (text) or group
 * (JSON, YAML, XML) with its blocks hit in shared buffers, read from the
 * kernel, served by the OS page cache and read from the device, and the
 * device bytes, inclusive of its children as BUFFERS is; the plan gets the
 * whole query's.  The tracking is read_tracking.c's, as explain_reads()
 * uses it; the figures are copied out at the first node printed, while the
 * executor state they live in is still there.
 *
 * The option asks for the tracking when EXPLAIN validates its options (for
 * EXPLAIN EXECUTE too); the next executor start with buffer instrumentation
 * takes it.  A request that no executor start took (EXPLAIN failed before
 * running, or explained a statement without a plan) is dropped at the end
 * of its (sub)transaction.
 */
#include "postgres.h"

#include "reads/explain_option.h"

#if PG_VERSION_NUM >= 180000

#include "access/xact.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "commands/explain_format.h"
#include "commands/explain_state.h"

#include "reads/read_tracking.h"

#define OPTION_NAME "cachectl_reads"

/* What the option asked of one EXPLAIN, in its ExplainState, and the figures copied there. */
typedef struct ReadsOption
{
	bool		enabled;
	bool		copied;			/* figures below taken */
	NodeReads  *figures;
	int			figure_count;
	QueryReads	whole;
	const char *unknowable;
} ReadsOption;

/*
 * The run an EXPLAIN asked to track, in this backend (one at a time).  It
 * holds no pointer into an ExplainState: a request no executor start took
 * (EXPLAIN of a statement without a plan) may outlive the EXPLAIN, and then
 * tracks whatever query takes it, harmlessly.  The tracker is only ever
 * compared with the active one before use: once its query's executor state
 * is freed it is not.
 */
static struct
{
	bool		requested;
	ReadTracker *tracker;
}			explain_run;

static int	extension_id = -1;

static ExecutorStart_hook_type previous_executor_start = NULL;
static explain_per_node_hook_type previous_per_node = NULL;
static explain_per_plan_hook_type previous_per_plan = NULL;
static explain_validate_options_hook_type previous_validate = NULL;

static ReadsOption *
option_of(ExplainState *es)
{
	return extension_id < 0 ? NULL : (ReadsOption *) GetExplainExtensionState(es, extension_id);
}

static void
parse_option(ExplainState *es, DefElem *element, ParseState *pstate)
{
	ReadsOption *option = option_of(es);

	(void) pstate;
	if (option == NULL)
	{
		option = palloc0(sizeof(ReadsOption));
		SetExplainExtensionState(es, extension_id, option);
	}
	option->enabled = defGetBoolean(element);
}

static void
validate_options(ExplainState *es, List *options, ParseState *pstate)
{
	ReadsOption *option = option_of(es);

	if (previous_validate)
		previous_validate(es, options, pstate);
	if (option == NULL || !option->enabled)
		return;
	if (!es->analyze)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("EXPLAIN option %s requires ANALYZE", "CACHECTL_READS")));
	if (!es->buffers)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("EXPLAIN option %s requires BUFFERS", "CACHECTL_READS"),
				 errhint("BUFFERS is on by default with ANALYZE; leave out BUFFERS OFF.")));
	explain_run.requested = true;
	/* an EXPLAIN run inside a tracked one leaves the outer run alone */
	if (!read_tracker_running(explain_run.tracker))
		explain_run.tracker = NULL;
}

static void
start_executor(QueryDesc *desc, int eflags)
{
	bool		track = explain_run.requested && (desc->instrument_options & INSTRUMENT_BUFFERS) != 0 &&
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && !read_tracking_active();
	ReadCounters before = {0};

	/* every query of a session that loaded the library passes here: no system call unless asked */
	if (track)
	{
		explain_run.requested = false;
		before = read_counters_now();
	}
	if (previous_executor_start)
		previous_executor_start(desc, eflags);
	else
		standard_ExecutorStart(desc, eflags);
	if (track)
		explain_run.tracker = read_tracker_start(desc, &before);
}

/*
 * Copies the figures out of the executor state into the ExplainState's
 * memory (ExecutorFinish is done: EXPLAIN prints after it, and before
 * ExecutorEnd frees the state).  False when no tracked run is there.
 */
static bool
copy_figures(ReadsOption *option, PlanState *planstate)
{
	MemoryContext caller;

	if (option->copied)
		return true;
	/* the run must be this plan's (not an outer EXPLAIN's, still running) */
	if (!read_tracker_running(explain_run.tracker) || !read_tracker_tracks(explain_run.tracker, planstate))
		return false;
	caller = MemoryContextSwitchTo(GetMemoryChunkContext(option));
	read_tracker_stop(explain_run.tracker);
	option->figures = read_tracker_figures(explain_run.tracker, &option->figure_count);
	option->whole = read_tracker_query(explain_run.tracker);
	option->unknowable = read_sources_unknowable();
	option->copied = true;
	MemoryContextSwitchTo(caller);
	return true;
}

static void
print_sources(ExplainState *es, const char *label, const BufferFigures *counted, bool known,
			  const cachectl_read_sources *sources)
{
	int64		shared_hits = counted->shared_hit_blocks;
	int64		reads = counted->read_blocks;

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		ExplainIndentText(es);
		if (known)
			appendStringInfo(es->str, "%s: shared hit=" INT64_FORMAT " page cache=" INT64_FORMAT
							 " device=" INT64_FORMAT " (" INT64_FORMAT " bytes)\n",
							 label, shared_hits, sources->os_hit_blocks, sources->device_read_blocks,
							 sources->device_read_bytes);
		else
			appendStringInfo(es->str, "%s: shared hit=" INT64_FORMAT " read=" INT64_FORMAT " (sources not known)\n",
							 label, shared_hits, reads);
		return;
	}
	ExplainOpenGroup(label, label, true, es);
	ExplainPropertyInteger("Shared Hit Blocks", NULL, shared_hits, es);
	ExplainPropertyInteger("Read Blocks", NULL, reads, es);
	ExplainPropertyBool("Sources Known", known, es);
	if (known)
	{
		ExplainPropertyInteger("Page Cache Hit Blocks", NULL, sources->os_hit_blocks, es);
		ExplainPropertyInteger("Device Read Blocks", NULL, sources->device_read_blocks, es);
		ExplainPropertyInteger("Device Read Bytes", "bytes", sources->device_read_bytes, es);
	}
	ExplainCloseGroup(label, label, true, es);
}

static void
print_node(PlanState *planstate, List *ancestors, const char *relationship, const char *plan_name,
		   ExplainState *es)
{
	ReadsOption *option = option_of(es);

	if (previous_per_node)
		previous_per_node(planstate, ancestors, relationship, plan_name, es);
	if (option == NULL || !option->enabled || !copy_figures(option, planstate))
		return;
	for (int i = 0; i < option->figure_count; i++)
	{
		const NodeReads *figure = &option->figures[i];

		if (figure->state != planstate)
			continue;
		print_sources(es, "Read Sources", &figure->counted, figure->split_known, &figure->sources);
		return;
	}
}

static void
print_plan(PlannedStmt *plannedstmt, IntoClause *into, ExplainState *es, const char *queryString,
		   ParamListInfo params, QueryEnvironment *queryEnv)
{
	ReadsOption *option = option_of(es);

	if (previous_per_plan)
		previous_per_plan(plannedstmt, into, es, queryString, params, queryEnv);
	if (option == NULL || !option->enabled || !option->copied)
		return;
	explain_run.tracker = NULL;
	print_sources(es, "Query Read Sources", &option->whole.counted, option->whole.split_known, &option->whole.sources);
	if (option->unknowable != NULL)
		ExplainPropertyText("Read Sources Not Known With", option->unknowable, es);
	else if (option->whole.parallel_workers > 0)
		ExplainPropertyInteger("Read Sources Not Known For Parallel Workers", NULL, option->whole.parallel_workers, es);
}

/* A request no executor start took dies with the (sub)transaction that made it. */
static void
drop_request_at_end(XactEvent event, void *argument)
{
	(void) event;
	(void) argument;
	explain_run.requested = false;
	explain_run.tracker = NULL;
}

static void
drop_request_at_subabort(SubXactEvent event, SubTransactionId subxid, SubTransactionId parent, void *argument)
{
	(void) subxid;
	(void) parent;
	(void) argument;
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		explain_run.requested = false;
		explain_run.tracker = NULL;
	}
}

void
explain_option_forget_request(void)
{
	explain_run.requested = false;
}

void
explain_option_register(void)
{
	extension_id = GetExplainExtensionId("pg_cachectl");
#if PG_VERSION_NUM >= 190000
	RegisterExtensionExplainOption(OPTION_NAME, parse_option, NULL);
#else
	RegisterExtensionExplainOption(OPTION_NAME, parse_option);
#endif
	previous_validate = explain_validate_options_hook;
	explain_validate_options_hook = validate_options;
	previous_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = start_executor;
	previous_per_node = explain_per_node_hook;
	explain_per_node_hook = print_node;
	previous_per_plan = explain_per_plan_hook;
	explain_per_plan_hook = print_plan;
	RegisterXactCallback(drop_request_at_end, NULL);
	RegisterSubXactCallback(drop_request_at_subabort, NULL);
}

#else							/* before 18: EXPLAIN takes no options from extensions */

void
explain_option_register(void)
{
}

void
explain_option_forget_request(void)
{
}

#endif
