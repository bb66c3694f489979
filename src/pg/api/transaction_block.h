/*
 * transaction_block.h — a procedure that commits as it goes says at once,
 * with a hint, that it cannot run inside a transaction block or a function
 * (SQLSTATE 25001), instead of failing at its first COMMIT.
 */
#ifndef PG_CACHECTL_TRANSACTION_BLOCK_H
#define PG_CACHECTL_TRANSACTION_BLOCK_H

#include "fmgr.h"

/* 25001, as caller: in_block says whether in a transaction block or a function. */
extern void refuse_transaction_block(const char *caller, bool in_block);

/* 25001 unless the CALL may commit (a CALL of its own, not atomic). */
extern void require_own_transaction(FunctionCallInfo fcinfo, const char *caller);

#endif							/* PG_CACHECTL_TRANSACTION_BLOCK_H */
