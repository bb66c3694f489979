/*
 * advice_sql.c — the sizing advice as SQL: shared_buffers_advice() (the
 * cluster's curve at the sizes asked), relation_advice() (per relation of
 * this database, largest gain first), advice_status() and reset_advice().
 *
 * The sampler publishes, per grid size, the weighted accesses and hits the
 * miniature pools saw; here they are anchored to what the server measured
 * over the same window (pg_stat_database, and track_reads per relation):
 * at 1x the measured hit ratio exactly, elsewhere the measured misses times
 * the model's ratio of misses at that size to misses at 1x.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace_d.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#if PG_VERSION_NUM >= 160000
#include "utils/relfilenumbermap.h"
#define CACHECTL_RELID_BY_FILE_NUMBER(tablespace, number) RelidByRelfilenumber((tablespace), (number))
#else
#include "utils/relfilenodemap.h"
#define CACHECTL_RELID_BY_FILE_NUMBER(tablespace, number) RelidByRelfilenode((tablespace), (number))
#endif

#include <math.h>
#include <unistd.h>

#include "advice/advice_settings.h"
#include "api/api.h"
#include "advice/advice_state.h"
#include "os_cache/fork_residency.h"
#include "pg_cachectl/pool_advice.h"
#include "reads/relation_reads.h"
#include "relation_set/relation_set.h"

PG_FUNCTION_INFO_V1(pg_cachectl_shared_buffers_advice);
PG_FUNCTION_INFO_V1(pg_cachectl_relation_advice);
PG_FUNCTION_INFO_V1(pg_cachectl_advice_status);
PG_FUNCTION_INFO_V1(pg_cachectl_reset_advice);

#define TODAY_INDEX 6			/* advice_grid_ratios[6] == 1 */
#define DEFAULT_SIZE_COUNT 5
#define RELATION_LIMIT 1000
#define SMALLEST_POOL_BUFFERS 16	/* shared_buffers' own minimum */
#define LARGEST_POOL_BYTES (INT64CONST(1) << 40)
#define SHORT_WINDOW_SECONDS 300
#define FEW_SAMPLED_BLOCKS 1000

static const double default_ratios[DEFAULT_SIZE_COUNT] = {0.25, 0.5, 1.0, 2.0, 4.0};

/* What one call works from: a copy of one publication. */
typedef struct AdviceCopy
{
	AdviceReport report;
	AdviceRelationCurve *relations;
	AdviceReadsBaseline *baselines;
	int			baseline_count;
	double		seconds;
} AdviceCopy;

/* A curve anchored to measured counts: per grid size, predicted hits and misses. */
typedef struct AnchoredCurve
{
	bool		known;			/* false: nothing measured in the window */
	double		accesses;
	double		hits[ADVICE_GRID_SIZES];
} AnchoredCurve;

static void
require_preloaded(void)
{
	if (!advice_state_available())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the sizing advice needs pg_cachectl in shared_preload_libraries"),
				 errhint("Add pg_cachectl to shared_preload_libraries, restart the server and set cachectl.track_advice = on.")));
}

/* (database, relation) order, which the baselines and the window's reads share. */
static int
compare_relation_keys(Oid left_database, Oid left_relation, Oid right_database, Oid right_relation)
{
	if (left_database != right_database)
		return left_database < right_database ? -1 : 1;
	if (left_relation != right_relation)
		return left_relation < right_relation ? -1 : 1;
	return 0;
}

/* Baselines in (database, relation) order, for baseline_of's bsearch. */
static int
by_baseline_key(const void *a, const void *b)
{
	const AdviceReadsBaseline *left = a;
	const AdviceReadsBaseline *right = b;

	return compare_relation_keys(left->database, left->relation, right->database, right->relation);
}

/*
 * Copies the last publication: the report and track_reads' baselines (both
 * reports read device reads through them), the relation curves only when
 * asked; 55000 when there never was a window.
 */
