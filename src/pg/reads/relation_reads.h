/*
 * relation_reads.h — cumulative reads per relation, by source (shared-buffer
 * hits, page-cache hits, device reads), counted by every backend while
 * cachectl.track_reads is on, kept in shared memory (pg_cachectl in
 * shared_preload_libraries), read by cachectl.relation_reads.
 */
#ifndef PG_CACHECTL_RELATION_READS_H
#define PG_CACHECTL_RELATION_READS_H

#include "datatype/timestamp.h"
#include "storage/spin.h"
#include "utils/relcache.h"

#include "pg_cachectl/read_sources.h"

extern bool cachectl_track_reads_setting;
extern int	cachectl_track_reads_max_relations_setting;

/* One relation of one database; relation InvalidOid: the database's other reads. */
typedef struct RelationReadsKey
{
	Oid			database;
	Oid			relation;
} RelationReadsKey;

typedef struct RelationReadsEntry
{
	RelationReadsKey key;		/* the hash key: first */
	slock_t		mutex;			/* guards the counters */
	char		database_name[NAMEDATALEN];	/* as when first counted */
	char		schema_name[NAMEDATALEN];
	char		relation_name[NAMEDATALEN];
	char		relkind;		/* '\0' for the other reads */
	int64		shared_hit_blocks;
	cachectl_relation_reads reads;
} RelationReadsEntry;

/* One query's counts of one relation (rel NULL: its database's other reads). */
typedef struct RelationReadsDelta
{
	Relation	rel;			/* open: its names are taken when first counted */
	int64		shared_hit_blocks;
	cachectl_relation_reads reads;
} RelationReadsDelta;

/*
 * Adds a query's counts to this backend's slots in shared memory, with no
 * lock; a relation it has no slot for yet takes the lock once (its entry
 * found or made, its names looked up before).
 */
extern void relation_reads_add(const RelationReadsDelta *deltas, int count);

/*
 * Defines the settings; from shared_preload_libraries, also the shared memory
 * (the executor hooks that fill it are reads.h's).
 */
extern void relation_reads_init(bool preloading);

/* False when the counters have no shared memory (not preloaded). */
extern bool relation_reads_available(void);

/*
 * Copies every entry out with the backends' slots added (under the lock,
 * then released): palloc'd, count set; *overflow gets the reads of
 * relations that found the table full, *reset_at the time of the last
 * reset (or of the server start).
 */
extern RelationReadsEntry *relation_reads_copy(int *count, RelationReadsEntry *overflow, TimestampTz *reset_at);

/* The word the reports use for a relkind ('\0': "other"). */
extern const char *relation_reads_kind_name(char relkind);

/* Empties the table; returns the reset's time. */
extern TimestampTz relation_reads_reset(void);

#endif							/* PG_CACHECTL_RELATION_READS_H */
