/*
 * internal_entry.c — the privilege check of the internal helpers
 * (internal_entry.h).
 */
#include "postgres.h"

#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/fmgrprotos.h"

#include "api/internal_entry.h"
#include "api/version_compat.h"

/* Signatures with every type qualified: resolved whatever the search path. */
static const char *const entry_signatures[] = {
	[INTERNAL_FOR_SNAPSHOT] = "cachectl.snapshot(pg_catalog.text, pg_catalog.regclass[], pg_catalog.bool)",
	[INTERNAL_FOR_RESTORE] = "cachectl.restore(pg_catalog.text, pg_catalog.text, pg_catalog.float8, "
	"pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, "
	"pg_catalog.float8, pg_catalog.text)",
};

/* As docs/REFERENCE.md prints them, for the hint (each name has one signature). */
static const char *const entry_grants[] = {
	[INTERNAL_FOR_SNAPSHOT] = "GRANT EXECUTE ON FUNCTION cachectl.snapshot",
	[INTERNAL_FOR_RESTORE] = "GRANT EXECUTE ON PROCEDURE cachectl.restore",
};

void
require_entry_point_privilege(InternalEntryPoint entry, const char *helper)
{
	/* raises 42883 if the extension lost it (it is a member: it cannot) */
	Oid			entry_oid = DatumGetObjectId(DirectFunctionCall1(regprocedurein,
																 CStringGetDatum(entry_signatures[entry])));

	if (CACHECTL_FUNCTION_ACLCHECK(entry_oid, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for %s", helper),
			 errdetail("It is internal to %s, and runs only for roles that may execute that.",
					   entry == INTERNAL_FOR_SNAPSHOT ? "cachectl.snapshot()" : "cachectl.restore()"),
			 errhint("%s TO the role.", entry_grants[entry])));
}