static void
copy_publication(AdviceCopy *copy, bool with_relations)
{
	require_preloaded();
	LWLockAcquire(advice_shared->lock, LW_SHARED);
	copy->report = advice_shared->report;
	copy->relations = NULL;
	if (with_relations)
	{
		copy->relations = palloc(Max(copy->report.relation_count, 1) * sizeof(AdviceRelationCurve));
		memcpy(copy->relations, advice_shared->relations, copy->report.relation_count * sizeof(AdviceRelationCurve));
	}
	copy->baseline_count = advice_shared->baseline_count;
	copy->baselines = palloc(Max(copy->baseline_count, 1) * sizeof(AdviceReadsBaseline));
	memcpy(copy->baselines, advice_shared->baselines, copy->baseline_count * sizeof(AdviceReadsBaseline));
	LWLockRelease(advice_shared->lock);
	qsort(copy->baselines, copy->baseline_count, sizeof(AdviceReadsBaseline), by_baseline_key);
	if (copy->report.window_started == 0)
	{
		if (!cachectl_track_advice_setting)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cachectl.track_advice is off"),
					 errhint("Set cachectl.track_advice = on and reload: the sampler then starts a window.")));
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the sizing advice has no window yet"),
				 errdetail("cachectl.track_advice is on; the sampler starts one within seconds (state: %s).",
						   copy->report.state == ADVICE_FAILED ? "failed, restarting" : "starting")));
	}
	copy->seconds = Max(0.0, (double) (copy->report.published_at - copy->report.window_started) / USECS_PER_SEC);
}

/*
 * Anchors model counts (accesses and hits per grid size) to measured hits
 * and accesses: at 1x the measured hits; elsewhere the measured misses
 * scaled by the model's misses there over its misses at 1x (when it saw
 * none at 1x, by the weighted counts themselves).
 */
static void
anchor_curve(const double *model_accesses, const double *model_hits, double measured_hits,
			 double measured_accesses, AnchoredCurve *curve)
{
	cachectl_pool_size_point points[ADVICE_GRID_SIZES];
	double		ratios[ADVICE_GRID_SIZES];
	double		model_misses_today = model_accesses[TODAY_INDEX] - model_hits[TODAY_INDEX];
	double		measured_misses = measured_accesses - measured_hits;
	cachectl_error error;

	curve->known = measured_accesses > 0;
	curve->accesses = measured_accesses;
	if (!curve->known)
		return;
	for (int i = 0; i < ADVICE_GRID_SIZES; i++)
		points[i] = (cachectl_pool_size_point) {
			advice_grid_ratios[i], 0, model_accesses[i], model_hits[i]
		};
	memset(&error, 0, sizeof(error));
	if (cachectl_pool_advice_predict(points, ADVICE_GRID_SIZES, measured_hits, measured_accesses,
									 model_misses_today > 0 ? measured_misses / model_misses_today : 1.0,
									 ratios, &error) != CACHECTL_OK)
		cachectl_raise_core_error(&error);
	for (int i = 0; i < ADVICE_GRID_SIZES; i++)
		curve->hits[i] = ratios[i] * measured_accesses;
}

typedef enum SizeBasis
{
	SIZE_MEASURED,
	SIZE_SIMULATED,
	SIZE_INTERPOLATED,
	SIZE_BEYOND
} SizeBasis;

/* Predicted hits at a size ratio: on the grid, between two points in log size, or beyond (NaN). */
static double
hits_at(const AnchoredCurve *curve, double ratio, SizeBasis *basis)
{
	for (int i = 0; i < ADVICE_GRID_SIZES; i++)
	{
		if (fabs(ratio - advice_grid_ratios[i]) < 1e-9)
		{
			*basis = i == TODAY_INDEX ? SIZE_MEASURED : SIZE_SIMULATED;
			return curve->hits[i];
		}
		if (i > 0 && advice_grid_ratios[i - 1] < ratio && ratio < advice_grid_ratios[i])
		{
			double		low = log2(advice_grid_ratios[i - 1]);
			double		at = (log2(ratio) - low) / (log2(advice_grid_ratios[i]) - low);

			*basis = SIZE_INTERPOLATED;
			return curve->hits[i - 1] + at * (curve->hits[i] - curve->hits[i - 1]);
		}
	}
	*basis = SIZE_BEYOND;
	return NAN;
}

