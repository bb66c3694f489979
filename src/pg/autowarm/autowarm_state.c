/*
 * autowarm_state.c — the autowarm processes' shared memory: requested at
 * server start (shmem_request_hook), made or found by each process that
 * attaches (shmem_startup_hook).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"

#include "autowarm/autowarm_state.h"

AutowarmShared *autowarm_shared = NULL;

static shmem_request_hook_type previous_request_hook = NULL;
static shmem_startup_hook_type previous_startup_hook = NULL;

static void
request_autowarm_memory(void)
{
	if (previous_request_hook)
		previous_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(AutowarmShared)));
}

static void
attach_autowarm_memory(void)
{
	bool		found;

	if (previous_startup_hook)
		previous_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	autowarm_shared = ShmemInitStruct("pg_cachectl autowarm", sizeof(AutowarmShared), &found);
	if (!found)
	{
		memset(autowarm_shared, 0, sizeof(AutowarmShared));
		SpinLockInit(&autowarm_shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* From _PG_init, while shared_preload_libraries load. */
void
autowarm_state_request(void)
{
	previous_request_hook = shmem_request_hook;
	shmem_request_hook = request_autowarm_memory;
	previous_startup_hook = shmem_startup_hook;
	shmem_startup_hook = attach_autowarm_memory;
}

AutowarmDatabase *
autowarm_slot_find(Oid database)
{
	AutowarmDatabase *found = NULL;

	SpinLockAcquire(&autowarm_shared->mutex);
	for (int i = 0; i < AUTOWARM_MAX_DATABASES; i++)
		if (autowarm_shared->databases[i].in_use && autowarm_shared->databases[i].database == database)
			found = &autowarm_shared->databases[i];
	SpinLockRelease(&autowarm_shared->mutex);
	return found;
}

AutowarmDatabase *
autowarm_slot_for(Oid database, const char *name)
{
	AutowarmDatabase *slot = autowarm_slot_find(database);

	if (slot)
		return slot;
	SpinLockAcquire(&autowarm_shared->mutex);
	for (int i = 0; i < AUTOWARM_MAX_DATABASES && slot == NULL; i++)
	{
		if (autowarm_shared->databases[i].in_use)
			continue;
		slot = &autowarm_shared->databases[i];
		memset(slot, 0, sizeof(*slot));
		slot->in_use = true;
		slot->database = database;
		strlcpy(slot->database_name, name, NAMEDATALEN);
		slot->phase = AUTOWARM_STARTING;
	}
	SpinLockRelease(&autowarm_shared->mutex);
	return slot;
}

void
autowarm_slot_release(Oid database)
{
	SpinLockAcquire(&autowarm_shared->mutex);
	for (int i = 0; i < AUTOWARM_MAX_DATABASES; i++)
		if (autowarm_shared->databases[i].in_use && autowarm_shared->databases[i].database == database)
			autowarm_shared->databases[i].in_use = false;
	SpinLockRelease(&autowarm_shared->mutex);
}

void
autowarm_record_error(AutowarmDatabase *slot, const char *message)
{
	TimestampTz now = GetCurrentTimestamp();

	AUTOWARM_SHARED_UPDATE(slot->failures++;
					slot->last_error_at = now;
					strlcpy(slot->last_error, message, AUTOWARM_ERROR_LENGTH));
}

int
autowarm_ask_to_leave(Oid database)
{
	AutowarmDatabase *slot = autowarm_slot_find(database);
	int			pid = 0;
	PGPROC	   *proc;

	if (slot == NULL)
		return 0;
	AUTOWARM_SHARED_UPDATE(slot->leave_requested = true;
					pid = slot->pid);
	proc = pid != 0 ? BackendPidGetProc(pid) : NULL;
	if (proc != NULL)
		SetLatch(&proc->procLatch);
	return pid;
}

const char *
autowarm_phase_name(AutowarmPhase phase)
{
	switch (phase)
	{
		case AUTOWARM_STARTING:
			return "starting";
		case AUTOWARM_IDLE:
			return "idle";
		case AUTOWARM_RECORDING:
			return "recording";
		case AUTOWARM_LOADING:
			return "loading";
		case AUTOWARM_FOLLOWING:
			return "following";
		case AUTOWARM_DISABLED:
			return "disabled";
		case AUTOWARM_FAILED:
			return "failed";
	}
	return "unknown";
}
