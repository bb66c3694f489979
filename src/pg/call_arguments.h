/*
 * call_arguments.h — the arguments every SQL function reads the same way:
 * forks, rate limits, block ranges, relation lists, and a relation named
 * alone for a per-fork result.  One place, so every function answers bad
 * input with the same SQLSTATE and words.
 */
#ifndef PG_CACHECTL_CALL_ARGUMENTS_H
#define PG_CACHECTL_CALL_ARGUMENTS_H

#include "fmgr.h"
#include "utils/array.h"

#include "pg_cachectl/bridge.h"

#include "relation_set.h"

/* A fork name; NULL is InvalidForkNumber (every fork).  Unknown names: 22023. */
extern int	fork_argument(FunctionCallInfo fcinfo, int argno);

/*
 * max_mb_per_sec in bytes per second, the unit of every throttle.  Zero,
 * negative, NaN, infinity and rates whose byte count overflows: 22023.  The
 * one check of a rate, for C and (through rate_bytes_per_second()) restore().
 */
extern double rate_bytes_per_second(double max_mb_per_sec);

/* The same for an argument; NULL is 0 (no limit). */
extern double rate_argument(FunctionCallInfo fcinfo, int argno);

/* first_block and last_block (inclusive), each NULL for "from the start" / "to the end". */
typedef struct BlockRangeArgument
{
	bool		given;			/* either bound was passed */
	int64		first;
	int64		last;			/* -1: to the end of the fork */
} BlockRangeArgument;

/* Reads and checks the bounds (negative, reversed: 22023). */
extern BlockRangeArgument block_range_argument(FunctionCallInfo fcinfo, int first_argno, int last_argno);

/*
 * The range within a fork of `blocks` blocks; a given range must lie inside
 * it (22023, naming the relation and fork).  count 0 for an empty fork.
 */
extern cachectl_block_range block_range_in_fork(const BlockRangeArgument *range, int64 blocks,
												const char *relation_name, const char *fork_name);

/* The elements of a regclass[] (one dimension, no NULL: 2202E, 22004). */
extern Oid *relation_list_argument(ArrayType *array, int *count);

/*
 * Checks that relid names one relation with storage, not a partitioned one
 * (42809: what works on one fork of one relation cannot stand for many),
 * then builds its set for `purpose` and locks it.  42P01 if it is gone.
 */
extern void lock_one_relation(Oid relid, const char *function, RelationSetPurpose purpose);

/* The 42809 check alone, for calls that expand a set only without a range. */
extern void require_unpartitioned(Oid relid, const char *function);

#endif							/* PG_CACHECTL_CALL_ARGUMENTS_H */