static const char *
size_basis_words(SizeBasis basis)
{
	switch (basis)
	{
		case SIZE_MEASURED:
			return "measured";
		case SIZE_SIMULATED:
			return "simulated";
		case SIZE_INTERPOLATED:
			return "interpolated";
		case SIZE_BEYOND:
			return "beyond the simulated sizes (1/8x to 8x)";
	}
	return "";
}

/* The notes every row of a call shares. */
static void
append_window_notes(StringInfo basis, const AdviceCopy *copy, bool reads_used)
{
	appendStringInfo(basis, "; window started: %s", copy->report.window_reason);
	if (copy->seconds < SHORT_WINDOW_SECONDS)
		appendStringInfo(basis, "; short window (under %d s)", SHORT_WINDOW_SECONDS);
	if (copy->report.sampled_blocks < FEW_SAMPLED_BLOCKS)
		appendStringInfo(basis, "; few sampled blocks (" INT64_FORMAT ")", copy->report.sampled_blocks);
	if (RecoveryInProgress())
		appendStringInfoString(basis, "; standby: replay shares the pool");
#if PG_VERSION_NUM < 160000
	appendStringInfoString(basis, "; 15: ring reads not told apart");
#endif
	if (!reads_used)
		appendStringInfoString(basis, "; device reads need cachectl.track_reads on since the window started");
	if (!cachectl_track_advice_setting)
		appendStringInfoString(basis, "; cachectl.track_advice is off: the last window's curve");
}

/* track_reads' counts of one relation over the window. */
typedef struct RelationWindowReads
{
	Oid			database;
	Oid			relation;
	double		device;
	double		reads;
	double		unsplit;		/* reads whose source is not known (io_method = worker) */
	double		hits;
} RelationWindowReads;

/* track_reads over the window, sorted by (database, relation); NULL when not known. */
typedef struct WindowReads
{
	RelationWindowReads *relations;
	int			count;
	double		device;			/* every relation's */
	double		reads;
	double		unsplit;
} WindowReads;

/*
 * The device reads of a window's reads: those counted, scaled up by the
 * reads whose source is not known (18's io_method = worker reads in other
 * processes); NAN when no read's source is known.
 */
static double
device_reads_of(double device, double reads, double unsplit)
{
	double		split = reads - unsplit;

	if (reads <= 0)
		return 0;
	return split > 0 ? device * reads / split : NAN;
}

static int
by_relation(const void *a, const void *b)
{
	const RelationWindowReads *left = a;
	const RelationWindowReads *right = b;

	return compare_relation_keys(left->database, left->relation, right->database, right->relation);
}

/* One bsearch per relation, not a scan of every baseline (5,000 by default). */
static const AdviceReadsBaseline *
baseline_of(const AdviceCopy *copy, Oid database, Oid relation)
{
	AdviceReadsBaseline key = {.database = database,.relation = relation};

	return bsearch(&key, copy->baselines, copy->baseline_count, sizeof(AdviceReadsBaseline), by_baseline_key);
}

/*
 * track_reads' counts since the window started (its baseline subtracted);
 * NULL when it was not taken or the counters were reset since.
 */
