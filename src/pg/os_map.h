/*
 * os_map.h — OS block maps for other SQL functions (status, snapshots).
 */
#ifndef PG_CACHECTL_OS_MAP_H
#define PG_CACHECTL_OS_MAP_H

/*
 * Sets the bits (varbit order, cleared by the caller, bit_count of them) of
 * the blocks of the fork at path whose OS pages are all cached; cancellable.
 * The work is owned by CurrentMemoryContext until it ends.
 */
extern void os_map_fill(uint8 *bits, int64 bit_count, const char *path);

#endif							/* PG_CACHECTL_OS_MAP_H */
