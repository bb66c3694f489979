/*
 * call_arguments.c — reading the arguments SQL functions share (see
 * call_arguments.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/relpath.h"
#include "utils/builtins.h"

#include <math.h>

#include "api/call_arguments.h"

#include "pg_cachectl/block_maps.h"

int
fork_argument(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		return InvalidForkNumber;
	return forkname_to_number(text_to_cstring(PG_GETARG_TEXT_PP(argno)));
}

bool
fork_wanted(int only_fork, int fork)
{
	return only_fork == InvalidForkNumber || only_fork == fork;
}

void
require_one_fork_for_range(int only_fork, const char *function)
{
	if (only_fork != InvalidForkNumber)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("a block range of %s() is of one fork: fork must not be null", function),
			 errhint("Name the fork, e.g. fork => 'main' for the relation's data.")));
}

/*
 * max_mb_per_sec in bytes per second, the unit of every throttle.  Zero,
 * negative, NaN, infinity and rates whose byte count overflows: 22023.  The
 * one check of a rate, for every function that takes one (rate_argument).
 */
static double
rate_bytes_per_second(double max_mb_per_sec)
{
	double		bytes_per_second = max_mb_per_sec * 1024.0 * 1024.0;

	if (isnan(max_mb_per_sec) || isinf(max_mb_per_sec) || max_mb_per_sec <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_mb_per_sec must be a positive finite number"),
				 errhint("Pass NULL for no limit.")));
	/* the throttle counts bytes: a rate finite in MB/s can overflow there */
	if (isinf(bytes_per_second))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_mb_per_sec %g is too large", max_mb_per_sec),
				 errdetail("The rate must be finite in bytes per second."),
				 errhint("Pass NULL for no limit.")));
	return bytes_per_second;
}

PrewarmTarget
target_argument(FunctionCallInfo fcinfo, int argno)
{
	char	   *target = text_to_cstring(PG_GETARG_TEXT_PP(argno));

	if (strcmp(target, "os") == 0)
		return PREWARM_OS;
	if (strcmp(target, "shared") == 0)
		return PREWARM_SHARED;
	if (strcmp(target, "both") == 0)
		return PREWARM_BOTH;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid target \"%s\"", target),
			 errhint("The target is \"os\", \"shared\" or \"both\".")));
	pg_unreachable();
}

double
rate_argument(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		return 0;
	return rate_bytes_per_second(PG_GETARG_FLOAT8(argno));
}

BlockRangeArgument
block_range_argument(FunctionCallInfo fcinfo, int first_argno, int last_argno)
{
	BlockRangeArgument range = {false, 0, -1};

	range.given = !PG_ARGISNULL(first_argno) || !PG_ARGISNULL(last_argno);
	if (!PG_ARGISNULL(first_argno))
		range.first = PG_GETARG_INT64(first_argno);
	if (!PG_ARGISNULL(last_argno))
	{
		range.last = PG_GETARG_INT64(last_argno);
		if (range.last < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("block numbers must not be negative")));
	}
	if (range.first < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block numbers must not be negative")));
	if (!PG_ARGISNULL(last_argno) && range.last < range.first)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("last_block " INT64_FORMAT " comes before first_block " INT64_FORMAT,
						range.last, range.first)));
	return range;
}

cachectl_block_range
block_range_in_fork(const BlockRangeArgument *range, int64 blocks, const char *relation_name,
					const char *fork_name)
{
	cachectl_block_range within;

	blocks = Max(blocks, 0);
	if (range->given && range->first >= blocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("first_block " INT64_FORMAT " is past the end of fork %s of \"%s\"",
						range->first, fork_name, relation_name),
				 errdetail("The fork has " INT64_FORMAT " blocks.", blocks)));
	if (range->given && range->last >= blocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("last_block " INT64_FORMAT " is past the end of fork %s of \"%s\"",
						range->last, fork_name, relation_name),
				 errdetail("The fork has " INT64_FORMAT " blocks.", blocks)));
	within.first = range->first;
	within.count = Max((range->last < 0 ? blocks - 1 : range->last) - range->first + 1, 0);
	return within;
}

size_t
drawing_room(int32 width)
{
	if (width < 1 || width > 10000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be between 1 and 10000 characters")));
	return (size_t) width + CACHECTL_DRAWING_EXTRA;
}

Oid *
relation_list_argument(ArrayType *array, int *count)
{
	Datum	   *elements;
	bool	   *element_nulls;
	Oid		   *relids;
	int			kept;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("the relation list must be a one-dimensional array")));
	deconstruct_array(array, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elements, &element_nulls, count);
	relids = palloc(sizeof(Oid) * Max(*count, 1));
	kept = 0;
	for (int i = 0; i < *count; i++)
	{
		/*
		 * the NULL rule, per element: a NULL names nothing (a cron job's
		 * to_regclass() of a table not created yet), as evict(NULL) does
		 */
		if (!element_nulls[i])
			relids[kept++] = DatumGetObjectId(elements[i]);
	}
	*count = kept;
	pfree(elements);
	pfree(element_nulls);
	return relids;
}