static WindowReads *
window_reads_take(const AdviceCopy *copy)
{
	RelationReadsEntry overflow;
	RelationReadsEntry *entries;
	int			count = 0;
	TimestampTz reset_at = 0;
	WindowReads *window;

	if (!copy->report.reads_baseline_taken || !relation_reads_available())
		return NULL;
	entries = relation_reads_copy(&count, &overflow, &reset_at);
	if (reset_at != copy->report.reads_reset_at)
		return NULL;
	window = palloc0(sizeof(WindowReads));
	window->relations = palloc0(Max(count, 1) * sizeof(RelationWindowReads));
	for (int i = 0; i < count; i++)
	{
		const RelationReadsEntry *entry = &entries[i];
		const AdviceReadsBaseline *base = baseline_of(copy, entry->key.database, entry->key.relation);
		RelationWindowReads *delta = &window->relations[window->count++];

		delta->database = entry->key.database;
		delta->relation = entry->key.relation;
		delta->device = Max(0, entry->reads.device_read_blocks - (base ? base->device_read_blocks : 0));
		delta->reads = Max(0, entry->reads.read_blocks - (base ? base->read_blocks : 0));
		delta->unsplit = Max(0, entry->reads.unsplit_read_blocks - (base ? base->unsplit_read_blocks : 0));
		delta->hits = Max(0, entry->shared_hit_blocks - (base ? base->shared_hit_blocks : 0));
		window->device += delta->device;
		window->reads += delta->reads;
		window->unsplit += delta->unsplit;
	}
	qsort(window->relations, window->count, sizeof(RelationWindowReads), by_relation);
	pfree(entries);
	return window;
}

static const RelationWindowReads *
window_reads_of(const WindowReads *window, Oid database, Oid relation)
{
	RelationWindowReads key = {database, relation, 0, 0, 0, 0};

	if (window == NULL)
		return NULL;
	return bsearch(&key, window->relations, window->count, sizeof(RelationWindowReads), by_relation);
}

/* The sizes asked: NULL gives the five defaults; checked before anything is read. */
static double *
sizes_asked(FunctionCallInfo fcinfo, int *count)
{
	ArrayType  *array;
	Datum	   *elements;
	bool	   *nulls;
	int			n;
	double	   *ratios;
	double		today_bytes = (double) NBuffers * BLCKSZ;

	if (PG_ARGISNULL(0))
	{
		ratios = palloc(sizeof(default_ratios));
		memcpy(ratios, default_ratios, sizeof(default_ratios));
		*count = DEFAULT_SIZE_COUNT;
		return ratios;
	}
	array = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sizes of shared_buffers_advice() must be a one-dimensional array")));
	deconstruct_array(array, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elements, &nulls, &n);
	ratios = palloc(Max(n, 1) * sizeof(double));
	for (int i = 0; i < n; i++)
	{
		int64		bytes;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sizes of shared_buffers_advice() must not contain null")));
		bytes = DatumGetInt64(elements[i]);
		if (bytes < (int64) SMALLEST_POOL_BUFFERS * BLCKSZ || bytes > LARGEST_POOL_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("size " INT64_FORMAT " of shared_buffers_advice() is out of range", bytes),
					 errdetail("A pool size is in bytes, from %d (%d buffers, the least shared_buffers takes) to 2^40.",
							   SMALLEST_POOL_BUFFERS * BLCKSZ, SMALLEST_POOL_BUFFERS)));
		/* whole buffers, as the server would size it */
		ratios[i] = (double) (bytes / BLCKSZ) * BLCKSZ / today_bytes;
	}
	*count = n;
	return ratios;
}

