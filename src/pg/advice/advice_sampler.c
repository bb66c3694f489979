/*
 * advice_sampler.c — the sizing advice's background worker.  One per
 * cluster, on primaries and hot standbys alike (each reports its own
 * reads).  While cachectl.track_advice is on it reads, each round, the
 * buffer headers the core's model asks for (those the clock hand swept,
 * those holding sampled blocks, empty ones), hands over the ones it wants,
 * lowers the usage counts it finds at the cap, and once a second publishes
 * the curve with pg_stat_database's counts of the same window.
 *
 * A window starts when the sampler starts (so a restart loses the window,
 * and says so), when reset_advice() asks, when track_advice is turned on,
 * and when the statistics it is anchored to are reset.  The round's length
 * follows the clock hand: short enough that the hand moves at most half the
 * pool between two readings, within 10 ms and 1 s (most of a round's cost
 * is the same whatever its length: the followed buffers read again, the
 * wake-up; rounds of a quarter of the pool cost twice the CPU of these,
 * for no accuracy measured).
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/buf_internals.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include <sys/resource.h>

#include "advice/advice.h"
#include "advice/advice_anchors.h"
#include "advice/advice_pool_watch.h"
#include "advice/advice_sampler.h"
#include "advice/advice_settings.h"
#include "advice/advice_state.h"
#include "api/version_compat.h"
#include "pg_cachectl/pool_advice.h"
#include "reads/relation_reads.h"

#define SAMPLER_RETRY_SECONDS 10
#define PUBLISH_EVERY_MS 1000
#define SHORTEST_ROUND_MS 10.0
#define LONGEST_ROUND_MS 1000.0
/* followed buffers this many per pool buffer at the start: about 1,024 of them */
#define FOLLOWED_BUFFERS_AIMED 1024
#define ROUND_POOL_SHARE 2.0
#define MODEL_SEED 20261206

PGDLLEXPORT void pg_cachectl_advice_sampler_main(Datum main_arg);

/* The sampler's own state: the model and its window. */
typedef struct Sampler
{
	cachectl_pool_advice *model;
	uint32	   *to_read;		/* NBuffers of them */
	cachectl_buffer_reading *readings;
	size_t		readings_capacity;
	uint64		resets_served;
	ClusterBlockCounts window_start_counts;
	double		round_ms;
	uint64		last_hand;
	int64		rounds;
	int64		told;
	int64		lowered;
	TimestampTz last_publish;
	char		reason[ADVICE_REASON_LENGTH];
	TimestampTz window_started;
	HTAB	   *tablespaces;	/* relation key -> tablespace, as headers showed */
} Sampler;

typedef struct RelationTablespace
{
	uint64		relation;
	Oid			tablespace;
} RelationTablespace;

void
advice_init(bool preloading)
{
	advice_define_settings(preloading);
	if (!preloading)
		return;
	advice_state_request();
	advice_register_sampler();
}

void
advice_register_sampler(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	/* a hot standby reports its own reads */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = SAMPLER_RETRY_SECONDS;
	snprintf(worker.bgw_library_name, sizeof(worker.bgw_library_name), "pg_cachectl");
	snprintf(worker.bgw_function_name, sizeof(worker.bgw_function_name), "pg_cachectl_advice_sampler_main");
	snprintf(worker.bgw_name, sizeof(worker.bgw_name), "pg_cachectl advice sampler");
	snprintf(worker.bgw_type, sizeof(worker.bgw_type), "pg_cachectl advice sampler");
	RegisterBackgroundWorker(&worker);
}

static void
set_state(AdviceSamplerState state)
{
	LWLockAcquire(advice_shared->lock, LW_EXCLUSIVE);
	advice_shared->report.state = state;
	advice_shared->report.sampler_pid = state == ADVICE_SAMPLING || state == ADVICE_OFF ? MyProcPid : 0;
	LWLockRelease(advice_shared->lock);
}

