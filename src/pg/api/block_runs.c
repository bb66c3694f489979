/*
 * block_runs.c — block runs between int8multirange and the core's ranges.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rangetypes.h"
#include "utils/typcache.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"			/* the varlena macros moved there in 16 */
#endif

#include "api/block_runs.h"
#include "api/version_compat.h"

cachectl_block_range *
block_runs_from_multirange(const MultirangeType *runs, int64 limit, int *count)
{
	TypeCacheEntry *typcache = lookup_type_cache(MultirangeTypeGetOid(runs), TYPECACHE_MULTIRANGE_INFO);
	cachectl_block_range *ranges;
	int			kept = 0;

	/* sorted and disjoint: no more runs than half the blocks below the limit */
	ranges = MemoryContextAllocHuge(CurrentMemoryContext,
									sizeof(cachectl_block_range) * Max(Min((int64) runs->rangeCount, limit), 1));
	for (uint32 i = 0; i < runs->rangeCount; i++)
	{
		RangeBound	lower;
		RangeBound	upper;
		int64		first;
		int64		end;

		CHECK_FOR_INTERRUPTS();
		multirange_get_bounds(typcache->rngtype, runs, i, &lower, &upper);
		/* no block has a negative number; refusing them also keeps end - first from overflowing */
		if (!lower.infinite && DatumGetInt64(lower.val) < 0)
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("block runs must not hold negative block numbers"));
		first = lower.infinite ? 0 : DatumGetInt64(lower.val) + (lower.inclusive ? 0 : 1);
		if (first >= limit)
			break;				/* this run and all later ones lie past the limit */
		end = upper.infinite ? PG_INT64_MAX : DatumGetInt64(upper.val) + (upper.inclusive ? 1 : 0);
		ranges[kept].first = first;
		ranges[kept].count = Min(end, limit) - first;
		kept++;
	}
	*count = kept;
	return ranges;
}

/* The multirange of any runs, through make_multirange(): sorted and merged there. */
static Datum
multirange_made_by_postgres(const cachectl_block_range *runs, size_t count)
{
	TypeCacheEntry *typcache = lookup_type_cache(INT8RANGEOID, TYPECACHE_RANGE_INFO);
	RangeType **ranges = palloc(sizeof(RangeType *) * Max(count, 1));

	for (size_t i = 0; i < count; i++)
	{
		RangeBound	lower = {.val = Int64GetDatum(runs[i].first), .infinite = false, .inclusive = true, .lower = true};
		RangeBound	upper = {.val = Int64GetDatum(runs[i].first + runs[i].count), .infinite = false,
		.inclusive = false, .lower = false};

		ranges[i] = CACHECTL_MAKE_RANGE(typcache, &lower, &upper);
	}
	return MultirangeTypePGetDatum(make_multirange(INT8MULTIRANGEOID, typcache, (int32) count, ranges));
}

/*
 * How many ranges sorted runs make once runs that touch are merged (as a
 * multirange holds them), or -1 if they are not sorted (or one is empty).
 */
static int64
merged_run_count(const cachectl_block_range *runs, size_t count)
{
	int64		merged = 0;
	int64		end = -1;
	int64		previous_first = 0;

	for (size_t i = 0; i < count; i++)
	{
		if (runs[i].count <= 0 || runs[i].first < previous_first)
			return -1;
		if (merged == 0 || runs[i].first > end)
			merged++;
		end = Max(end, runs[i].first + runs[i].count);
		previous_first = runs[i].first;
	}
	return merged;
}

/*
 * The stored form of an int8multirange (multirangetypes.c describes it):
 * the header, then an item per range after the first (every fourth an
 * offset of its bounds with the high bit set, the others the length of the
 * range before it), a flags byte per range, then each range's two int8
 * bounds, the whole aligned for int8.  Each range is [first, end), as the
 * int8range type's canonical form has it.
 */
#define RUN_ITEM_OFFSET_STRIDE 4
#define RUN_ITEM_HAS_OFFSET 0x80000000
#define RUN_BOUNDS_SIZE (2 * sizeof(int64))