Datum
pg_cachectl_shared_buffers_advice(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			size_count;
	double	   *ratios = sizes_asked(fcinfo, &size_count);
	AdviceCopy	copy;
	AnchoredCurve curve;
	WindowReads *reads;
	double		measured_misses;

	copy_publication(&copy, false);
	InitMaterializedSRF(fcinfo, 0);
	anchor_curve(copy.report.accesses, copy.report.hits, copy.report.measured_hits,
				 copy.report.measured_accesses, &curve);
	reads = window_reads_take(&copy);
	measured_misses = copy.report.measured_accesses - copy.report.measured_hits;

	for (int i = 0; i < size_count; i++)
	{
		Datum		values[7];
		bool		nulls[7] = {false};
		SizeBasis	size_basis;
		double		hits = curve.known ? hits_at(&curve, ratios[i], &size_basis) : NAN;
		StringInfoData basis;

		if (!curve.known)
			size_basis = fabs(ratios[i] - 1.0) < 1e-9 ? SIZE_MEASURED : SIZE_SIMULATED;
		values[0] = Int64GetDatum((int64) llround(ratios[i] * NBuffers) * BLCKSZ);
		values[1] = Float8GetDatum(ratios[i]);
		nulls[2] = nulls[3] = nulls[4] = isnan(hits);
		if (!isnan(hits))
		{
			double		misses = curve.accesses - hits;

			/* the device's share of the misses as measured at today's size */
			double		device = reads ? device_reads_of(reads->device, reads->reads, reads->unsplit) : NAN;

			values[2] = Float8GetDatum(hits / curve.accesses);
			values[3] = Float8GetDatum(copy.seconds > 0 ? misses / copy.seconds : 0);
			nulls[4] = isnan(device) || copy.seconds <= 0;
			if (!nulls[4])
				values[4] = Float8GetDatum(measured_misses > 0 ?
										   device * (misses / measured_misses) / copy.seconds : 0);
		}
		values[5] = Float8GetDatum(copy.seconds);
		initStringInfo(&basis);
		appendStringInfoString(&basis, curve.known ? size_basis_words(size_basis) : "nothing read in the window");
		append_window_notes(&basis, &copy, reads != NULL);
		values[6] = CStringGetTextDatum(basis.data);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* One relation of this database as relation_advice ranks it. */
typedef struct RankedRelation
{
	Oid			relid;			/* InvalidOid: the relations rewritten or dropped */
	char		relkind;
	double		accesses[ADVICE_GRID_SIZES];
	double		hits[ADVICE_GRID_SIZES];
	AnchoredCurve curve;
	bool		anchored_by_reads;
	double		device;			/* track_reads' device reads in the window; NAN: not known */
	double		saved_at_2x;
} RankedRelation;

static int
by_gain(const void *a, const void *b)
{
	const RankedRelation *left = a;
	const RankedRelation *right = b;

	return left->saved_at_2x < right->saved_at_2x ? 1 : (left->saved_at_2x > right->saved_at_2x ? -1 : 0);
}

/* The relation a published curve is of, in this database; InvalidOid when its file no longer maps. */
static Oid
curve_relation(const AdviceRelationCurve *curve)
{
	Oid			tablespace = curve->tablespace;

	if (curve->database == InvalidOid)
		tablespace = GLOBALTABLESPACE_OID;
	else if (tablespace == MyDatabaseTableSpace)
		tablespace = InvalidOid;	/* pg_class names the default one 0 */
	return CACHECTL_RELID_BY_FILE_NUMBER(tablespace, curve->file_number);
}

/* The kernel's recently evicted pages of a relation as 8 kB blocks, or -1 when it cannot tell. */
static int64
recently_evicted_blocks(Oid relid, double *non_resident_blocks)
{
	cachectl_residency_report *report;
	cachectl_residency_counts total;
	int64		pages = 0;
	int64		missing = 0;
	int			pages_per_block = BLCKSZ / (int) sysconf(_SC_PAGESIZE);

	*non_resident_blocks = 0;
	if (!ConditionalLockRelationOid(relid, AccessShareLock))
		return -1;
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		UnlockRelationOid(relid, AccessShareLock);
		return -1;
	}
	report = os_residency_report_create(CurrentMemoryContext);
	os_residency_scan_relation(report, relid, InvalidForkNumber);
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		if (!os_residency_fork_total(report, fork, &total))
			continue;
		if (!total.has_cachestat_counters)
		{
			UnlockRelationOid(relid, AccessShareLock);
			return -1;
		}
		pages += total.os_recently_evicted_pages;
		missing += total.size_pages - total.os_pages;
	}
	UnlockRelationOid(relid, AccessShareLock);
	*non_resident_blocks = (double) missing / Max(pages_per_block, 1);
	return pages / Max(pages_per_block, 1);
}

