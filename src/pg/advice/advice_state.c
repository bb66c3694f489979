/*
 * advice_state.c — the sizing advice's shared memory: requested at server
 * start (shmem_request_hook), made or found by each process that attaches
 * (shmem_startup_hook).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "advice/advice_state.h"
#include "reads/relation_reads.h"

#define TRANCHE_NAME "pg_cachectl advice"

const double advice_grid_ratios[ADVICE_GRID_SIZES] = {
	0.125, 0.17677669529663687, 0.25, 0.35355339059327373, 0.5, 0.7071067811865476, 1.0,
	1.4142135623730951, 2.0, 2.8284271247461903, 4.0, 5.656854249492381, 8.0
};

AdviceShared *advice_shared = NULL;

static shmem_request_hook_type previous_request_hook = NULL;
static shmem_startup_hook_type previous_startup_hook = NULL;

int
advice_baseline_capacity(void)
{
	/* one per relation track_reads can count apart */
	return cachectl_track_reads_max_relations_setting;
}

Size
advice_shared_size(void)
{
	return add_size(offsetof(AdviceShared, baselines),
					mul_size(advice_baseline_capacity(), sizeof(AdviceReadsBaseline)));
}

static void
request_memory(void)
{
	if (previous_request_hook)
		previous_request_hook();
	RequestAddinShmemSpace(MAXALIGN(advice_shared_size()));
	RequestNamedLWLockTranche(TRANCHE_NAME, 1);
}

static void
attach_memory(void)
{
	bool		found;

	if (previous_startup_hook)
		previous_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	advice_shared = ShmemInitStruct("pg_cachectl advice", advice_shared_size(), &found);
	if (!found)
	{
		memset(advice_shared, 0, offsetof(AdviceShared, baselines));
		advice_shared->lock = &(GetNamedLWLockTranche(TRANCHE_NAME))->lock;
		SpinLockInit(&advice_shared->mutex);
		advice_shared->sampler_pgprocno = -1;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
advice_state_request(void)
{
	previous_request_hook = shmem_request_hook;
	shmem_request_hook = request_memory;
	previous_startup_hook = shmem_startup_hook;
	shmem_startup_hook = attach_memory;
}

bool
advice_state_available(void)
{
	return advice_shared != NULL;
}

TimestampTz
advice_request_reset(void)
{
	int			pgprocno;
	/* read before the request: the window it starts never begins earlier */
	TimestampTz requested_at = GetCurrentTimestamp();

	SpinLockAcquire(&advice_shared->mutex);
	advice_shared->reset_requests++;
	pgprocno = advice_shared->sampler_pgprocno;
	SpinLockRelease(&advice_shared->mutex);
	if (pgprocno >= 0)
		SetLatch(&GetPGProcByNumber(pgprocno)->procLatch);
	return requested_at;
}

uint64
advice_reset_requests(void)
{
	uint64		requests;

	SpinLockAcquire(&advice_shared->mutex);
	requests = advice_shared->reset_requests;
	SpinLockRelease(&advice_shared->mutex);
	return requests;
}
