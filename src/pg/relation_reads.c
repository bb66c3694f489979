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
	RelationReadsEntry overflow;	/* the relations that found the table full */
} RelationReadsShared;

static RelationReadsShared *shared = NULL;
static HTAB *table = NULL;

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
	SpinLockAcquire(&entry->mutex);
	entry->shared_hit_blocks += shared_hit_blocks;
	cachectl_relation_reads_add(&entry->reads, reads);
	SpinLockRelease(&entry->mutex);
}

/* A new entry's names, looked up before the lock is taken. */
static void
name_entry(RelationReadsEntry *entry, const char *database, const char *schema, const char *relation,
		   char relkind)
{
	strlcpy(entry->database_name, database, NAMEDATALEN);
	strlcpy(entry->schema_name, schema, NAMEDATALEN);
	strlcpy(entry->relation_name, relation, NAMEDATALEN);
	entry->relkind = relkind;
	entry->shared_hit_blocks = 0;
	memset(&entry->reads, 0, sizeof(entry->reads));
	SpinLockInit(&entry->mutex);
}

void
relation_reads_add(Relation rel, int64 shared_hit_blocks, const cachectl_relation_reads *reads)
{
	RelationReadsKey key;
	RelationReadsEntry *entry;
	const char *database;
	const char *schema = "";
	const char *relation = "";
	char		relkind = '\0';

	if (!relation_reads_available() || (shared_hit_blocks == 0 && reads->read_blocks == 0 &&
										reads->device_read_bytes == 0))
		return;
	memset(&key, 0, sizeof(key));
	key.database = MyDatabaseId;
	key.relation = rel != NULL ? RelationGetRelid(rel) : InvalidOid;

	LWLockAcquire(shared->lock, LW_SHARED);
	entry = hash_search(table, &key, HASH_FIND, NULL);
	if (entry != NULL)
	{
		add_to_entry(entry, shared_hit_blocks, reads);
		LWLockRelease(shared->lock);
		return;
	}
	LWLockRelease(shared->lock);

	/* names first: a catalog lookup may fail, and must not under the lock */
	database = get_database_name(MyDatabaseId);
	if (database == NULL)
		database = "";
	if (rel != NULL)
	{
		schema = get_namespace_name(RelationGetNamespace(rel));
		relation = RelationGetRelationName(rel);
		relkind = rel->rd_rel->relkind;
		if (schema == NULL)
			schema = "";
	}
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	entry = hash_search(table, &key, HASH_FIND, NULL);
	/* the bound is the setting's, not what the memory's slack would hold */
	if (entry == NULL && hash_get_num_entries(table) < cachectl_track_reads_max_relations_setting)
	{
		bool		found;

		entry = hash_search(table, &key, HASH_ENTER_NULL, &found);
		if (entry != NULL && !found)
			name_entry(entry, database, schema, relation, relkind);
	}
	if (entry != NULL)
		add_to_entry(entry, shared_hit_blocks, reads);
	else
		add_to_entry(&shared->overflow, shared_hit_blocks, reads);
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
	LWLockRelease(shared->lock);
	return now;
}
