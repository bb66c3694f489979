/*
 * advice_state.h — the sizing advice's shared memory: what the sampler
 * publishes once a second (the curve, per relation too, its window and its
 * own state) and what SQL asks of it (a reset).  One writer, the sampler;
 * readers copy under the lock, so a report is one consistent publication.
 */
#ifndef PG_CACHECTL_ADVICE_STATE_H
#define PG_CACHECTL_ADVICE_STATE_H

#include "datatype/timestamp.h"
#include "storage/lwlock.h"
#include "storage/spin.h"

/* The simulated sizes: 2^(k/2) x today's pool, k = -6..6 (1/8x to 8x). */
#define ADVICE_GRID_SIZES 13
#define ADVICE_MAX_RELATIONS 2048
#define ADVICE_REASON_LENGTH 96
#define ADVICE_ERROR_LENGTH 256

extern const double advice_grid_ratios[ADVICE_GRID_SIZES];

typedef enum AdviceSamplerState
{
	ADVICE_NOT_STARTED = 0,		/* no sampler has run since the server started */
	ADVICE_OFF,					/* cachectl.track_advice is off */
	ADVICE_SAMPLING,
	ADVICE_FAILED				/* it ended on an error; the server restarts it */
} AdviceSamplerState;

/* One relation's sampled accesses and hits at each grid size. */
typedef struct AdviceRelationCurve
{
	Oid			database;		/* InvalidOid: a shared catalog */
	Oid			tablespace;
	Oid			file_number;	/* relfilenode / relfilenumber */
	double		accesses[ADVICE_GRID_SIZES];
	double		hits[ADVICE_GRID_SIZES];
} AdviceRelationCurve;

/* A relation's track_reads counters when the window started. */
typedef struct AdviceReadsBaseline
{
	Oid			database;
	Oid			relation;
	int64		shared_hit_blocks;
	int64		read_blocks;
	int64		os_hit_blocks;
	int64		device_read_blocks;
	int64		unsplit_read_blocks;
} AdviceReadsBaseline;

/* What one publication holds (the SQL side copies this part). */
typedef struct AdviceReport
{
	AdviceSamplerState state;
	int			sampler_pid;
	TimestampTz window_started;	/* 0: no window yet */
	char		window_reason[ADVICE_REASON_LENGTH];
	TimestampTz published_at;
	/* pg_stat_database over the window (every database and the shared row) */
	double		measured_hits;
	double		measured_accesses;
	/* track_reads at the window's start: whether its baseline was taken */
	bool		reads_baseline_taken;
	TimestampTz reads_reset_at;	/* relation_reads' reset time then */
	/* the sample */
	double		sample_rate;
	int64		sampled_blocks;
	int64		followed_buffers;
	int64		pool_buffers;
	double		round_interval_ms;
	int64		rounds;
	int64		told_accesses;
	int64		lowered_counts;
	double		cpu_seconds;
	int64		memory_bytes;
	char		last_error[ADVICE_ERROR_LENGTH];
	TimestampTz last_error_at;
	/* the cluster's curve */
	double		accesses[ADVICE_GRID_SIZES];
	double		hits[ADVICE_GRID_SIZES];
	int			relation_count;
	int64		relations_left_out;
} AdviceReport;

typedef struct AdviceShared
{
	LWLock	   *lock;			/* guards report, relations and baselines */
	slock_t		mutex;			/* guards the requests below */
	uint64		reset_requests;	/* reset_advice() adds one */
	int			sampler_pgprocno;	/* -1: none; to wake it */
	AdviceReport report;
	int			baseline_count;
	AdviceRelationCurve relations[ADVICE_MAX_RELATIONS];
	AdviceReadsBaseline baselines[FLEXIBLE_ARRAY_MEMBER];	/* track_reads_max_relations */
} AdviceShared;

extern AdviceShared *advice_shared;

/* From _PG_init while preloading: asks for the memory and its lock. */
extern void advice_state_request(void);

/* False when not preloaded (no memory). */
extern bool advice_state_available(void);

/* How many baselines fit. */
extern int	advice_baseline_capacity(void);

/* Asks the sampler for a new window; returns when it was asked. */
extern TimestampTz advice_request_reset(void);

/* The reset requests so far (the sampler compares with what it served). */
extern uint64 advice_reset_requests(void);

/* Bytes of shared memory the area takes. */
extern Size advice_shared_size(void);

#endif							/* PG_CACHECTL_ADVICE_STATE_H */
