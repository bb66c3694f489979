/*
 * snapshot_match.c — the one rule that says which relation a snapshot row
 * names here: by OID where this cluster (or its primary: a physical standby
 * has the same system identifier) recorded it and that OID still exists,
 * else by the name it had (a restored dump, a logical replica, or a relation
 * dropped and made again).  An OID means something only in the cluster that
 * recorded it.  The row-security policy of cachectl.snapshot finds a row's
 * guard with it, and restore_plan() the relation to load.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "api/api.h"
#include "snapshots/snapshots.h"

PG_FUNCTION_INFO_V1(pg_cachectl_snapshot_row_relation);

/* Whether a row's system identifier is this cluster's. */
static bool
recorded_here(text *system_identifier)
{
	return strcmp(text_to_cstring(system_identifier), text_to_cstring(cluster_system_identifier())) == 0;
}

/*
 * cachectl_internal.snapshot_row_relation(system_identifier text, relation oid,
 *                                         relation_name text) RETURNS regclass
 *
 * The relation a row names here, or NULL when there is none.
 */
Datum
pg_cachectl_snapshot_row_relation(PG_FUNCTION_ARGS)
{
	Oid			relation = PG_GETARG_OID(1);
	LOCAL_FCINFO(by_name, 1);
	Datum		found;

	if (recorded_here(PG_GETARG_TEXT_PP(0)) && SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relation)))
		PG_RETURN_OID(relation);
	/* to_regclass(), called so that its NULL (no such relation) comes back */
	InitFunctionCallInfoData(*by_name, NULL, 1, InvalidOid, NULL, NULL);
	by_name->args[0].value = PointerGetDatum(PG_GETARG_TEXT_PP(2));
	by_name->args[0].isnull = false;
	found = to_regclass(by_name);
	if (by_name->isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(found);
}