Datum
pg_cachectl_relation_advice(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		n;
	AdviceCopy	copy;
	RankedRelation *ranked;
	int			ranked_count = 0;
	RankedRelation *gone = NULL;
	double		global_scale;
	bool		every = may_report_every_relation();
	WindowReads *reads;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("n of relation_advice() must not be null")));
	n = PG_GETARG_INT32(0);
	if (n < 1 || n > RELATION_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 1 and %d relations", RELATION_LIMIT)));
	copy_publication(&copy, true);
	InitMaterializedSRF(fcinfo, 0);
	reads = window_reads_take(&copy);
	{
		double		model_misses = copy.report.accesses[TODAY_INDEX] - copy.report.hits[TODAY_INDEX];
		double		measured_misses = copy.report.measured_accesses - copy.report.measured_hits;

		global_scale = model_misses > 0 ? measured_misses / model_misses : 1.0;
	}

	ranked = palloc0((copy.report.relation_count + 1) * sizeof(RankedRelation));
	for (int i = 0; i < copy.report.relation_count; i++)
	{
		const AdviceRelationCurve *published = &copy.relations[i];
		RankedRelation *relation;
		Oid			relid;
		char		relkind;

		if (published->database != MyDatabaseId && published->database != InvalidOid)
			continue;
		relid = curve_relation(published);
		relkind = OidIsValid(relid) ? get_rel_relkind(relid) : '\0';
		if (OidIsValid(relid) && relkind == '\0')
			relid = InvalidOid; /* dropped since */
		if (OidIsValid(relid) && !every && !relation_guard_readable(relid, relkind, NULL))
			continue;
		if (!OidIsValid(relid))
		{
			if (gone == NULL)
			{
				gone = &ranked[ranked_count++];
				gone->relid = InvalidOid;
			}
			relation = gone;
		}
		else
		{
			relation = &ranked[ranked_count++];
			relation->relid = relid;
			relation->relkind = relkind;
		}
		for (int size = 0; size < ADVICE_GRID_SIZES; size++)
		{
			relation->accesses[size] += published->accesses[size];
			relation->hits[size] += published->hits[size];
		}
	}
	for (int i = 0; i < ranked_count; i++)
	{
		RankedRelation *relation = &ranked[i];
		const RelationWindowReads *counted = OidIsValid(relation->relid) ?
			window_reads_of(reads, MyDatabaseId, relation->relid) : NULL;
		SizeBasis	unused;

		/* track_reads counts a relation under the database that read it */
		relation->anchored_by_reads = counted != NULL && counted->reads + counted->hits > 0;
		if (relation->anchored_by_reads)
		{
			relation->device = device_reads_of(counted->device, counted->reads, counted->unsplit);
			anchor_curve(relation->accesses, relation->hits, counted->hits, counted->hits + counted->reads,
						 &relation->curve);
		}
		else
			anchor_curve(relation->accesses, relation->hits, global_scale * relation->hits[TODAY_INDEX],
						 global_scale * relation->accesses[TODAY_INDEX], &relation->curve);
		relation->saved_at_2x = relation->curve.known ?
			hits_at(&relation->curve, 2.0, &unused) - hits_at(&relation->curve, 1.0, &unused) : 0;
	}
	qsort(ranked, ranked_count, sizeof(RankedRelation), by_gain);

	for (int i = 0; i < ranked_count && i < n; i++)
	{
		RankedRelation *relation = &ranked[i];
		double		non_resident = 0;
		int64		evicted = OidIsValid(relation->relid) ? recently_evicted_blocks(relation->relid, &non_resident) : -1;
		double		today_misses = relation->curve.known ? relation->curve.accesses - relation->curve.hits[TODAY_INDEX] : 0;

		for (int size = 0; size < DEFAULT_SIZE_COUNT; size++)
		{
			Datum		values[12];
			bool		nulls[12] = {false};
			SizeBasis	size_basis;
			double		hits = relation->curve.known ? hits_at(&relation->curve, default_ratios[size], &size_basis) : NAN;
			StringInfoData basis;

			if (!relation->curve.known)
				size_basis = SIZE_SIMULATED;
			nulls[0] = !OidIsValid(relation->relid);
			values[0] = ObjectIdGetDatum(relation->relid);
			values[1] = CStringGetTextDatum(OidIsValid(relation->relid) ?
											relation_reads_kind_name(relation->relkind) : "rewritten or dropped");
			values[2] = Int64GetDatum((int64) llround(default_ratios[size] * NBuffers) * BLCKSZ);
			values[3] = Float8GetDatum(default_ratios[size]);
			nulls[4] = nulls[5] = nulls[6] = isnan(hits) || copy.seconds <= 0;
			if (!nulls[4])
			{
				double		misses = relation->curve.accesses - hits;

				values[4] = Float8GetDatum(hits / relation->curve.accesses);
				values[5] = Float8GetDatum(misses / copy.seconds);
				values[6] = Float8GetDatum((today_misses - misses) / copy.seconds);
			}
			nulls[7] = nulls[8] = !relation->anchored_by_reads || nulls[4] || isnan(relation->device);
			if (!nulls[7])
			{
				double		misses = relation->curve.accesses - hits;
				double		device = today_misses > 0 ? relation->device * misses / today_misses : 0;

				values[7] = Float8GetDatum(device / copy.seconds);
				/* of those, the share the kernel had cached and let go */
				nulls[8] = evicted < 0;
				if (!nulls[8])
					values[8] = Float8GetDatum(non_resident > 0 ?
											   device * Min(1.0, evicted / non_resident) / copy.seconds : 0);
			}
			nulls[9] = evicted < 0;
			values[9] = Int64GetDatum(evicted);
			values[10] = Float8GetDatum(copy.seconds);
			initStringInfo(&basis);
			appendStringInfoString(&basis, relation->curve.known ? size_basis_words(size_basis) : "nothing read in the window");
			if (!relation->anchored_by_reads)
				appendStringInfoString(&basis, "; sample only (no track_reads counts of it in the window)");
			append_window_notes(&basis, &copy, reads != NULL);
			values[11] = CStringGetTextDatum(basis.data);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}

static const char *
state_name(AdviceSamplerState state)
{
	switch (state)
	{
		case ADVICE_NOT_STARTED:
			return "not started";
		case ADVICE_OFF:
			return "off";
		case ADVICE_SAMPLING:
			return "sampling";
		case ADVICE_FAILED:
			return "failed";
	}
	return "unknown";
}

Datum
pg_cachectl_advice_status(PG_FUNCTION_ARGS)
{
	TupleDesc	descriptor;
	AdviceReport report;
	Datum		values[14];
	bool		nulls[14] = {false};
	double		seconds;

	if (get_call_result_type(fcinfo, NULL, &descriptor) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "advice_status() must return a record");
	require_preloaded();
	LWLockAcquire(advice_shared->lock, LW_SHARED);
	report = advice_shared->report;
	LWLockRelease(advice_shared->lock);
	seconds = report.window_started == 0 ? 0 :
		(double) (report.published_at - report.window_started) / USECS_PER_SEC;

	values[0] = CStringGetTextDatum(state_name(report.state));
	nulls[1] = report.sampler_pid == 0;
	values[1] = Int32GetDatum(report.sampler_pid);
	nulls[2] = nulls[3] = nulls[4] = report.window_started == 0;
	values[2] = TimestampTzGetDatum(report.window_started);
	values[3] = CStringGetTextDatum(report.window_reason);
	values[4] = Float8GetDatum(seconds);
	values[5] = Float8GetDatum(report.sample_rate);
	values[6] = Int64GetDatum(report.sampled_blocks);
	values[7] = Int64GetDatum(report.followed_buffers);
	values[8] = Float8GetDatum(report.round_interval_ms);
	values[9] = Int64GetDatum(report.told_accesses);
	values[10] = Float8GetDatum(report.cpu_seconds);
	values[11] = Int64GetDatum(report.memory_bytes);
	nulls[12] = nulls[13] = report.last_error_at == 0;
	values[12] = CStringGetTextDatum(report.last_error);
	values[13] = TimestampTzGetDatum(report.last_error_at);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(descriptor, values, nulls)));
}

Datum
pg_cachectl_reset_advice(PG_FUNCTION_ARGS)
{
	require_preloaded();
	PG_RETURN_TIMESTAMPTZ(advice_request_reset());
}
