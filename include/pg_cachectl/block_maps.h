/*
 * block_maps.h — the block-map handle of the bridge: one bit per block of a
 * fork for its OS pages, maps against block lists, runs and drawings.
 */
#ifndef PG_CACHECTL_BLOCK_MAPS_H
#define PG_CACHECTL_BLOCK_MAPS_H

#include "pg_cachectl/bridge_common.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * The OS block map of a fork, written in place into bits (bit_count bits in
 * varbit order, cleared by the caller), which the caller owns and keeps
 * alive until the job is freed (fork_block_map.hpp).
 */
typedef struct cachectl_os_map cachectl_os_map;

CACHECTL_BRIDGE_API cachectl_os_map *cachectl_os_map_create(uint8_t *bits, int64_t bit_count, const char *base_path,
															int64_t segment_bytes, int64_t block_size,
															cachectl_os_engine engine,
															cachectl_error *error) CACHECTL_NOEXCEPT;
CACHECTL_BRIDGE_API void cachectl_os_map_free(cachectl_os_map *map) CACHECTL_NOEXCEPT;

/* One window of the map per step (bridge_common.h). */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_map_step(cachectl_os_map *map, cachectl_step *step,
														 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * Once the map is done: the dirty OS pages of its blocks, counted by the
 * same cachestat calls; false (and *os_dirty_pages 0) where mincore alone walked a
 * segment and could not tell.
 */
CACHECTL_BRIDGE_API bool cachectl_os_map_os_dirty_pages(const cachectl_os_map *map,
														int64_t *os_dirty_pages) CACHECTL_NOEXCEPT;

/*
 * A block map drawn for psql (block_drawing.hpp) into out (out_size bytes,
 * NUL-terminated; CACHECTL_DRAWING_EXTRA more than width is always enough).
 */
#define CACHECTL_DRAWING_EXTRA 256
CACHECTL_BRIDGE_API cachectl_status cachectl_draw_block_map(const uint8_t *bits, int64_t bit_count, int width,
															char *out, size_t out_size,
															cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The blocks of a fork by what they hold in the two layers (block_lists.hpp):
 * shared_blocks sorted, found in shared buffers (those past the map's end
 * not counted); the OS map varbit-ordered, one bit per block of the fork.
 */
typedef struct cachectl_layer_counts
{
	int64_t		both_blocks;
	int64_t		shared_only_blocks;
	int64_t		os_only_blocks;
	int64_t		neither_blocks;
} cachectl_layer_counts;

CACHECTL_BRIDGE_API cachectl_status cachectl_compare_layers(const uint32_t *shared_blocks, size_t count,
															const uint8_t *os_bits, int64_t bit_count,
															cachectl_layer_counts *counts,
															cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The cached OS pages of the sorted blocks of the fork at base_path
 * (block_residency.hpp); missing segment files count nothing.
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_os_pages_of_blocks(const char *base_path, int64_t segment_bytes,
																int64_t block_size, const uint32_t *blocks,
																size_t count, cachectl_os_engine engine,
																int64_t *os_pages,
																cachectl_error *error) CACHECTL_NOEXCEPT;

/* The two-layer strip of a fork (block_lists.hpp), like cachectl_draw_block_map. */
CACHECTL_BRIDGE_API cachectl_status cachectl_draw_two_layers(const uint32_t *shared_blocks, size_t count,
															 const uint8_t *os_bits, int64_t bit_count, int width,
															 char *out, size_t out_size,
															 cachectl_error *error) CACHECTL_NOEXCEPT;

/*
 * The runs of set bits of a map: with runs NULL, only *count is set; else
 * up to capacity runs are written (call once to count, once to fill).
 */
CACHECTL_BRIDGE_API cachectl_status cachectl_map_runs(const uint8_t *bits, int64_t bit_count,
													  cachectl_block_range *runs, size_t capacity,
													  size_t *count, cachectl_error *error) CACHECTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* PG_CACHECTL_BLOCK_MAPS_H */
