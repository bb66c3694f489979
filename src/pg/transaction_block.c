/*
 * transaction_block.c — cachectl_internal.require_own_transaction(): the
 * procedures that commit as they go (CALL cachectl.restore()) say at once,
 * with a hint, that they cannot run inside a transaction block, instead of
 * failing at their first COMMIT with "invalid transaction termination".
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(pg_cachectl_require_own_transaction);

Datum
pg_cachectl_require_own_transaction(PG_FUNCTION_ARGS)
{
	const char *caller = PG_ARGISNULL(0) ? "this procedure" : text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (!IsTransactionBlock())
		PG_RETURN_VOID();
	/*
	 * The message is for the user who typed the CALL: no CONTEXT lines of the
	 * procedure's internals (error recovery resets the context stack).
	 */
	error_context_stack = NULL;
	ereport(ERROR,
			(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
			 errmsg("%s cannot run inside a transaction block", caller),
			 errdetail("It commits after each relation, so that it never holds a snapshot or the locks of the whole set for long."),
			 errhint("Run the CALL on its own, outside BEGIN ... COMMIT and outside a function.")));
	PG_RETURN_VOID();			/* not reached */
}
