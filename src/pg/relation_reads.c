/*
 * relation_reads.c — the shared table of cumulative reads per relation: its
 * settings, its memory (a hash bounded by
 * cachectl.track_reads_max_relations, requested at server start), adding a
 * query's counts to it, copying it out and resetting it.
 *
 * One LWLock guards the table's shape: shared to find an entry and add to
 * its counters (under the entry's spinlock), exclusive to insert or reset.
 * A relation that finds the table full is added to the overflow counters,
 * so the sum over the view stays every read counted.
 */
#include "postgres.h"

#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "relation_reads.h"
#include "relation_reads_counting.h"

#define TRANCHE_NAME "pg_cachectl relation reads"

bool		cachectl_track_reads_setting = false;
int			cachectl_track_reads_max_relations_setting = 5000;

typedef struct RelationReadsShared
{
	LWLock	   *lock;
	slock_t		mutex;			/* guards overflow and reset_at */
	TimestampTz reset_at;
	uint64		generation;		/* changed by each reset (under the exclusive lock) */
	RelationReadsEntry overflow;	/* the relations that found the table full */
} RelationReadsShared;

static RelationReadsShared *shared = NULL;
static HTAB *table = NULL;

/*
 * The entries this backend found last, by relation (its database never
 * changes): a query's counts reach an entry found before without a hash
 * lookup.  Entries stay where they are until a reset, which changes the
 * generation.
 */
#define KNOWN_ENTRIES 64
typedef struct KnownEntry
{
	Oid			relation;
	uint64		generation;		/* 0: empty */
	RelationReadsEntry *entry;
} KnownEntry;
static KnownEntry known_entries[KNOWN_ENTRIES];

static shmem_request_hook_type previous_request_hook = NULL;
static shmem_startup_hook_type previous_startup_hook = NULL;

static Size
table_size(void)
{
	return add_size(MAXALIGN(sizeof(RelationReadsShared)),
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
		shared->generation = 1;
	}
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
	relation_reads_install_hooks();
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

/* Keeps where a relation's entry is (NULL: it has none yet), for find_entry. */
static RelationReadsEntry *
remember_entry(RelationReadsEntry *entry)
{
	KnownEntry *known;

	if (entry == NULL)
		return NULL;
	known = &known_entries[entry->key.relation % KNOWN_ENTRIES];
	known->relation = entry->key.relation;
	known->generation = shared->generation;
	known->entry = entry;
	return entry;
}

/* The entry of a relation, or NULL if it has none; under the lock (either mode). */
static RelationReadsEntry *
find_entry(const RelationReadsDelta *delta)
{
	RelationReadsKey key = key_of(delta);
	KnownEntry *known = &known_entries[key.relation % KNOWN_ENTRIES];

	if (known->generation == shared->generation && known->relation == key.relation)
		return known->entry;
	return remember_entry(hash_search(table, &key, HASH_FIND, NULL));
}

/* A relation first counted (or counted again after a reset): under the exclusive lock. */
static void
add_new(const RelationReadsDelta *delta, const EntryNames *names)
{
	RelationReadsEntry *entry = find_entry(delta);

	/* the bound is the setting's, not what the memory's slack would hold */
	if (entry == NULL && hash_get_num_entries(table) < cachectl_track_reads_max_relations_setting)
	{
		RelationReadsKey key = key_of(delta);
		bool		found;

		entry = hash_search(table, &key, HASH_ENTER_NULL, &found);
		if (entry != NULL && !found)
			name_entry(entry, names);
		(void) remember_entry(entry);
	}
	add_to_entry(entry != NULL ? entry : &shared->overflow, delta->shared_hit_blocks, &delta->reads);
}

void
relation_reads_add(const RelationReadsDelta *deltas, int count)
{
	int			missing = 0;
	int			few[16];
	int		   *missing_at;
	EntryNames *names;

	if (!relation_reads_available())
		return;
	/* no allocation under the lock */
	missing_at = count <= lengthof(few) ? few : palloc(sizeof(int) * count);
	LWLockAcquire(shared->lock, LW_SHARED);
	for (int i = 0; i < count; i++)
	{
		RelationReadsEntry *entry;

		if (delta_is_empty(&deltas[i]))
			continue;
		entry = find_entry(&deltas[i]);
		if (entry != NULL)
			add_to_entry(entry, deltas[i].shared_hit_blocks, &deltas[i].reads);
		else
			missing_at[missing++] = i;
	}
	LWLockRelease(shared->lock);
	if (missing == 0)
		return;

	names = palloc(sizeof(EntryNames) * missing);
	for (int m = 0; m < missing; m++)
		names[m] = names_of(deltas[missing_at[m]].rel);
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	for (int m = 0; m < missing; m++)
		add_new(&deltas[missing_at[m]], &names[m]);
	LWLockRelease(shared->lock);
}

RelationReadsEntry *
relation_reads_copy(int *count, RelationReadsEntry *overflow, TimestampTz *reset_at)
{
	RelationReadsEntry *copies;
	HASH_SEQ_STATUS scan;
	RelationReadsEntry *entry;
	int			n = 0;

	LWLockAcquire(shared->lock, LW_SHARED);
	copies = palloc(sizeof(RelationReadsEntry) * Max(hash_get_num_entries(table), 1));
	hash_seq_init(&scan, table);
	while ((entry = hash_seq_search(&scan)) != NULL)
	{
		SpinLockAcquire(&entry->mutex);
		copies[n++] = *entry;
		SpinLockRelease(&entry->mutex);
	}
	SpinLockAcquire(&shared->overflow.mutex);
	*overflow = shared->overflow;
	SpinLockRelease(&shared->overflow.mutex);
	SpinLockAcquire(&shared->mutex);
	*reset_at = shared->reset_at;
	SpinLockRelease(&shared->mutex);
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
	/* every backend's known entries are gone */
	shared->generation++;
	LWLockRelease(shared->lock);
	return now;
}
