/*
 * advice_pool_watch.h — what the sizing advice reads of shared buffers: the
 * clock hand and buffer headers, read without a lock or a pin (backends
 * never wait on the sampler), and the one change it makes: lowering a
 * usage count from the cap so the next hit shows.
 */
#ifndef PG_CACHECTL_ADVICE_POOL_WATCH_H
#define PG_CACHECTL_ADVICE_POOL_WATCH_H

#include "pg_cachectl/pool_advice.h"

/*
 * Where the clock hand is, counted from the server's start (complete passes
 * x NBuffers + the next victim): never goes back while the server runs.
 */
extern uint64 advice_clock_hand(void);

/*
 * Reads one header (0-based buffer id) into *reading, with its block's hash
 * and relation key; false when it stayed locked or changed while read (it
 * is read again next round).
 */
extern bool advice_read_header(int buffer, cachectl_buffer_reading *reading, Oid *tablespace);

/* Lowers the buffer's usage count from the cap to one below, only if still there. */
extern bool advice_lower_usage_from_cap(int buffer);

/* The relation key of a reading: database << 32 | relfilenumber. */
#define ADVICE_RELATION_KEY(database, file_number) (((uint64) (database) << 32) | (uint64) (file_number))
#define ADVICE_KEY_DATABASE(key) ((Oid) ((key) >> 32))
#define ADVICE_KEY_FILE_NUMBER(key) ((Oid) ((key) & 0xffffffff))

#endif							/* PG_CACHECTL_ADVICE_POOL_WATCH_H */
