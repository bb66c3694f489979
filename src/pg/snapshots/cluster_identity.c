/*
 * cluster_identity.c — which cluster recorded a snapshot's rows.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/builtins.h"

#include "api/api.h"
#include "snapshots/snapshots.h"

text *
cluster_system_identifier(void)
{
	char		identifier[32];

	snprintf(identifier, sizeof(identifier), UINT64_FORMAT, GetSystemIdentifier());
	return cstring_to_text(identifier);
}
