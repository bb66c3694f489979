/*
 * user_errors.c — cachectl_internal.raise_for_user(): an ERROR that the
 * PL/pgSQL of snapshot() raises about the caller's arguments, without the
 * CONTEXT lines PL/pgSQL adds to its own RAISE (the function's name and
 * line, the statement): the user reads one message, as from a C function.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(pg_cachectl_raise_for_user);

/* raise_for_user(sqlstate text, message text, hint text DEFAULT NULL, detail text DEFAULT NULL) */
Datum
pg_cachectl_raise_for_user(PG_FUNCTION_ARGS)
{
	char	   *sqlstate;
	char	   *message;
	char	   *hint = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *detail = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		elog(ERROR, "raise_for_user needs a SQLSTATE and a message");
	sqlstate = text_to_cstring(PG_GETARG_TEXT_PP(0));
	message = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strlen(sqlstate) != 5)
		elog(ERROR, "invalid SQLSTATE \"%s\"", sqlstate);

	error_context_stack = NULL;	/* error recovery resets it */
	ereport(ERROR,
			(errcode(MAKE_SQLSTATE(sqlstate[0], sqlstate[1], sqlstate[2], sqlstate[3], sqlstate[4])),
			 errmsg_internal("%s", message),
			 detail ? errdetail_internal("%s", detail) : 0,
			 hint ? errhint("%s", hint) : 0));
	PG_RETURN_VOID();			/* not reached */
}