static Datum
multirange_written_here(const cachectl_block_range *runs, size_t count, int64 merged)
{
	Size		bounds_start = TYPEALIGN(ALIGNOF_DOUBLE, sizeof(MultirangeType) + (merged - 1) * sizeof(uint32) +
										 merged * sizeof(uint8));
	Size		size = bounds_start + merged * RUN_BOUNDS_SIZE;
	MultirangeType *multirange;
	uint32	   *items;
	uint8	   *flags;
	char	   *bounds;
	int64		written = -1;

	if (size > MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("too many block runs for one multirange: %lld", (long long) merged));
	/* zeroed: the padding is part of the value's bytes */
	multirange = palloc0(size);
	SET_VARSIZE(multirange, size);
	multirange->multirangetypid = INT8MULTIRANGEOID;
	multirange->rangeCount = (uint32) merged;
	items = (uint32 *) ((char *) multirange + sizeof(MultirangeType));
	flags = (uint8 *) (items + (merged - 1));
	bounds = (char *) multirange + bounds_start;
	for (size_t i = 0; i < count; i++)
	{
		int64		end = runs[i].first + runs[i].count;
		int64		last_end;

		/* a run touching the last one extends it */
		if (written >= 0)
		{
			memcpy(&last_end, bounds + written * RUN_BOUNDS_SIZE + sizeof(int64), sizeof(int64));
			if (runs[i].first <= last_end)
			{
				end = Max(end, last_end);
				memcpy(bounds + written * RUN_BOUNDS_SIZE + sizeof(int64), &end, sizeof(int64));
				continue;
			}
		}
		written++;
		if (written > 0)
			items[written - 1] = written % RUN_ITEM_OFFSET_STRIDE == 0 ?
				(uint32) (written * RUN_BOUNDS_SIZE) | RUN_ITEM_HAS_OFFSET : (uint32) RUN_BOUNDS_SIZE;
		flags[written] = RANGE_LB_INC;
		memcpy(bounds + written * RUN_BOUNDS_SIZE, &runs[i].first, sizeof(int64));
		memcpy(bounds + written * RUN_BOUNDS_SIZE + sizeof(int64), &end, sizeof(int64));
	}
	Assert(written + 1 == merged);
	return MultirangeTypePGetDatum(multirange);
}

Datum
block_runs_to_multirange(const cachectl_block_range *runs, size_t count)
{
	int64		merged = merged_run_count(runs, count);
	Datum		written;

	/*
	 * Sorted runs, as every caller has: written directly.  make_multirange()
	 * makes a range of each, canonicalizes it through the type's function,
	 * sorts and merges them: at 28,000 runs (a fragmented pool) that was most
	 * of a snapshot's CPU.
	 */
	if (merged <= 0)
		return multirange_made_by_postgres(runs, count);
	written = multirange_written_here(runs, count, merged);
#ifdef USE_ASSERT_CHECKING
	{
		/* assert builds check the bytes against PostgreSQL's own */
		MultirangeType *ours = DatumGetMultirangeTypeP(written);
		MultirangeType *theirs = DatumGetMultirangeTypeP(multirange_made_by_postgres(runs, count));

		Assert(VARSIZE(ours) == VARSIZE(theirs) && memcmp(ours, theirs, VARSIZE(ours)) == 0);
	}
#endif
	return written;
}

int64
block_runs_blocks(const cachectl_block_range *runs, size_t count)
{
	int64		blocks = 0;

	for (size_t i = 0; i < count; i++)
		blocks += runs[i].count;
	return blocks;
}

cachectl_block_range *
block_runs_intersect(const cachectl_block_range *left, size_t left_count,
					 const cachectl_block_range *right, size_t right_count, size_t *count)
{
	/* each output run ends where one of the inputs' runs ends */
	cachectl_block_range *both = palloc(sizeof(cachectl_block_range) * Max(left_count + right_count, 1));
	size_t		l = 0;
	size_t		r = 0;

	*count = 0;
	while (l < left_count && r < right_count)
	{
		int64		first = Max(left[l].first, right[r].first);
		int64		left_end = left[l].first + left[l].count;
		int64		right_end = right[r].first + right[r].count;
		int64		end = Min(left_end, right_end);

		if (first < end)
		{
			both[*count].first = first;
			both[*count].count = end - first;
			(*count)++;
		}
		if (left_end <= right_end)
			l++;
		else
			r++;
	}
	return both;
}
