/*
 * snapshot_record.c — cachectl.snapshot(): the recorder of a cache
 * snapshot, which the autowarm worker calls too.
 *
 * One walk per fork gives its OS rows (the fork's size from its segments,
 * then its OS map: cachestat per window, mincore only where a window has
 * holes), and one pass over the buffer pool gives every relation's shared
 * rows with their hot blocks.  The relations are read from pg_class without
 * relation locks (a whole database names more relations than the lock table
 * holds): a file dropped meanwhile reads as empty, and leaves no row.
 *
 * The rows are written by two statements run as the caller, so the table's
 * privileges and its row-security policy apply as to any writer: rows that
 * read as they would, or that moved by at most a 64th of their blocks, are
 * left as they are (an unchanged cache writes no row and no WAL: the worker
 * snapshots every few minutes, and every row written replicates), the
 * others are replaced, all in the caller's
 * transaction, so a reader sees the old snapshot or the new one, never a
 * mix.  Two snapshots under one label take turns on a lock of the table.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "api/api.h"
#include "api/block_runs.h"
#include "api/call_arguments.h"
#include "os_cache/fork_residency.h"
#include "relation_set/database_relations.h"
#include "relation_set/fork_files.h"
#include "relation_set/relation_set.h"
#include "shared_buffers/buffer_scan_setup.h"
#include "snapshots/snapshots.h"

#include "pg_cachectl/block_maps.h"

PG_FUNCTION_INFO_V1(pg_cachectl_snapshot);

#define SNAPSHOT_COLUMNS 4
#define FORKS (MAX_FORKNUM + 1)

/* A relation the snapshot records: its guard, its files, its forks' sizes. */
typedef struct RecordedRelation
{
	RelationGuard guard;
	DatabaseRelation file;
	int64		fork_blocks[FORKS]; /* -1: no file */
} RecordedRelation;

/* One row of the snapshot, as it should read now. */
typedef struct RecordedRow
{
	int			relation;		/* index in the relation list */
	ForkNumber	fork;
	bool		shared;			/* the layer */
	cachectl_block_range *runs;
	size_t		run_count;
	int64		block_count;
	cachectl_block_range *hot;
	size_t		hot_count;
	int64		fork_blocks;
	bool		kept;			/* the label's row reads close enough: left as it is */
} RecordedRow;

typedef struct Recording
{
	RecordedRelation *relations;	/* in OID order */
	int			relation_count;
	RecordedRow *rows;
	int			row_count;
	int			row_capacity;
} Recording;

static RecordedRow *
add_row(Recording *recording)
{
	if (recording->row_count == recording->row_capacity)
	{
		recording->row_capacity = Max(recording->row_capacity * 2, 64);
		recording->rows = recording->rows == NULL
			? palloc(sizeof(RecordedRow) * recording->row_capacity)
			: repalloc(recording->rows, sizeof(RecordedRow) * recording->row_capacity);
	}
	memset(&recording->rows[recording->row_count], 0, sizeof(RecordedRow));
	return &recording->rows[recording->row_count++];
}

static Oid
snapshot_table_oid(void)
{
	return get_relname_relid("snapshot", get_namespace_oid("cachectl", false));
}

/* Adds a relation of the snapshot, if it still has storage and a guard. */
static void
add_relation(Recording *recording, Oid relid, const ToastOwners *owners, Oid skip_guard, int *capacity)
{
	RecordedRelation *relation;
	Oid			tablespace;

	if (recording->relation_count == *capacity)
	{
		*capacity = Max(*capacity * 2, 64);
		recording->relations = recording->relations == NULL
			? palloc(sizeof(RecordedRelation) * *capacity)
			: repalloc(recording->relations, sizeof(RecordedRelation) * *capacity);
	}
	relation = &recording->relations[recording->relation_count];
	if (!relation_guard_describe(relid, owners, &relation->guard) || relation->guard.owner_table == skip_guard)
		return;
	tablespace = get_rel_tablespace(relid);
	relation->file.relid = relid;
	relation->file.relkind = relation->guard.relkind;
	relation->file.tablespace = OidIsValid(tablespace) ? tablespace : MyDatabaseTableSpace;
	relation->file.file_number = relation->guard.file_number;
	for (int fork = 0; fork < FORKS; fork++)
		relation->fork_blocks[fork] = -1;
	recording->relation_count++;
}

