/*
 * null_arguments.h — the one NULL rule every SQL function follows (docs/REFERENCE.md,
 * "NULL arguments"):
 *
 *   - the subject of a call (the relation, the relation list, the buffer,
 *     the map) NULL: the call is about nothing — no rows, or a NULL result,
 *     as PostgreSQL's own functions answer pg_relation_size(NULL), so that a
 *     LEFT JOIN's NULL never fails a whole query;
 *   - any other argument NULL: what its default means when its default is
 *     NULL (fork: every fork; first_block / last_block: the fork's start /
 *     end; max_mb_per_sec: no limit); an argument whose default is not NULL
 *     (cascade, target, wait, width, ...) may not be NULL: 22004 naming it.
 *
 * A fork NULL where a call works on one fork (a block map, a block range)
 * is 22004 too, saying so: maps and ranges are of one fork.
 */
#ifndef PG_CACHECTL_NULL_ARGUMENTS_H
#define PG_CACHECTL_NULL_ARGUMENTS_H

#include "fmgr.h"

typedef enum NullRule
{
	NULL_IS_NOTHING,			/* the subject: NULL asks about nothing */
	NULL_IS_DEFAULT,			/* its default is NULL, and NULL means it */
	NULL_REFUSED,				/* its default is not NULL: 22004 */
	NULL_REFUSED_ONE_FORK		/* a fork where the call needs one: 22004 */
} NullRule;

typedef struct ArgumentNullRule
{
	const char *name;			/* as the SQL signature names it */
	NullRule	rule;
} ArgumentNullRule;

/*
 * Applies the rules to the call's arguments, in order (one per argument):
 * raises 22004 for a refused NULL, then returns true if a subject is NULL
 * (the caller returns no rows or NULL).  function names the call in errors.
 */
extern bool null_arguments_ask_nothing(FunctionCallInfo fcinfo, const char *function,
									   const ArgumentNullRule *rules, int count);

#endif							/* PG_CACHECTL_NULL_ARGUMENTS_H */
