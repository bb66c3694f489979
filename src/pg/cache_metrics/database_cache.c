/*
 * database_cache.c — the one walk over a database's caches behind the
 * metrics (database_cache.h).
 *
 * Why a directory listing: a database of 100,000 relations has about as
 * many forks missing as present (most tables have no init fork, most
 * indexes no free space map), and every path that does not exist costs the
 * kernel a failed lookup — the largest part of a per-relation walk.  One
 * readdir of each directory that holds the database's files says which forks
 * exist, and only those are measured.  The shared layer is the database pass
 * over the pool of buffer_scan_setup.c (one pass, block numbers kept), and
 * double-cached bytes are the OS residency of exactly those blocks
 * (cachectl_os_pages_of_blocks), never an estimate from two totals.
 */
#include "postgres.h"

#include <dirent.h>

#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "api/api.h"
#include "api/version_compat.h"
#include "cache_metrics/database_cache.h"
#include "os_cache/fork_residency.h"
#include "relation_set/fork_files.h"
#include "shared_buffers/buffer_scan_setup.h"

#include "pg_cachectl/block_maps.h"

/* Where a relation's files are: the key a directory entry is looked up by. */
typedef struct FileOwner
{
	Oid			tablespace;
	Oid			file_number;
	int			index;			/* into the relation array */
} FileOwner;

static int
file_owner_order(const void *a, const void *b)
{
	const FileOwner *left = a;
	const FileOwner *right = b;

	if (left->tablespace != right->tablespace)
		return left->tablespace < right->tablespace ? -1 : 1;
	return (left->file_number > right->file_number) - (left->file_number < right->file_number);
}

/*
 * The file number and fork of a relation file's first segment ("16384",
 * "16384_fsm", "16384_vm", "16384_init"); false for anything else: later
 * segments ("16384.1", measured from the first), temporary relations
 * ("t3_16384"), pg_filenode.map, PG_VERSION, pg_internal.init.
 */
static bool
first_segment_of(const char *name, Oid *file_number, ForkNumber *fork)
{
	const char *p = name;
	uint64		number = 0;

	if (*p < '1' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		number = number * 10 + (uint64) (*p - '0');
		if (number > PG_UINT32_MAX)
			return false;
	}
	*file_number = (Oid) number;
	if (*p == '\0')
	{
		*fork = MAIN_FORKNUM;
		return true;
	}
	if (*p != '_')
		return false;
	for (int f = MAIN_FORKNUM + 1; f <= MAX_FORKNUM; f++)
		if (strcmp(p + 1, forkNames[f]) == 0)
		{
			*fork = (ForkNumber) f;
			return true;
		}
	return false;
}

/*
 * Sets bit f of forks[i] for each fork f of relation i whose first segment
 * file exists, from one listing of each directory holding the database's
 * files (one per tablespace the relations use).
 */
static void
list_existing_forks(const DatabaseRelation *relations, int relation_count, uint8 *forks)
{
	FileOwner  *owners = palloc(sizeof(FileOwner) * Max(relation_count, 1));

	for (int i = 0; i < relation_count; i++)
	{
		owners[i].tablespace = relations[i].tablespace;
		owners[i].file_number = relations[i].file_number;
		owners[i].index = i;
	}
	if (relation_count > 1)
		qsort(owners, relation_count, sizeof(FileOwner), file_owner_order);

	for (int first = 0; first < relation_count;)
	{
		Oid			tablespace = owners[first].tablespace;
		int			end = first;
		char	   *directory;
		DIR		   *dir;
		struct dirent *entry;

		while (end < relation_count && owners[end].tablespace == tablespace)
			end++;
		directory = GetDatabasePath(MyDatabaseId, tablespace);
		dir = AllocateDir(directory);
		/* a directory that cannot be read holds no file we can measure */
		while ((entry = ReadDirExtended(dir, directory, DEBUG1)) != NULL)
		{
			FileOwner	key = {tablespace, InvalidOid, 0};
			ForkNumber	fork;
			const FileOwner *found;

			CHECK_FOR_INTERRUPTS();
			if (!first_segment_of(entry->d_name, &key.file_number, &fork))
				continue;
			found = bsearch(&key, owners + first, end - first, sizeof(FileOwner), file_owner_order);
			if (found != NULL)
				forks[found->index] |= (uint8) (1 << fork);
		}
		if (dir != NULL)
			FreeDir(dir);
		pfree(directory);
		first = end;
	}
	pfree(owners);
}