static void
leave_shared_state(int code, Datum arg)
{
	SpinLockAcquire(&advice_shared->mutex);
	advice_shared->sampler_pgprocno = -1;
	SpinLockRelease(&advice_shared->mutex);
	LWLockReleaseAll();
	LWLockAcquire(advice_shared->lock, LW_EXCLUSIVE);
	if (advice_shared->report.state != ADVICE_FAILED)
		advice_shared->report.state = ADVICE_NOT_STARTED;
	advice_shared->report.sampler_pid = 0;
	LWLockRelease(advice_shared->lock);
}

static double
cpu_seconds(void)
{
	struct rusage usage;

	if (getrusage(RUSAGE_SELF, &usage) != 0)
		return 0;
	return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void
read_counts(ClusterBlockCounts *counts)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	advice_read_cluster_counts(counts);
	PopActiveSnapshot();
	CommitTransactionCommand();
}

static void
raise_model_error(const cachectl_error *error)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("pg_cachectl advice sampler: %s", error->bug[0] ? error->bug : "the model failed")));
}

static void
end_window(Sampler *sampler)
{
	if (sampler->model != NULL)
		cachectl_pool_advice_free(sampler->model);
	sampler->model = NULL;
}

/*
 * A new window: the counts it starts from, over a fresh model, or over the
 * simulated pools as they are (keep_pools: a reset of the counts, which
 * leaves shared buffers as they are too).
 */
