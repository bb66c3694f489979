/*
 * read_sources.h — the C ABI of the read-source rule (read_sources.hpp):
 * a tally of a node's kernel reads split into page-cache hits and device
 * reads, fed one span at a time by the executor's read sampler.
 */
#ifndef PG_CACHECTL_READ_SOURCES_H
#define PG_CACHECTL_READ_SOURCES_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct cachectl_read_sources
{
	int64_t		read_blocks;	/* asked of the kernel */
	int64_t		os_hit_blocks;	/* served by the page cache */
	int64_t		device_read_blocks; /* covered by device reads */
	int64_t		device_read_bytes;	/* raw, readahead included */
} cachectl_read_sources;

/*
 * Adds one span's counters; *unclaimed_device_bytes carries the readahead
 * not yet matched to a block from span to span (start it at 0 for a query).
 * CACHECTL_INVALID_ARGUMENT for a negative counter.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_read_sources_add_span(cachectl_read_sources *tally,
																   int64_t *unclaimed_device_bytes,
																   int64_t read_blocks, int64_t device_bytes,
																   int64_t block_size,
																   cachectl_error *error) CACHECTL_NOEXCEPT;
/* a + b for counters that stop at the largest value rather than wrap (saturating_sum.hpp's) */
static inline int64_t
cachectl_saturating_sum(int64_t a, int64_t b)
{
	return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/*
 * The span of page-cache hits, decided by the caller without a bridge call
 * (the executor samples once per read): with no device byte in the span and
 * no readahead carried from an earlier one, every block came from the page
 * cache.  This is read_sources.hpp's rule where it is simplest; the unit
 * tests hold the two equal.  Sets *span (as add_span would add to an empty
 * tally); false when the span needs cachectl_read_sources_add_span.
 */
static inline bool
cachectl_read_sources_page_cache_span(cachectl_read_sources *span, int64_t unclaimed_device_bytes,
									  int64_t read_blocks, int64_t device_bytes)
{
	if (device_bytes != 0 || unclaimed_device_bytes != 0 || read_blocks < 0)
		return false;
	span->read_blocks = read_blocks;
	span->os_hit_blocks = read_blocks;
	span->device_read_blocks = 0;
	span->device_read_bytes = 0;
	return true;
}

/* Adds another tally (a child's, to make a node's figures inclusive); inline: once per sampled read. */
static inline void
cachectl_read_sources_add(cachectl_read_sources *tally, const cachectl_read_sources *other)
{
	tally->read_blocks = cachectl_saturating_sum(tally->read_blocks, other->read_blocks);
	tally->os_hit_blocks = cachectl_saturating_sum(tally->os_hit_blocks, other->os_hit_blocks);
	tally->device_read_blocks = cachectl_saturating_sum(tally->device_read_blocks, other->device_read_blocks);
	tally->device_read_bytes = cachectl_saturating_sum(tally->device_read_bytes, other->device_read_bytes);
}

/*
 * One relation's reads in the cumulative counters (relation_split.hpp):
 * read_blocks = os_hit_blocks + device_read_blocks + unsplit_read_blocks.
 */
typedef struct cachectl_relation_reads
{
	int64_t		read_blocks;
	int64_t		os_hit_blocks;
	int64_t		device_read_blocks;
	int64_t		unsplit_read_blocks;	/* a span that mixed both sources */
	int64_t		device_read_bytes;
} cachectl_relation_reads;

/*
 * Adds one span's shares to the parties' running totals: *totals[i] for
 * relation i (0 .. relation_count - 1), *totals[relation_count] for the
 * blocks no relation count claims; relation_blocks[i] is relation i's
 * blocks in the span by PostgreSQL's own per-relation counts;
 * sources_known false counts every block as unsplit.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_read_sources_split(const cachectl_read_sources *span,
																const int64_t *relation_blocks,
																size_t relation_count,
																bool sources_known,
																cachectl_relation_reads *const *totals,
																cachectl_error *error) CACHECTL_NOEXCEPT;
/* Adds page-cache hits to a total (the split below). */
static inline void
cachectl_relation_reads_add_os_hits(cachectl_relation_reads *total, int64_t blocks)
{
	total->read_blocks = cachectl_saturating_sum(total->read_blocks, blocks);
	total->os_hit_blocks = cachectl_saturating_sum(total->os_hit_blocks, blocks);
}

/*
 * A span with no device byte split by the caller without a bridge call:
 * every block was a page-cache hit, so each party's blocks are its hits
 * (relation_split.hpp's rule where the span has one source; the unit tests
 * hold the two equal).  False when the span needs
 * cachectl_read_sources_split (device bytes, sources not known, bad input).
 */
static inline bool
cachectl_read_sources_split_page_cache(const cachectl_read_sources *span, const int64_t *relation_blocks,
									   size_t relation_count, bool sources_known,
									   cachectl_relation_reads *const *totals)
{
	int64_t		claimed = 0;

	if (!sources_known || totals == NULL || (relation_count > 0 && relation_blocks == NULL) ||
		span->device_read_bytes != 0 || span->device_read_blocks != 0 || span->read_blocks < 0 ||
		span->os_hit_blocks != span->read_blocks)
		return false;
	for (size_t i = 0; i < relation_count; i++)
	{
		if (relation_blocks[i] < 0 || totals[i] == NULL)
			return false;
		claimed = cachectl_saturating_sum(claimed, relation_blocks[i]);
	}
	if (totals[relation_count] == NULL)
		return false;
	/* counts that claim more than the span read (a read stream's pins ahead): the span is other's */
	if (claimed > span->read_blocks)
	{
		cachectl_relation_reads_add_os_hits(totals[relation_count], span->read_blocks);
		return true;
	}
	for (size_t i = 0; i < relation_count; i++)
		if (relation_blocks[i] > 0)
			cachectl_relation_reads_add_os_hits(totals[i], relation_blocks[i]);
	if (span->read_blocks > claimed)
		cachectl_relation_reads_add_os_hits(totals[relation_count], span->read_blocks - claimed);
	return true;
}

/* Adds another relation's counters (summing a query's into shared memory); inline: once per query. */
static inline void
cachectl_relation_reads_add(cachectl_relation_reads *total, const cachectl_relation_reads *other)
{
	total->read_blocks = cachectl_saturating_sum(total->read_blocks, other->read_blocks);
	total->os_hit_blocks = cachectl_saturating_sum(total->os_hit_blocks, other->os_hit_blocks);
	total->device_read_blocks = cachectl_saturating_sum(total->device_read_blocks, other->device_read_blocks);
	total->unsplit_read_blocks = cachectl_saturating_sum(total->unsplit_read_blocks, other->unsplit_read_blocks);
	total->device_read_bytes = cachectl_saturating_sum(total->device_read_bytes, other->device_read_bytes);
}

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_READ_SOURCES_H */
