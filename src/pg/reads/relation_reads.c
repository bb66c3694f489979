/*
 * relation_reads.c — the shared table of cumulative reads per relation: its
 * settings, its memory (a hash bounded by
 * cachectl.track_reads_max_relations, requested at server start), adding a
 * query's counts to it, copying it out and resetting it.
 *
 * One LWLock guards the table's shape: exclusive to insert, fold or reset,
 * shared to read.  A relation that finds the table full is added to the
 * overflow counters, so the sum over the view stays every read counted.
 *
 * A query's counts do not go to the table: each backend adds them to slots
 * of its own in shared memory (BackendPending), which only it writes, so a
 * query takes no lock and writes no cache line another CPU writes.  (Two
 * backends adding every query to the same entries under the lock cost
 * pgbench -S 3.5-5.5 %: bench/README.md.)  A slot holds one relation for
 * the table's current generation, found by relation OID modulo the slots;
 * a relation the backend has not counted yet takes the lock once, to find
 * or make its entry and to fold into their entry the counts of the relation
 * that held the slot.  relation_reads_copy() adds the live slots to the
 * entries under the lock; a backend folds its slots when it exits.  A reset
 * changes the generation: the slots of an older one count for nothing.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "reads/relation_reads.h"

#define TRANCHE_NAME "pg_cachectl relation reads"

bool		cachectl_track_reads_setting = false;
int			cachectl_track_reads_max_relations_setting = 5000;

typedef struct RelationReadsShared
{
	LWLock	   *lock;
	slock_t		mutex;			/* guards overflow and reset_at */
	TimestampTz reset_at;
	pg_atomic_uint64 generation;	/* from 1; changed by each reset (under the exclusive lock) */
	RelationReadsEntry overflow;	/* the relations that found the table full */
} RelationReadsShared;

/* One relation's counts a backend has not folded into the table. */
#define PENDING_SLOTS 64
typedef struct PendingReads
{
	uint64		generation;		/* the table's generation it counts for; 0: empty */
	Oid			relation;
	RelationReadsEntry *entry;	/* its entry (NULL: the overflow), as long as the generation lasts */
	int64		shared_hit_blocks;
	cachectl_relation_reads reads;
} PendingReads;

/* A backend's slots, by relation OID modulo PENDING_SLOTS. */
typedef struct BackendPending
{
	uint32		changecount;	/* odd while its owner writes the slots */
	int			owner_pid;		/* 0: no backend (changed under the exclusive lock) */
	PendingReads slots[PENDING_SLOTS];
} BackendPending;

static RelationReadsShared *shared = NULL;
static HTAB *table = NULL;
static BackendPending *backends = NULL; /* MaxBackends of them */
static int	backend_count = 0;

/* This backend's slots, once adopted (NULL: not yet, or it has none). */
static BackendPending *my_pending = NULL;

static shmem_request_hook_type previous_request_hook = NULL;
static shmem_startup_hook_type previous_startup_hook = NULL;

static Size
backends_size(void)
{
	return mul_size(MaxBackends, sizeof(BackendPending));
}

static Size
table_size(void)
{
	return add_size(add_size(MAXALIGN(sizeof(RelationReadsShared)), MAXALIGN(backends_size())),
					hash_estimate_size(cachectl_track_reads_max_relations_setting, sizeof(RelationReadsEntry)));
}

static void
request_memory(void)
{
	if (previous_request_hook)
		previous_request_hook();
	RequestAddinShmemSpace(table_size());
	RequestNamedLWLockTranche(TRANCHE_NAME, 1);
}

static void
attach_memory(void)
{
	bool		found;
	HASHCTL		info;

	if (previous_startup_hook)
		previous_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("pg_cachectl relation reads", sizeof(RelationReadsShared), &found);
	if (!found)
	{
		memset(shared, 0, sizeof(*shared));
		shared->lock = &(GetNamedLWLockTranche(TRANCHE_NAME))->lock;
		SpinLockInit(&shared->mutex);
		SpinLockInit(&shared->overflow.mutex);
		shared->reset_at = GetCurrentTimestamp();
		pg_atomic_init_u64(&shared->generation, 1);
	}
	backends = ShmemInitStruct("pg_cachectl relation reads backends", backends_size(), &found);
	if (!found)
		memset(backends, 0, backends_size());
	backend_count = MaxBackends;
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(RelationReadsKey);
	info.entrysize = sizeof(RelationReadsEntry);
	/* 19 dropped the initial size: the table is made whole at once */
#if PG_VERSION_NUM >= 190000
	table = ShmemInitHash("pg_cachectl relation reads table",
						  cachectl_track_reads_max_relations_setting,
						  &info, HASH_ELEM | HASH_BLOBS);
#else
	table = ShmemInitHash("pg_cachectl relation reads table",
						  cachectl_track_reads_max_relations_setting,
						  cachectl_track_reads_max_relations_setting,
						  &info, HASH_ELEM | HASH_BLOBS);
#endif
	LWLockRelease(AddinShmemInitLock);
}