static int
relation_by_relid(const void *left, const void *right)
{
	Oid			a = ((const RecordedRelation *) left)->guard.relid;
	Oid			b = ((const RecordedRelation *) right)->guard.relid;

	return a < b ? -1 : a > b ? 1 : 0;
}

/*
 * The relations: the set the named ones stand for (leaf partitions; with
 * cascade TOAST table, TOAST index and indexes; SELECT checked on each
 * guard), or every relation of the database the user may read but the
 * snapshots themselves (each snapshot changes their pages, so the next would
 * always rewrite their rows).
 */
static void
read_relations(FunctionCallInfo fcinfo, bool whole_database, bool cascade, Recording *recording)
{
	ToastOwners *owners = toast_owners_read();
	int			capacity = 0;

	if (whole_database)
	{
		int			count;
		DatabaseRelation *relations = database_relations_list(DATABASE_RELATIONS_SELECTABLE, &count);
		Oid			snapshots = snapshot_table_oid();

		for (int i = 0; i < count; i++)
		{
			CHECK_FOR_INTERRUPTS();
			add_relation(recording, relations[i].relid, owners, snapshots, &capacity);
		}
	}
	else
	{
		int			named_count;
		Oid		   *named = relation_list_argument(PG_GETARG_ARRAYTYPE_P(1), &named_count);
		RelationSet *set = relation_set_build(named, named_count, cascade, RELATION_SET_SNAPSHOT);
		Oid			relid;

		while (relation_set_next_unlocked(set, &relid))
			add_relation(recording, relid, owners, InvalidOid, &capacity);
	}
	if (recording->relation_count > 1)
		qsort(recording->relations, recording->relation_count, sizeof(RecordedRelation), relation_by_relid);
}

/* The OS layer: one walk per fork, its size first (it sizes the map). */
static void
record_os_layer(Recording *recording)
{
	for (int r = 0; r < recording->relation_count; r++)
	{
		RecordedRelation *relation = &recording->relations[r];

		for (ForkNumber fork = MAIN_FORKNUM; fork <= MAX_FORKNUM; fork++)
		{
			char	   *path;
			int64		blocks;
			uint8	   *bits;
			size_t		run_count;
			cachectl_error error = {0};
			RecordedRow *row;

			/* an init fork is an unlogged relation's only */
			if (fork == INIT_FORKNUM && relation->guard.relpersistence != RELPERSISTENCE_UNLOGGED)
				continue;
			CHECK_FOR_INTERRUPTS();
			path = database_relation_fork_path(&relation->file, fork);
			blocks = fork_blocks_from_files(path);
			relation->fork_blocks[fork] = blocks;
			if (blocks <= 0)
			{
				pfree(path);
				continue;
			}
			bits = os_map_of(path, blocks, NULL, NULL);
			if (cachectl_map_runs(bits, blocks, NULL, 0, &run_count, &error) != CACHECTL_OK)
				cachectl_raise_core_error(&error);
			if (run_count > 0)
			{
				row = add_row(recording);
				row->relation = r;
				row->fork = fork;
				row->shared = false;
				row->runs = palloc(sizeof(cachectl_block_range) * run_count);
				if (cachectl_map_runs(bits, blocks, row->runs, run_count, &row->run_count, &error) != CACHECTL_OK)
					cachectl_raise_core_error(&error);
				row->block_count = block_runs_blocks(row->runs, row->run_count);
				row->fork_blocks = Max(blocks, row->runs[row->run_count - 1].first + row->runs[row->run_count - 1].count);
			}
			pfree(bits);
			pfree(path);
		}
	}
}

/* Sorted block numbers as runs of consecutive blocks, palloc'd. */
static cachectl_block_range *
runs_of_blocks(const uint32 *blocks, size_t count, size_t *run_count)
{
	cachectl_block_range *runs = palloc(sizeof(cachectl_block_range) * Max(count, 1));
	size_t		runs_made = 0;

	for (size_t i = 0; i < count; i++)
	{
		if (runs_made > 0 && runs[runs_made - 1].first + runs[runs_made - 1].count == (int64) blocks[i])
			runs[runs_made - 1].count++;
		else
		{
			runs[runs_made].first = blocks[i];
			runs[runs_made].count = 1;
			runs_made++;
		}
	}
	*run_count = runs_made;
	return runs;
}

