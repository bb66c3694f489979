/*
 * call_arguments.h — the arguments every SQL function reads the same way:
 * forks, targets, rate limits, block ranges and relation lists (a relation named
 * alone for a per-fork result is relation_set.h's lock_one_relation).  One place, so every function answers bad
 * input with the same SQLSTATE and words.
 */
#ifndef PG_CACHECTL_CALL_ARGUMENTS_H
#define PG_CACHECTL_CALL_ARGUMENTS_H

#include "fmgr.h"
#include "utils/array.h"

#include "pg_cachectl/bridge_common.h"

#include "both_layers/block_loader.h"

/* A fork name; NULL is InvalidForkNumber (every fork).  Unknown names: 22023. */
extern int	fork_argument(FunctionCallInfo fcinfo, int argno);

/* The forks a call works on: the one named, or all. */
extern bool fork_wanted(int only_fork, int fork);

/* A block range is of one fork: 22004 if the fork is every fork (NULL). */
extern void require_one_fork_for_range(int only_fork, const char *function);


/* The same for an argument; NULL is 0 (no limit). */
extern double rate_argument(FunctionCallInfo fcinfo, int argno);

/* The layer(s) to load: "os", "shared" or "both" (anything else: 22023). */
extern PrewarmTarget target_argument(FunctionCallInfo fcinfo, int argno);

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

/*
 * The bytes a drawing of `width` characters needs (legend and terminator
 * included); a width outside 1..10000: 22023.  draw() and os_draw().
 */
extern size_t drawing_room(int32 width);

/*
 * The elements of a regclass[]: one dimension (2202E otherwise); NULL
 * elements name nothing and are left out (the NULL rule, null_arguments.h).
 */
extern Oid *relation_list_argument(ArrayType *array, int *count);

#endif							/* PG_CACHECTL_CALL_ARGUMENTS_H */