void
relation_reads_init(bool preloading)
{
	DefineCustomBoolVariable("cachectl.track_reads",
							 "Counts, per relation, where its reads came from: shared buffers, the OS page cache or the device.",
							 "Needs pg_cachectl in shared_preload_libraries; read in cachectl.relation_reads.",
							 &cachectl_track_reads_setting,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	/* a PGC_POSTMASTER setting exists only where it can take effect: at server start */
	if (!preloading)
		return;
	DefineCustomIntVariable("cachectl.track_reads_max_relations",
							"The most relations cachectl.relation_reads counts apart.",
							"The reads of relations beyond it are counted together, in one row.",
							&cachectl_track_reads_max_relations_setting,
							5000, 100, 1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);
	previous_request_hook = shmem_request_hook;
	shmem_request_hook = request_memory;
	previous_startup_hook = shmem_startup_hook;
	shmem_startup_hook = attach_memory;
}

bool
relation_reads_available(void)
{
	return shared != NULL && table != NULL;
}

static void
add_to_entry(RelationReadsEntry *entry, int64 shared_hit_blocks, const cachectl_relation_reads *reads)
{
	/* most queries read nothing from the kernel: their reads need no sum */
	bool		any_reads = reads->read_blocks != 0 || reads->device_read_bytes != 0;

	SpinLockAcquire(&entry->mutex);
	entry->shared_hit_blocks += shared_hit_blocks;
	if (any_reads)
		cachectl_relation_reads_add(&entry->reads, reads);
	SpinLockRelease(&entry->mutex);
}

/* A new entry's names, looked up before the lock is taken. */
typedef struct EntryNames
{
	const char *database;
	const char *schema;
	const char *relation;
	char		relkind;
} EntryNames;

/* Catalog lookups may fail: never under the lock. */
static EntryNames
names_of(Relation rel)
{
	EntryNames	names = {"", "", "", '\0'};
	const char *database = get_database_name(MyDatabaseId);

	if (database != NULL)
		names.database = database;
	if (rel != NULL)
	{
		const char *schema = get_namespace_name(RelationGetNamespace(rel));

		if (schema != NULL)
			names.schema = schema;
		names.relation = RelationGetRelationName(rel);
		names.relkind = rel->rd_rel->relkind;
	}
	return names;
}

static void
name_entry(RelationReadsEntry *entry, const EntryNames *names)
{
	strlcpy(entry->database_name, names->database, NAMEDATALEN);
	strlcpy(entry->schema_name, names->schema, NAMEDATALEN);
	strlcpy(entry->relation_name, names->relation, NAMEDATALEN);
	entry->relkind = names->relkind;
	entry->shared_hit_blocks = 0;
	memset(&entry->reads, 0, sizeof(entry->reads));
	SpinLockInit(&entry->mutex);
}

static bool
delta_is_empty(const RelationReadsDelta *delta)
{
	return delta->shared_hit_blocks == 0 && delta->reads.read_blocks == 0 && delta->reads.device_read_bytes == 0;
}

static RelationReadsKey
key_of(const RelationReadsDelta *delta)
{
	RelationReadsKey key;

	memset(&key, 0, sizeof(key));
	key.database = MyDatabaseId;
	key.relation = delta->rel != NULL ? RelationGetRelid(delta->rel) : InvalidOid;
	return key;
}

/*
 * A relation's entry, made if it has none and the table has room (NULL
 * then: the overflow counts it); under the exclusive lock.
 */
static RelationReadsEntry *
find_or_make_entry(const RelationReadsKey *key, const EntryNames *names)
{
	RelationReadsEntry *entry = hash_search(table, key, HASH_FIND, NULL);
	bool		found;

	/* the bound is the setting's, not what the memory's slack would hold */
	if (entry != NULL || hash_get_num_entries(table) >= cachectl_track_reads_max_relations_setting)
		return entry;
	entry = hash_search(table, key, HASH_ENTER_NULL, &found);
	if (entry != NULL && !found)
		name_entry(entry, names);
	return entry;
}

/* The owner writes its slots between these two: readers retry meanwhile. */
static inline void
begin_slot_writes(BackendPending *pending)
{
	pending->changecount++;
	pg_write_barrier();
}

static inline void
end_slot_writes(BackendPending *pending)
{
	pg_write_barrier();
	pending->changecount++;
	Assert((pending->changecount & 1) == 0);
}

static void
add_to_slot(PendingReads *slot, const RelationReadsDelta *delta)
{
	slot->shared_hit_blocks += delta->shared_hit_blocks;
	/* most queries read nothing from the kernel: their reads need no sum */
	if (delta->reads.read_blocks != 0 || delta->reads.device_read_bytes != 0)
		cachectl_relation_reads_add(&slot->reads, &delta->reads);
}

/* A slot's counts into the table (if of this generation), the slot emptied: exclusive lock, writes begun. */
static void
fold_slot(PendingReads *slot, uint64 generation)
{
	if (slot->generation == generation)
		add_to_entry(slot->entry != NULL ? slot->entry : &shared->overflow, slot->shared_hit_blocks, &slot->reads);
	memset(slot, 0, sizeof(*slot));
}

/* Every slot of the backend into the table: under the exclusive lock. */
static void
fold_backend(BackendPending *pending)
{
	uint64		generation = pg_atomic_read_u64(&shared->generation);

	begin_slot_writes(pending);
	for (int i = 0; i < PENDING_SLOTS; i++)
		fold_slot(&pending->slots[i], generation);
	end_slot_writes(pending);
}

/* At exit, this backend's counts join the table and its slots are free. */
static void
fold_at_exit(int code, Datum arg)
{
	/* an exit inside the lock's hold (not ours to take again) leaves the counts to the next owner */
	if (my_pending == NULL || LWLockHeldByMe(shared->lock))
		return;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	fold_backend(my_pending);
	my_pending->owner_pid = 0;
	LWLockRelease(shared->lock);
	my_pending = NULL;
}

/*
 * This backend's slots (NULL for a process without a backend slot): taken
 * at its first count, what a former owner left folded in first.
 */
static BackendPending *
pending_of_this_backend(void)
{
	int			index;

	if (my_pending != NULL)
		return my_pending;
#if PG_VERSION_NUM >= 170000
	index = MyProcNumber;
#else
	index = MyBackendId - 1;
#endif
	if (backends == NULL || index < 0 || index >= backend_count)
		return NULL;
	before_shmem_exit(fold_at_exit, (Datum) 0);
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	my_pending = &backends[index];
	fold_backend(my_pending);
	my_pending->owner_pid = MyProcPid;
	LWLockRelease(shared->lock);
	return my_pending;
}

/*
 * Deltas no slot holds: their entries found or made, each into its slot
 * (the slot's former relation folded into its entry); or, for a process
 * without slots (pending NULL), each straight into its entry.
 */
static void
add_through_lock(BackendPending *pending, const RelationReadsDelta *deltas, const int *at, int count)
{
	EntryNames *names = palloc(sizeof(EntryNames) * count);
	uint64		generation;

	/* catalog lookups may fail: never under the lock */
	for (int m = 0; m < count; m++)
		names[m] = names_of(deltas[at[m]].rel);
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	generation = pg_atomic_read_u64(&shared->generation);
	if (pending != NULL)
		begin_slot_writes(pending);
	for (int m = 0; m < count; m++)
	{
		const RelationReadsDelta *delta = &deltas[at[m]];
		RelationReadsKey key = key_of(delta);
		RelationReadsEntry *entry = find_or_make_entry(&key, &names[m]);
		PendingReads *slot;

		if (pending == NULL)
		{
			add_to_entry(entry != NULL ? entry : &shared->overflow, delta->shared_hit_blocks, &delta->reads);
			continue;
		}
		slot = &pending->slots[key.relation % PENDING_SLOTS];
		fold_slot(slot, generation);
		slot->generation = generation;
		slot->relation = key.relation;
		slot->entry = entry;
		add_to_slot(slot, delta);
	}
	if (pending != NULL)
		end_slot_writes(pending);
	LWLockRelease(shared->lock);
}

void
relation_reads_add(const RelationReadsDelta *deltas, int count)
{
	BackendPending *pending;
	uint64		generation;
	int			missing = 0;
	int			few[16];
	int		   *missing_at;

	if (!relation_reads_available())
		return;
	pending = pending_of_this_backend();
	/* no allocation while the slots are being written */
	missing_at = count <= lengthof(few) ? few : palloc(sizeof(int) * count);
	/* a reset from here on makes these counts its predecessor's: they count for nothing */
	generation = pg_atomic_read_u64(&shared->generation);
	if (pending != NULL)
		begin_slot_writes(pending);
	for (int i = 0; i < count; i++)
	{
		Oid			relation;
		PendingReads *slot;

		if (delta_is_empty(&deltas[i]))
			continue;
		relation = key_of(&deltas[i]).relation;
		slot = pending != NULL ? &pending->slots[relation % PENDING_SLOTS] : NULL;
		if (slot != NULL && slot->generation == generation && slot->relation == relation)
			add_to_slot(slot, &deltas[i]);
		else
			missing_at[missing++] = i;
	}
	if (pending != NULL)
		end_slot_writes(pending);
	if (missing > 0)
		add_through_lock(pending, deltas, missing_at, missing);
}

/* A backend's slots as they were between two of its writes. */
static void
copy_slots(const BackendPending *pending, PendingReads *copy)
{
	for (;;)
	{
		uint32		before = *(volatile const uint32 *) &pending->changecount;

		pg_read_barrier();
		memcpy(copy, pending->slots, sizeof(pending->slots));
		pg_read_barrier();
		if ((before & 1) == 0 && before == *(volatile const uint32 *) &pending->changecount)
			return;
		pg_spin_delay();
	}
}

/* A copy of the table, by the address of the entry it copies. */
typedef struct PendingSum
{
	RelationReadsEntry *entry;
	int			copy;
} PendingSum;

static int
entry_by_pointer(const void *left, const void *right)
{
	uintptr_t	l = (uintptr_t) ((const PendingSum *) left)->entry;
	uintptr_t	r = (uintptr_t) ((const PendingSum *) right)->entry;

	return l < r ? -1 : (l > r ? 1 : 0);
}

RelationReadsEntry *
relation_reads_copy(int *count, RelationReadsEntry *overflow, TimestampTz *reset_at)
{
	RelationReadsEntry *copies;
	HASH_SEQ_STATUS scan;
	RelationReadsEntry *entry;
	int			n = 0;

	long		entries;
	PendingSum *sums;
	PendingReads *slots = palloc(sizeof(PendingReads) * PENDING_SLOTS);
	uint64		generation;

	LWLockAcquire(shared->lock, LW_SHARED);
	entries = hash_get_num_entries(table);
	copies = palloc(sizeof(RelationReadsEntry) * Max(entries, 1));
	/* each copy found again by its entry's address, for the slots' counts */
	sums = palloc(sizeof(PendingSum) * Max(entries, 1));
	hash_seq_init(&scan, table);
	while ((entry = hash_seq_search(&scan)) != NULL)
	{
		SpinLockAcquire(&entry->mutex);
		copies[n] = *entry;
		SpinLockRelease(&entry->mutex);
		sums[n].entry = entry;
		sums[n].copy = n;
		n++;
	}
	SpinLockAcquire(&shared->overflow.mutex);
	*overflow = shared->overflow;
	SpinLockRelease(&shared->overflow.mutex);
	SpinLockAcquire(&shared->mutex);
	*reset_at = shared->reset_at;
	SpinLockRelease(&shared->mutex);
	qsort(sums, n, sizeof(PendingSum), entry_by_pointer);
	/* the slots' counts of this generation, not yet folded in */
	generation = pg_atomic_read_u64(&shared->generation);
	for (int b = 0; b < backend_count; b++)
	{
		if (backends[b].owner_pid == 0)
			continue;
		copy_slots(&backends[b], slots);
		for (int i = 0; i < PENDING_SLOTS; i++)
		{
			PendingSum	key = {slots[i].entry, 0};
			PendingSum *found;
			RelationReadsEntry *into = overflow;

			if (slots[i].generation != generation)
				continue;
			if (slots[i].entry != NULL &&
				(found = bsearch(&key, sums, n, sizeof(PendingSum), entry_by_pointer)) != NULL)
				into = &copies[found->copy];
			into->shared_hit_blocks += slots[i].shared_hit_blocks;
			cachectl_relation_reads_add(&into->reads, &slots[i].reads);
		}
	}
	LWLockRelease(shared->lock);
	*count = n;
	return copies;
}

TimestampTz
relation_reads_reset(void)
{
	HASH_SEQ_STATUS scan;
	RelationReadsEntry *entry;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	hash_seq_init(&scan, table);
	while ((entry = hash_seq_search(&scan)) != NULL)
		(void) hash_search(table, &entry->key, HASH_REMOVE, NULL);
	SpinLockAcquire(&shared->overflow.mutex);
	shared->overflow.shared_hit_blocks = 0;
	memset(&shared->overflow.reads, 0, sizeof(shared->overflow.reads));
	SpinLockRelease(&shared->overflow.mutex);
	SpinLockAcquire(&shared->mutex);
	shared->reset_at = now;
	SpinLockRelease(&shared->mutex);
	/* every backend's slots now count for nothing */
	pg_atomic_fetch_add_u64(&shared->generation, 1);
	LWLockRelease(shared->lock);
	return now;
}

const char *
relation_reads_kind_name(char relkind)
{
	switch (relkind)
	{
		case '\0':
			return "other";
		case RELKIND_RELATION:
			return "table";
		case RELKIND_INDEX:
			return "index";
		case RELKIND_TOASTVALUE:
			return "toast table";
		case RELKIND_MATVIEW:
			return "materialized view";
		case RELKIND_SEQUENCE:
			return "sequence";
		default:
			return "relation";
	}
}