static void
start_window(Sampler *sampler, const char *reason, bool keep_pools)
{
	cachectl_error error;
	double		rate = Min(1.0, (double) FOLLOWED_BUFFERS_AIMED / NBuffers);
	uint32		full_read_every = Max(64, NBuffers / 1024);
	TimestampTz reads_reset_at = 0;
	bool		reads_baseline;

	if (!keep_pools || sampler->model == NULL)
		end_window(sampler);
	if (sampler->tablespaces == NULL)
	{
		HASHCTL		info;

		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(uint64);
		info.entrysize = sizeof(RelationTablespace);
		info.hcxt = TopMemoryContext;
		sampler->tablespaces = hash_create("pg_cachectl advice tablespaces", 1024, &info,
										   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&error, 0, sizeof(error));
	if (sampler->model != NULL)
		cachectl_pool_advice_restart_counts(sampler->model);
	else
	{
		if (cachectl_pool_advice_create(NBuffers, advice_grid_ratios, ADVICE_GRID_SIZES, rate,
										(size_t) cachectl_advice_sample_blocks_setting, full_read_every,
										MODEL_SEED, &sampler->model, &error) != CACHECTL_OK)
			raise_model_error(&error);
		sampler->round_ms = 100;
		sampler->rounds = 0;
	}
	read_counts(&sampler->window_start_counts);
	sampler->resets_served = advice_reset_requests();
	sampler->told = sampler->lowered = 0;
	sampler->window_started = GetCurrentTimestamp();
	strlcpy(sampler->reason, reason, sizeof(sampler->reason));

	LWLockAcquire(advice_shared->lock, LW_EXCLUSIVE);
	reads_baseline = advice_take_reads_baseline(&reads_reset_at);
	memset(advice_shared->report.accesses, 0, sizeof(advice_shared->report.accesses));
	memset(advice_shared->report.hits, 0, sizeof(advice_shared->report.hits));
	advice_shared->report.window_started = sampler->window_started;
	strlcpy(advice_shared->report.window_reason, reason, ADVICE_REASON_LENGTH);
	advice_shared->report.published_at = sampler->window_started;
	advice_shared->report.measured_hits = 0;
	advice_shared->report.measured_accesses = 0;
	advice_shared->report.reads_baseline_taken = reads_baseline;
	advice_shared->report.reads_reset_at = reads_reset_at;
	advice_shared->report.relation_count = 0;
	advice_shared->report.relations_left_out = 0;
	advice_shared->report.pool_buffers = NBuffers;
	LWLockRelease(advice_shared->lock);
	elog(LOG, "pg_cachectl advice sampler: a new window (%s)", reason);
}

/* One round: read what the model asks, hand over what it wants, lower counts at the cap. */
static void
sample_round(Sampler *sampler)
{
	cachectl_error error;
	uint64		hand = advice_clock_hand();
	size_t		count = 0;
	size_t		handed = 0;
	int64		told = 0;
	const uint32_t *saturated = NULL;
	size_t		saturated_count = 0;
	uint64		last_relation = 0;
	Oid			last_tablespace = InvalidOid;

	memset(&error, 0, sizeof(error));
	if (cachectl_pool_advice_buffers_to_read(sampler->model, hand, sampler->to_read, NBuffers, &count,
											 &error) != CACHECTL_OK)
		raise_model_error(&error);
	for (size_t i = 0; i < count; i++)
	{
		cachectl_buffer_reading reading;
		Oid			tablespace;

		if ((i & 4095) == 4095)
			CHECK_FOR_INTERRUPTS();
		if (!advice_read_header((int) sampler->to_read[i], &reading, &tablespace))
		{
			cachectl_pool_advice_recheck(sampler->model, sampler->to_read[i]);
			continue;
		}
		if (!cachectl_pool_advice_wants_reading(sampler->model, reading.buffer, reading.valid, reading.block_hash))
		{
			if (reading.pinned)
				cachectl_pool_advice_recheck(sampler->model, reading.buffer);
			continue;
		}
		/* readings come in runs of one relation: look each run up once */
		if (reading.valid && (reading.relation != last_relation || tablespace != last_tablespace))
		{
			bool		found;
			RelationTablespace *entry = hash_search(sampler->tablespaces, &reading.relation, HASH_ENTER, &found);

			entry->tablespace = tablespace;
			last_relation = reading.relation;
			last_tablespace = tablespace;
		}
		if (handed == sampler->readings_capacity)
		{
			sampler->readings_capacity *= 2;
			sampler->readings = repalloc(sampler->readings, sampler->readings_capacity * sizeof(cachectl_buffer_reading));
		}
		sampler->readings[handed++] = reading;
	}
	if (cachectl_pool_advice_observe(sampler->model, hand, sampler->readings, handed, &told, &saturated,
									 &saturated_count, &error) != CACHECTL_OK)
		raise_model_error(&error);
	for (size_t i = 0; i < saturated_count; i++)
		if (advice_lower_usage_from_cap((int) saturated[i]))
		{
			cachectl_pool_advice_count_lowered(sampler->model, saturated[i]);
			sampler->lowered++;
		}
	sampler->told += told;
	sampler->rounds++;

	/*
	 * The hand should move at most 1/ROUND_POOL_SHARE of the pool between two
	 * readings: the accesses of one round are applied in a random order, so
	 * a round must be short against the pool's turnover; each round costs a
	 * reading of every followed header, so no shorter than that.
	 */
	if (sampler->rounds > 1)
	{
		double		moved = (double) (hand - sampler->last_hand);

		if (moved > NBuffers / ROUND_POOL_SHARE)
			sampler->round_ms = Max(SHORTEST_ROUND_MS, sampler->round_ms / 2);
		else if (moved < NBuffers / (2.0 * ROUND_POOL_SHARE))
			sampler->round_ms = Min(LONGEST_ROUND_MS, sampler->round_ms * 1.25);
	}
	sampler->last_hand = hand;
}

/* What the model's memory comes to, roughly: the lists and the sample's tables. */
static int64
memory_estimate(const Sampler *sampler, int64 sampled_blocks, int64 followed)
{
	double		miniature = 0;

	for (int i = 0; i < ADVICE_GRID_SIZES; i++)
		miniature += advice_grid_ratios[i];
	/* three arrays of a position or stamp per pool buffer: listed, followed, empty */
	return (int64) NBuffers * 3 * sizeof(uint32)
		+ (int64) sampler->readings_capacity * sizeof(cachectl_buffer_reading)
		+ sampled_blocks * 160 + followed * 64 + (int64) (miniature * FOLLOWED_BUFFERS_AIMED * 48)
		+ (int64) advice_shared_size();
}

static int
relation_order(const void *a, const void *b)
{
	const AdviceRelationCurve *left = a;
	const AdviceRelationCurve *right = b;
	double		l = left->accesses[0];
	double		r = right->accesses[0];

	return l < r ? 1 : (l > r ? -1 : 0);
}

/* Publishes the curve, per relation too, and the window's measured counts. */
static void
publish(Sampler *sampler, const ClusterBlockCounts *now)
{
	cachectl_error error;
	cachectl_pool_size_point points[ADVICE_GRID_SIZES];
	size_t		point_count = 0;
	double		rate = 0;
	int64		sampled = 0;
	size_t		needed = 0;
	cachectl_relation_size_point *per_relation;
	AdviceRelationCurve *relations;
	int			relation_count = 0;
	int64		left_out = 0;

	memset(&error, 0, sizeof(error));
	if (cachectl_pool_advice_points(sampler->model, points, ADVICE_GRID_SIZES, &point_count, &rate, &sampled,
									&error) != CACHECTL_OK || point_count != ADVICE_GRID_SIZES)
		raise_model_error(&error);
	(void) cachectl_pool_advice_relation_points(sampler->model, NULL, 0, &needed, &error);
	per_relation = palloc(Max(needed, 1) * sizeof(cachectl_relation_size_point));
	if (cachectl_pool_advice_relation_points(sampler->model, per_relation, needed, &needed, &error) != CACHECTL_OK)
		raise_model_error(&error);
	relations = palloc0(Max(needed / ADVICE_GRID_SIZES, 1) * sizeof(AdviceRelationCurve));
	for (size_t i = 0; i + ADVICE_GRID_SIZES <= needed; i += ADVICE_GRID_SIZES)
	{
		AdviceRelationCurve *curve = &relations[relation_count++];

		curve->database = ADVICE_KEY_DATABASE(per_relation[i].relation);
		curve->file_number = ADVICE_KEY_FILE_NUMBER(per_relation[i].relation);
		{
			RelationTablespace *known = hash_search(sampler->tablespaces, &per_relation[i].relation, HASH_FIND, NULL);

			curve->tablespace = known ? known->tablespace : InvalidOid;
		}
		for (int size = 0; size < ADVICE_GRID_SIZES; size++)
		{
			curve->accesses[size] = per_relation[i + size].accesses;
			curve->hits[size] = per_relation[i + size].hits;
		}
	}
	/* the most accessed first, when they do not all fit */
	if (relation_count > ADVICE_MAX_RELATIONS)
	{
		qsort(relations, relation_count, sizeof(AdviceRelationCurve), relation_order);
		left_out = relation_count - ADVICE_MAX_RELATIONS;
		relation_count = ADVICE_MAX_RELATIONS;
	}

	LWLockAcquire(advice_shared->lock, LW_EXCLUSIVE);
	{
		AdviceReport *report = &advice_shared->report;

		report->published_at = GetCurrentTimestamp();
		report->measured_hits = Max(0, now->hits - sampler->window_start_counts.hits);
		report->measured_accesses = Max(report->measured_hits, now->accesses - sampler->window_start_counts.accesses);
		report->sample_rate = rate;
		report->sampled_blocks = sampled;
		report->followed_buffers = cachectl_pool_advice_followed_buffers(sampler->model);
		report->round_interval_ms = sampler->round_ms;
		report->rounds = sampler->rounds;
		report->told_accesses = sampler->told;
		report->lowered_counts = sampler->lowered;
		report->cpu_seconds = cpu_seconds();
		report->memory_bytes = memory_estimate(sampler, sampled, report->followed_buffers);
		for (int size = 0; size < ADVICE_GRID_SIZES; size++)
		{
			report->accesses[size] = points[size].accesses;
			report->hits[size] = points[size].hits;
		}
		memcpy(advice_shared->relations, relations, relation_count * sizeof(AdviceRelationCurve));
		report->relation_count = relation_count;
		report->relations_left_out = left_out;
		/* turned off within the window, its device reads miss the rest of it */
		if (!cachectl_track_reads_setting)
			report->reads_baseline_taken = false;
	}
	LWLockRelease(advice_shared->lock);
	pfree(per_relation);
	pfree(relations);
}

/* Why the window must start again now, or NULL. */
static const char *
window_restart_reason(Sampler *sampler, const ClusterBlockCounts *now)
{
	if (advice_reset_requests() != sampler->resets_served)
		return "reset_advice()";
	if (now->last_reset > sampler->window_start_counts.last_reset ||
		now->accesses < sampler->window_start_counts.accesses)
		return "statistics were reset";
	return NULL;
}

static void
record_failure(const char *message)
{
	LWLockAcquire(advice_shared->lock, LW_EXCLUSIVE);
	advice_shared->report.state = ADVICE_FAILED;
	strlcpy(advice_shared->report.last_error, message, ADVICE_ERROR_LENGTH);
	advice_shared->report.last_error_at = GetCurrentTimestamp();
	LWLockRelease(advice_shared->lock);
}

void
pg_cachectl_advice_sampler_main(Datum main_arg)
{
	Sampler		sampler;
	MemoryContext work;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	memset(&sampler, 0, sizeof(sampler));
	sampler.to_read = MemoryContextAllocHuge(TopMemoryContext, (Size) NBuffers * sizeof(uint32));
	sampler.readings_capacity = 4096;
	sampler.readings = MemoryContextAlloc(TopMemoryContext, sampler.readings_capacity * sizeof(cachectl_buffer_reading));
	work = AllocSetContextCreate(TopMemoryContext, "pg_cachectl advice sampler", ALLOCSET_DEFAULT_SIZES);

	SpinLockAcquire(&advice_shared->mutex);
	advice_shared->sampler_pgprocno = CACHECTL_MY_PROC_NUMBER;
	SpinLockRelease(&advice_shared->mutex);
	before_shmem_exit(leave_shared_state, 0);

	PG_TRY();
	{
		bool		first = true;

		while (!ShutdownRequestPending)
		{
			long		wait_ms;

			CHECK_FOR_INTERRUPTS();
			if (ConfigReloadPending)
			{
				ConfigReloadPending = false;
				ProcessConfigFile(PGC_SIGHUP);
			}
			if (!cachectl_track_advice_setting)
			{
				if (sampler.model != NULL || first)
				{
					end_window(&sampler);
					set_state(ADVICE_OFF);
				}
				first = false;
				wait_ms = 1000;
			}
			else
			{
				TimestampTz now = GetCurrentTimestamp();

				MemoryContextReset(work);
				MemoryContextSwitchTo(work);
				if (sampler.model == NULL)
				{
					start_window(&sampler, first ? "the sampler started" : "cachectl.track_advice was turned on", false);
					set_state(ADVICE_SAMPLING);
					sampler.last_publish = now;
				}
				first = false;
				sample_round(&sampler);
				if (TimestampDifferenceExceeds(sampler.last_publish, now, PUBLISH_EVERY_MS))
				{
					ClusterBlockCounts counts;
					const char *restart;

					read_counts(&counts);
					restart = window_restart_reason(&sampler, &counts);
					if (restart != NULL)
						start_window(&sampler, restart, true);
					else
						publish(&sampler, &counts);
					sampler.last_publish = now;
				}
				else if (advice_reset_requests() != sampler.resets_served)
					start_window(&sampler, "reset_advice()", true);
				MemoryContextSwitchTo(TopMemoryContext);
				wait_ms = (long) sampler.round_ms;
			}
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		LWLockReleaseAll();
		MemoryContextSwitchTo(TopMemoryContext);
		edata = CopyErrorData();
		record_failure(edata->message);
		PG_RE_THROW();
	}
	PG_END_TRY();
	end_window(&sampler);
	/*
	 * Exit 1, not 0: a sampler terminated by someone (pg_terminate_backend)
	 * comes back after SAMPLER_RETRY_SECONDS with a new window, as one that
	 * failed does; exit 0 would unregister it until the server restarts.
	 * cachectl.track_advice = off is the way to stop sampling.  At shutdown
	 * the postmaster restarts nothing.
	 */
	proc_exit(1);
}
