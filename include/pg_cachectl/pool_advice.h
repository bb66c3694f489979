/*
 * pool_advice.h — the C ABI of the shared_buffers sizing model
 * (pool_advice.hpp): a sampler process reads buffer headers every round and
 * hands them over; the model tells the accesses to sampled blocks from them
 * and runs a miniature pool per candidate size; the curve comes out as
 * points, anchored to what the server measured by
 * cachectl_pool_advice_predict.
 *
 * One handle per sampler process, used by that process only.
 */
#ifndef PG_CACHECTL_POOL_ADVICE_H
#define PG_CACHECTL_POOL_ADVICE_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * The hash that decides which blocks are sampled: the same in every process
 * and on every major (the unit tests pin values).  Inline, as the sampler
 * computes it for every header it reads.  murmur3's 64-bit finalizer.
 */
static inline uint64_t
cachectl_mix64(uint64_t value)
{
	value ^= value >> 33;
	value *= UINT64_C(0xff51afd7ed558ccd);
	value ^= value >> 33;
	value *= UINT64_C(0xc4ceb9fe1a85ec53);
	value ^= value >> 33;
	return value;
}

static inline uint64_t
cachectl_block_hash(uint32_t tablespace, uint32_t database, uint32_t relation, int32_t fork, uint32_t block)
{
	uint64_t	place = (uint64_t) tablespace << 32 | database;
	uint64_t	file = (uint64_t) relation << 32 | block;
	uint64_t	fork_code = (uint64_t) (uint32_t) fork + 1;

	return cachectl_mix64(place ^ cachectl_mix64(file ^ fork_code * UINT64_C(0x9e3779b97f4a7c15)));
}

/*
 * One buffer header as read: number, block hash, BM_VALID, usage count, and
 * the caller's key of the block's relation (per-relation curves use it).
 */
typedef struct cachectl_buffer_reading
{
	uint32_t	buffer;
	uint64_t	block_hash;
	bool		valid;
	int32_t		usage;
	uint64_t	relation;
	bool		pinned;			/* a backend held a pin when it was read */
} cachectl_buffer_reading;

/* One candidate size of the curve, as pool_size_curve.hpp's PoolSizePoint. */
typedef struct cachectl_pool_size_point
{
	double		size_ratio;
	int64_t		buffers;
	double		accesses;		/* weighted sampled accesses */
	double		hits;			/* of which hits at this size */
} cachectl_pool_size_point;

typedef struct cachectl_pool_advice cachectl_pool_advice;

/*
 * A model of a pool of pool_buffers buffers simulating the sizes
 * size_ratios[0..size_count) (1 is added), sampling `rate` of the blocks
 * and at most max_sampled_blocks, reading every buffer every
 * full_read_every rounds; seed orders accesses within a round.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_create(int64_t pool_buffers, const double *size_ratios,
																size_t size_count, double rate,
																size_t max_sampled_blocks, uint32_t full_read_every,
																uint64_t seed, cachectl_pool_advice **advice,
																cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_pool_advice_free(cachectl_pool_advice *advice) CACHECTL_NOEXCEPT;

/*
 * The buffers to read this round, the clock hand being at `hand` (complete
 * passes x NBuffers + next victim): written to buffers[0..*count), sorted;
 * capacity must be at least pool_buffers.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_buffers_to_read(cachectl_pool_advice *advice, uint64_t hand,
																		 uint32_t *buffers, size_t capacity,
																		 size_t *count,
																		 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The round's readings (of the buffers asked, in any order): the accesses
 * they tell go through the miniature pools.  *told: how many.  Then
 * *saturated points to the followed buffers read at the usage cap
 * (*saturated_count of them, valid until the next call): the sampler may
 * lower each from 5 to 4 and report it with cachectl_pool_advice_count_lowered.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_observe(cachectl_pool_advice *advice, uint64_t hand,
																 const cachectl_buffer_reading *readings,
																 size_t reading_count, int64_t *told,
																 const uint32_t **saturated, size_t *saturated_count,
																 cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_pool_advice_count_lowered(cachectl_pool_advice *advice,
															uint32_t buffer) CACHECTL_NOEXCEPT;

/*
 * Whether the model needs this buffer's reading this round (it holds a
 * sampled block, the model follows or watches the buffer, or it is empty
 * and the watch has room): the others may be left out, so a large pool is
 * not copied whole.  Asked after cachectl_pool_advice_buffers_to_read, for
 * each buffer once.  False without a handle.
 */
CACHECTL_BRIDGE_API bool cachectl_pool_advice_wants_reading(cachectl_pool_advice *advice, uint32_t buffer,
															bool valid, uint64_t block_hash) CACHECTL_NOEXCEPT;

/*
 * A buffer of the swept range to read again next round: one whose reading
 * the model did not want but that was pinned when read (a victim in the
 * middle of changing blocks), or whose header could not be read.  Nothing
 * without a handle.
 */
CACHECTL_BRIDGE_API void cachectl_pool_advice_recheck(cachectl_pool_advice *advice, uint32_t buffer) CACHECTL_NOEXCEPT;

/*
 * A new window: the counts start from zero; the simulated pools keep what
 * they hold, as shared buffers keep their pages when statistics are reset.
 * Nothing without a handle.
 */
CACHECTL_BRIDGE_API void cachectl_pool_advice_restart_counts(cachectl_pool_advice *advice) CACHECTL_NOEXCEPT;

/* Buffers holding a sampled block, as last read (0 without a handle). */
CACHECTL_BRIDGE_API int64_t cachectl_pool_advice_followed_buffers(const cachectl_pool_advice *advice) CACHECTL_NOEXCEPT;

/* The curve so far: points[0..*count), sizes in increasing order. */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_points(const cachectl_pool_advice *advice,
																cachectl_pool_size_point *points, size_t capacity,
																size_t *count, double *sample_rate,
																int64_t *sampled_blocks,
																cachectl_error *error) CACHECTL_NOEXCEPT;

/* One relation's accesses at one size (the curve's sizes, in order). */
typedef struct cachectl_relation_size_point
{
	uint64_t	relation;		/* the readings' key */
	double		size_ratio;
	double		accesses;
	double		hits;
} cachectl_relation_size_point;

/*
 * Per relation: points[0..*count), by relation then size; *count is also
 * set (to what is needed) when capacity is too small, which returns
 * CACHECTL_INVALID_ARGUMENT.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_relation_points(const cachectl_pool_advice *advice,
																		 cachectl_relation_size_point *points,
																		 size_t capacity, size_t *count,
																		 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The hit ratio at each point, anchored at 1x to the measured hits and
 * accesses of the same window (pool_size_curve.hpp's anchored_hit_ratios):
 * hit_ratios[0..point_count); NaN where nothing was measured.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_pool_advice_predict(const cachectl_pool_size_point *points,
																 size_t point_count, double measured_hits,
																 double measured_accesses, double scale,
																 double *hit_ratios,
																 cachectl_error *error) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_POOL_ADVICE_H */