void
database_cache_walk(const DatabaseRelation *relations, int relation_count,
					database_fork_visitor visit, void *argument)
{
	MemoryContext work_context;
	MemoryContext caller_context;
	uint8	   *forks;
	cachectl_buffer_scan *scan;
	cachectl_residency_report *report;
	cachectl_error error = {0};
	size_t		rows;
	size_t		next_row = 0;
	int64		page_size = os_page_size();

	work_context = AllocSetContextCreate(CurrentMemoryContext, "pg_cachectl database walk",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(work_context);

	forks = palloc0(Max(relation_count, 1));
	list_existing_forks(relations, relation_count, forks);
	scan = buffer_scan_pass_database(work_context, relations, relation_count);
	rows = cachectl_buffer_scan_row_count(scan);
	report = os_residency_report_create(work_context);

	/* the relations and the scan's rows are both in OID order */
	for (int i = 0; i < relation_count; i++)
	{
		const DatabaseRelation *relation = &relations[i];
		DatabaseForkCache measured[MAX_FORKNUM + 1];
		bool		present[MAX_FORKNUM + 1] = {false};
		bool		wholly_cached[MAX_FORKNUM + 1] = {false};

		CHECK_FOR_INTERRUPTS();
		memset(measured, 0, sizeof(measured));
		cachectl_residency_report_clear(report);
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
		{
			cachectl_residency_counts counts;
			char	   *path;

			measured[fork].relation = relation;
			measured[fork].fork = (ForkNumber) fork;
			if ((forks[i] & (1 << fork)) == 0)
				continue;
			path = database_relation_fork_path(relation, fork);
			os_residency_scan_path(report, fork, path);
			pfree(path);
			/* gone since the listing: no file, nothing cached */
			if (!os_residency_fork_total(report, fork, &counts))
				continue;
			present[fork] = true;
			measured[fork].size_bytes = counts.size_bytes;
			measured[fork].os_bytes = counts.os_pages * page_size;
			wholly_cached[fork] = counts.os_pages > 0 && counts.os_pages >= counts.size_pages;
		}

		for (; next_row < rows; next_row++)
		{
			cachectl_buffer_row row;
			const uint32 *blocks;
			size_t		count;
			DatabaseForkCache *fork;

			cachectl_buffer_scan_row(scan, next_row, &row);
			if (row.relation_id > relation->relid)
				break;
			if (row.relation_id < relation->relid || row.shared_blocks == 0 ||
				row.fork_number < 0 || row.fork_number > MAX_FORKNUM)
				continue;
			if (!cachectl_buffer_scan_row_blocks(scan, next_row, &blocks, &count))
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory while collecting the block numbers of shared buffers")));
			fork = &measured[row.fork_number];
			present[row.fork_number] = true;
			fork->shared_bytes = (int64) count * BLCKSZ;
			fork->shared_dirty_bytes = row.shared_dirty_blocks * BLCKSZ;
			if (wholly_cached[row.fork_number])
			{
				/*
				 * Every page of the files is cached, so is every shared block
				 * inside them: no second look at the files needed (the common
				 * case of small relations, which a database of 100,000 is
				 * mostly made of).
				 */
				int64		file_blocks = fork->size_bytes / BLCKSZ;
				int64		inside = 0;

				for (size_t b = 0; b < count; b++)
					inside += (int64) blocks[b] < file_blocks;
				fork->both_bytes = inside * BLCKSZ;
			}
			else if (fork->os_bytes > 0)
			{
				char	   *path = database_relation_fork_path(relation, row.fork_number);
				int64		pages = 0;

				if (cachectl_os_pages_of_blocks(path, CACHECTL_SEGMENT_BYTES, BLCKSZ, blocks, count,
												(cachectl_os_engine) cachectl_os_engine_setting,
												&pages, &error) != CACHECTL_OK)
					cachectl_raise_core_error(&error);
				fork->both_bytes = pages * page_size;
				pfree(path);
			}
		}

		MemoryContextSwitchTo(caller_context);
		for (int fork = 0; fork <= MAX_FORKNUM; fork++)
			if (present[fork])
				visit(&measured[fork], argument);
		MemoryContextSwitchTo(work_context);
	}

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
}
