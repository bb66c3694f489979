/*
 * block_runs.c — block runs between int8multirange and the core's ranges.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rangetypes.h"
#include "utils/typcache.h"

#include "block_runs.h"
#include "version_compat.h"

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

Datum
block_runs_to_multirange(const cachectl_block_range *runs, size_t count)
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