static int
find_relation(const Recording *recording, Oid relid)
{
	int			low = 0;
	int			high = recording->relation_count - 1;

	while (low <= high)
	{
		int			middle = low + (high - low) / 2;
		Oid			found = recording->relations[middle].guard.relid;

		if (found == relid)
			return middle;
		if (found < relid)
			low = middle + 1;
		else
			high = middle - 1;
	}
	return -1;
}

/* The shared layer: one pass over the buffer pool for every relation. */
static void
record_shared_layer(Recording *recording)
{
	DatabaseRelation *files = palloc(sizeof(DatabaseRelation) * Max(recording->relation_count, 1));
	cachectl_buffer_scan *scan;
	size_t		scan_rows;

	for (int r = 0; r < recording->relation_count; r++)
		files[r] = recording->relations[r].file;
	scan = buffer_scan_pass_database(CurrentMemoryContext, files, recording->relation_count);
	scan_rows = cachectl_buffer_scan_row_count(scan);
	for (size_t i = 0; i < scan_rows; i++)
	{
		cachectl_buffer_row found;
		const uint32 *blocks;
		size_t		count;
		const uint32 *hot;
		size_t		hot_count;
		int			r;
		RecordedRow *row;
		int64		end;

		cachectl_buffer_scan_row(scan, i, &found);
		buffer_scan_row_blocks(scan, i, &blocks, &count);
		r = find_relation(recording, found.relation_id);
		if (r < 0 || count == 0)
			continue;
		buffer_scan_row_hot_blocks(scan, i, &hot, &hot_count);
		row = add_row(recording);
		row->relation = r;
		row->fork = found.fork_number;
		row->shared = true;
		row->runs = runs_of_blocks(blocks, count, &row->run_count);
		row->block_count = count;
		row->hot = runs_of_blocks(hot, hot_count, &row->hot_count);
		end = (int64) blocks[count - 1] + 1;
		row->fork_blocks = Max(recording->relations[r].fork_blocks[found.fork_number], end);
	}
}

/*
 * A named relation with nothing cached still gets a row, one with no
 * blocks: the label then exists, and restore() of it loads nothing instead
 * of failing with "does not exist" (a cron job that snapshots a cold table
 * must not break the job that restores it).
 */
static void
record_empty_relations(Recording *recording)
{
	bool	   *has_row = palloc0(sizeof(bool) * Max(recording->relation_count, 1));
	int			rows = recording->row_count;

	for (int i = 0; i < rows; i++)
		has_row[recording->rows[i].relation] = true;
	for (int r = 0; r < recording->relation_count; r++)
	{
		RecordedRow *row;

		if (has_row[r] || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(recording->relations[r].guard.relid)))
			continue;
		row = add_row(recording);
		row->relation = r;
		row->fork = MAIN_FORKNUM;
		row->shared = false;
		row->fork_blocks = Max(recording->relations[r].fork_blocks[MAIN_FORKNUM], 0);
	}
}

/*
 * Two snapshots under one label at once would both replace its rows and one
 * would end in a unique violation: writers take turns, from here to commit,
 * on a lock of the table itself (DELETE on it is needed anyway; checked
 * first, so that a role without it cannot hold the lock).  Readers and
 * restore() do not conflict with it.  The wait is bounded by the session's
 * lock_timeout, or 10 s where it has none: a writer that holds the table
 * longer is a transaction left open, and a cron job had better fail than
 * hang.
 */
