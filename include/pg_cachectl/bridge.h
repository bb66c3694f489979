/*
 * bridge.h — the whole C ABI between the PostgreSQL shim (src/pg) and the
 * C++ core (src/core), one header per handle: include this, or only the
 * handle a file needs.
 */
#ifndef PG_CACHECTL_BRIDGE_H
#define PG_CACHECTL_BRIDGE_H

#include "pg_cachectl/bridge_common.h"
#include "pg_cachectl/block_maps.h"
#include "pg_cachectl/buffer_scan.h"
#include "pg_cachectl/os_jobs.h"
#include "pg_cachectl/residency.h"
#include "pg_cachectl/restore_plans.h"

#endif							/* PG_CACHECTL_BRIDGE_H */
