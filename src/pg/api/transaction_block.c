/*
 * transaction_block.c — the procedures that commit as they go (CALL
 * cachectl.restore()) say at once, with a hint, that they cannot run inside
 * a transaction block or a function, instead of failing at their first
 * COMMIT with "invalid transaction termination".
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"

#include "api/transaction_block.h"

void
refuse_transaction_block(const char *caller, bool in_block)
{
	/*
	 * The message is for the user who typed the CALL: no CONTEXT lines of the
	 * procedure's internals (error recovery resets the context stack).
	 */
	error_context_stack = NULL;
	ereport(ERROR,
			(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
			 in_block ? errmsg("%s cannot run inside a transaction block", caller)
			 : errmsg("%s cannot run from a function", caller),
			 errdetail("It commits after each chunk it loads, so that it never holds a snapshot or the locks of the whole set for long."),
			 errhint("Run the CALL on its own, outside BEGIN ... COMMIT and outside a function.")));
}

void
require_own_transaction(FunctionCallInfo fcinfo, const char *caller)
{
	CallContext *call = fcinfo->context != NULL && IsA(fcinfo->context, CallContext)
		? (CallContext *) fcinfo->context : NULL;

	/* atomic: in a transaction block, or called from a function */
	if (call == NULL || call->atomic)
		refuse_transaction_block(caller, IsTransactionBlock());
}