static void
lock_snapshot_table(Oid table, const char *label)
{
	const char *session_timeout = GetConfigOption("lock_timeout", false, false);
	const char *timeout = strcmp(session_timeout, "0") == 0 ? "10s" : pstrdup(session_timeout);
	MemoryContext caller_context = CurrentMemoryContext;
	int			nest_level;

	if (pg_class_aclcheck(table, GetUserId(), ACL_DELETE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, "snapshot");
	nest_level = NewGUCNestLevel();
	(void) set_config_option("lock_timeout", timeout, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	PG_TRY();
	{
		LockRelationOid(table, ShareRowExclusiveLock);
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(caller_context);
		error = CopyErrorData();
		if (error->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			PG_RE_THROW();
		FlushErrorState();
		error_context_stack = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("could not lock table cachectl.snapshot to record cache snapshot \"%s\"", label),
				 errdetail("Another transaction held a conflicting lock on it for %s: another snapshot() not yet committed, or a transaction that wrote to the table.",
						   timeout),
				 errhint("pg_locks shows who holds it; take the snapshot again once it is released.")));
	}
	PG_END_TRY();
	AtEOXact_GUC(true, nest_level);
}

/*
 * How far a row may drift before it is written again: a 64th of its blocks.
 * A pool that is full changes a little all the time (each snapshot's own
 * catalog reads evict a few buffers), and rewriting a relation's row for
 * that rewrote its whole multirange: 117-220 kB of WAL per snapshot of an
 * otherwise unchanged 4 GiB cache, all replicated.  A 64th of a relation's
 * blocks, recorded or not, does not change what a load brings back; a small
 * relation (under 64 blocks) is written again at any change.
 */
#define ROW_DRIFT_SHARE 64

/* The blocks in one list of runs and not in the other, both ways. */
static int64
blocks_differing(const cachectl_block_range *left, size_t left_count,
				 const cachectl_block_range *right, size_t right_count)
{
	size_t		both_count;
	cachectl_block_range *both = block_runs_intersect(left, left_count, right, right_count, &both_count);
	int64		in_both = block_runs_blocks(both, both_count);

	pfree(both);
	return block_runs_blocks(left, left_count) + block_runs_blocks(right, right_count) - 2 * in_both;
}

/* An array of Datums of one type, for a statement's parameter. */
static Datum
array_of(Datum *values, int count, Oid element_type)
{
	int16		length;
	bool		by_value;
	char		align;

	get_typlenbyvalalign(element_type, &length, &by_value, &align);
	return PointerGetDatum(construct_array(values, count, element_type, length, by_value, align));
}

/* Where each relation's rows are: row index by relation, fork and layer (-1: none). */
static int *
index_rows(const Recording *recording)
{
	size_t		slots = (size_t) Max(recording->relation_count, 1) * FORKS * 2;
	int		   *index = palloc(sizeof(int) * slots);

	for (size_t i = 0; i < slots; i++)
		index[i] = -1;
	for (int i = 0; i < recording->row_count; i++)
	{
		const RecordedRow *row = &recording->rows[i];

		index[((size_t) row->relation * FORKS + row->fork) * 2 + (row->shared ? 1 : 0)] = i;
	}
	return index;
}

/*
 * The recorded row a stored row of the label may stand for, or NULL: the
 * same relation, fork and layer recorded here, for the same file under the
 * same names, its blocks and hot blocks (and fork size) within the drift
 * allowed.  The stored row's columns are those keep_close_rows() reads.
 */
static RecordedRow *
row_still_close(Recording *recording, const int *row_index, HeapTuple stored, TupleDesc desc)
{
	bool		isnull;
	int			relation = find_relation(recording, DatumGetObjectId(SPI_getbinval(stored, desc, 1, &isnull)));
	ForkNumber	fork;
	RecordedRow *row;
	const RelationGuard *guard;
	int			index;
	int64		allowed;
	int			old_count;
	cachectl_block_range *old_runs;
	int64		drift;

	if (relation < 0)
		return NULL;
	fork = forkname_to_number(TextDatumGetCString(SPI_getbinval(stored, desc, 2, &isnull)));
	index = row_index[((size_t) relation * FORKS + fork) * 2 +
					  (DatumGetBool(SPI_getbinval(stored, desc, 3, &isnull)) ? 1 : 0)];
	if (index < 0)
		return NULL;
	row = &recording->rows[index];
	guard = &recording->relations[relation].guard;
	if (!DatumGetBool(SPI_getbinval(stored, desc, 4, &isnull)) ||
		strcmp(TextDatumGetCString(SPI_getbinval(stored, desc, 5, &isnull)), guard->relation_name) != 0 ||
		DatumGetObjectId(SPI_getbinval(stored, desc, 6, &isnull)) != guard->owner_table ||
		strcmp(TextDatumGetCString(SPI_getbinval(stored, desc, 7, &isnull)), guard->owner_table_name) != 0 ||
		DatumGetObjectId(SPI_getbinval(stored, desc, 8, &isnull)) != guard->file_number)
		return NULL;
	allowed = row->block_count / ROW_DRIFT_SHARE;
	drift = DatumGetInt64(SPI_getbinval(stored, desc, 9, &isnull)) - row->fork_blocks;
	if (drift < 0)
		drift = -drift;
	if (drift > allowed)
		return NULL;
	old_runs = block_runs_from_multirange(DatumGetMultirangeTypeP(SPI_getbinval(stored, desc, 10, &isnull)),
										  PG_INT64_MAX, &old_count);
	drift += blocks_differing(old_runs, old_count, row->runs, row->run_count);
	if (drift > allowed)
		return NULL;
	old_runs = block_runs_from_multirange(DatumGetMultirangeTypeP(SPI_getbinval(stored, desc, 11, &isnull)),
										  PG_INT64_MAX, &old_count);
	drift += blocks_differing(old_runs, old_count, row->hot, row->hot_count);
	return drift <= allowed ? row : NULL;
}

/*
 * Marks kept the rows the label already has close enough (row_still_close)
 * and returns the others, the rows to replace, by their tuple ids (tid[]).
 * The table is locked against writers from before this read to commit and
 * the read takes a new snapshot (read_only false), so the DELETE finds these
 * very rows.  (A DELETE matching rows by key against the kept ones joined a
 * function scan, copying a whole row of it per pair: a third of a snapshot's
 * CPU.)  Read as the caller (row security shows it its own rows only).
 */
static Datum
keep_close_rows(Recording *recording, const char *label, bool whole_database, Datum relids)
{
	Oid			types[3] = {TEXTOID, BOOLOID, OIDARRAYOID};
	Datum		values[3] = {CStringGetTextDatum(label), BoolGetDatum(whole_database), relids};
	int		   *row_index = index_rows(recording);
	Datum	   *replaced;
	int			replaced_count = 0;

	if (SPI_execute_with_args("SELECT s.relation, s.fork, s.layer OPERATOR(pg_catalog.=) 'shared', "
							  "       s.system_identifier OPERATOR(pg_catalog.=) cachectl_internal.system_identifier(), "
							  "       s.relation_name, s.owner_table, s.owner_table_name, s.relfilenode, "
							  "       s.fork_blocks, s.blocks, s.hot_blocks, s.ctid "
							  "  FROM cachectl.snapshot AS s "
							  " WHERE s.label OPERATOR(pg_catalog.=) $1 "
							  "   AND ($2 OR s.relation OPERATOR(pg_catalog.=) ANY ($3))",
							  3, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the rows of cache snapshot \"%s\"", label);
	replaced = palloc(sizeof(Datum) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	stored = SPI_tuptable->vals[i];
		RecordedRow *row;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		row = row_still_close(recording, row_index, stored, SPI_tuptable->tupdesc);
		if (row != NULL)
			row->kept = true;
		else
			replaced[replaced_count++] = SPI_getbinval(stored, SPI_tuptable->tupdesc, 12, &isnull);
	}
	return array_of(replaced, replaced_count, TIDOID);
}

/* The OIDs of the relations recorded, as an oid[] parameter. */
static Datum
relation_ids(const Recording *recording)
{
	Datum	   *relids = palloc(sizeof(Datum) * Max(recording->relation_count, 1));

	for (int r = 0; r < recording->relation_count; r++)
		relids[r] = ObjectIdGetDatum(recording->relations[r].guard.relid);
	return array_of(relids, recording->relation_count, OIDOID);
}

/* A column of the new rows, or of the relations, as an array parameter. */
typedef struct RowArrays
{
	Datum		relation, fork, layer, runs, block_count, fork_blocks, hot;
	Datum		replaced;		/* tid[] of the label's rows to replace */
	Datum		relids, names, owners, owner_names, filenodes;
} RowArrays;

static void
build_arrays(const Recording *recording, Datum relids, RowArrays *arrays)
{
	int			n = recording->row_count;
	int			m = recording->relation_count;
	Datum	   *relation = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *fork = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *layer = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *runs = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *block_count = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *fork_blocks = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *hot = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *names = palloc(sizeof(Datum) * Max(m, 1));
	Datum	   *owners = palloc(sizeof(Datum) * Max(m, 1));
	Datum	   *owner_names = palloc(sizeof(Datum) * Max(m, 1));
	Datum	   *filenodes = palloc(sizeof(Datum) * Max(m, 1));

	for (int i = 0; i < n; i++)
	{
		const RecordedRow *row = &recording->rows[i];

		relation[i] = ObjectIdGetDatum(recording->relations[row->relation].guard.relid);
		fork[i] = CStringGetTextDatum(forkNames[row->fork]);
		layer[i] = CStringGetTextDatum(row->shared ? "shared" : "os");
		/* a kept row is not written: its runs need not be made */
		runs[i] = block_runs_to_multirange(row->runs, row->kept ? 0 : row->run_count);
		block_count[i] = Int64GetDatum(row->block_count);
		fork_blocks[i] = Int64GetDatum(row->fork_blocks);
		hot[i] = block_runs_to_multirange(row->hot, row->kept ? 0 : row->hot_count);
	}
	for (int r = 0; r < m; r++)
	{
		const RelationGuard *guard = &recording->relations[r].guard;

		names[r] = CStringGetTextDatum(guard->relation_name);
		owners[r] = ObjectIdGetDatum(guard->owner_table);
		owner_names[r] = CStringGetTextDatum(guard->owner_table_name);
		filenodes[r] = ObjectIdGetDatum(guard->file_number);
	}
	arrays->relation = array_of(relation, n, OIDOID);
	arrays->fork = array_of(fork, n, TEXTOID);
	arrays->layer = array_of(layer, n, TEXTOID);
	arrays->runs = array_of(runs, n, INT8MULTIRANGEOID);
	arrays->block_count = array_of(block_count, n, INT8OID);
	arrays->fork_blocks = array_of(fork_blocks, n, INT8OID);
	arrays->hot = array_of(hot, n, INT8MULTIRANGEOID);
	arrays->relids = relids;
	arrays->names = array_of(names, m, TEXTOID);
	arrays->owners = array_of(owners, m, OIDOID);
	arrays->owner_names = array_of(owner_names, m, TEXTOID);
	arrays->filenodes = array_of(filenodes, m, OIDOID);
}

/*
 * Replaces the label's rows keep_close_rows() did not keep with the rows
 * recorded (those kept stay as they are).
 */
static void
write_rows(const Recording *recording, const char *label, TimestampTz taken_at, const RowArrays *arrays)
{
	Oid			multirange_array = get_array_type(INT8MULTIRANGEOID);
	Oid			delete_types[2] = {TEXTOID, TIDARRAYOID};
	Datum		delete_values[2] = {CStringGetTextDatum(label), arrays->replaced};
	Oid			insert_types[14] = {TEXTOID, TIMESTAMPTZOID, TEXTOID, OIDARRAYOID, TEXTARRAYOID, TEXTARRAYOID,
		multirange_array, INT8ARRAYOID, INT8ARRAYOID, multirange_array, OIDARRAYOID, TEXTARRAYOID,
	OIDARRAYOID, TEXTARRAYOID};
	Datum		insert_values[15] = {CStringGetTextDatum(label), TimestampTzGetDatum(taken_at),
		PointerGetDatum(cluster_system_identifier()), arrays->relation, arrays->fork, arrays->layer,
		arrays->runs, arrays->block_count, arrays->fork_blocks, arrays->hot, arrays->relids, arrays->names,
	arrays->owners, arrays->owner_names, arrays->filenodes};
	Oid			insert_all_types[15];

	if (SPI_execute_with_args(
			"DELETE FROM cachectl.snapshot AS s "
			" WHERE s.ctid OPERATOR(pg_catalog.=) ANY ($2) AND s.label OPERATOR(pg_catalog.=) $1",
			2, delete_types, delete_values, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not replace the rows of cache snapshot \"%s\"", label);

	memcpy(insert_all_types, insert_types, sizeof(insert_types));
	insert_all_types[14] = OIDARRAYOID;
	if (SPI_execute_with_args(
			"INSERT INTO cachectl.snapshot "
			"  (label, taken_at, system_identifier, relation, relation_name, owner_table, owner_table_name, "
			"   relfilenode, fork, layer, fork_blocks, block_count, blocks, hot_blocks) "
			"SELECT $1, $2, $3, m.relation, m.relation_name, m.owner_table, m.owner_table_name, "
			"       m.relfilenode, n.fork, n.layer, n.fork_blocks, n.block_count, n.runs, n.hot "
			"  FROM ROWS FROM (pg_catalog.unnest($4), pg_catalog.unnest($5), pg_catalog.unnest($6), "
			"                  pg_catalog.unnest($7), pg_catalog.unnest($8), pg_catalog.unnest($9), "
			"                  pg_catalog.unnest($10)) "
			"           AS n (relation, fork, layer, runs, block_count, fork_blocks, hot) "
			"  JOIN ROWS FROM (pg_catalog.unnest($11), pg_catalog.unnest($12), pg_catalog.unnest($13), "
			"                  pg_catalog.unnest($14), pg_catalog.unnest($15)) "
			"           AS m (relation, relation_name, owner_table, owner_table_name, relfilenode) "
			"    ON m.relation OPERATOR(pg_catalog.=) n.relation "
			" WHERE NOT EXISTS (SELECT FROM cachectl.snapshot AS s "
			"                    WHERE s.label OPERATOR(pg_catalog.=) $1 "
			"                      AND s.relation OPERATOR(pg_catalog.=) n.relation "
			"                      AND s.fork OPERATOR(pg_catalog.=) n.fork "
			"                      AND s.layer OPERATOR(pg_catalog.=) n.layer)",
			15, insert_all_types, insert_values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not write the rows of cache snapshot \"%s\"", label);
}

/*
 * cachectl.snapshot(label text DEFAULT 'default', rels regclass[] DEFAULT NULL,
 *                   cascade boolean DEFAULT false)
 *   RETURNS record (relations int8, rows_recorded int8, shared_blocks int8, os_blocks int8)
 */
Datum
pg_cachectl_snapshot(PG_FUNCTION_ARGS)
{
	MemoryContext work_context;
	MemoryContext caller_context;
	Recording	recording = {0};
	TupleDesc	result_desc;
	const char *label;
	bool		whole_database = PG_ARGISNULL(1);
	TimestampTz taken_at;
	Datum		values[SNAPSHOT_COLUMNS];
	bool		nulls[SNAPSHOT_COLUMNS] = {0};
	int64		relations = 0;
	int64		shared_blocks = 0;
	int64		os_blocks = 0;
	bool	   *counted;
	RowArrays	arrays;
	Datum		relids;
	Datum		replaced;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("label of snapshot() must not be null"),
				 errhint("Leave it out for its default.")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cascade of snapshot() must not be null"),
				 errhint("Leave it out for its default.")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot take a cache snapshot during recovery"),
				 errhint("Take it on the primary: its rows replicate to the standbys, where cachectl.restore() loads them.")));
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "snapshot must return a composite");
	label = text_to_cstring(PG_GETARG_TEXT_PP(0));

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl snapshot", ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);
	read_relations(fcinfo, whole_database, PG_GETARG_BOOL(2), &recording);
	record_os_layer(&recording);
	lock_snapshot_table(snapshot_table_oid(), label);
	/* after the lock: writers take turns, so a later one records a later time */
	taken_at = GetCurrentTimestamp();
	record_shared_layer(&recording);
	if (!whole_database)
		record_empty_relations(&recording);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	relids = relation_ids(&recording);
	replaced = keep_close_rows(&recording, label, whole_database, relids);
	build_arrays(&recording, relids, &arrays);
	arrays.replaced = replaced;
	write_rows(&recording, label, taken_at, &arrays);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");

	counted = palloc0(sizeof(bool) * Max(recording.relation_count, 1));
	for (int i = 0; i < recording.row_count; i++)
	{
		const RecordedRow *row = &recording.rows[i];

		if (!counted[row->relation])
			relations++;
		counted[row->relation] = true;
		if (row->shared)
			shared_blocks += row->block_count;
		else
			os_blocks += row->block_count;
	}
	values[0] = Int64GetDatum(relations);
	values[1] = Int64GetDatum(recording.row_count);
	values[2] = Int64GetDatum(shared_blocks);
	values[3] = Int64GetDatum(os_blocks);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result_desc), values, nulls)));
}
