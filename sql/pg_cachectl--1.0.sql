/* pg_cachectl 1.0: install script (never edited once released; upgrades add scripts) */

\echo Use "CREATE EXTENSION pg_cachectl" to load this file. \quit

-- Nothing here is executable by PUBLIC.  Reporting functions are granted to
-- pg_read_all_stats (and grantable to anyone); actions stay superuser-only
-- until a superuser grants EXECUTE on them.
REVOKE ALL ON SCHEMA cachectl FROM PUBLIC;
GRANT USAGE ON SCHEMA cachectl TO pg_read_all_stats;

-- Which engine measures OS page-cache residency in this session:
-- 'cachestat' or 'mincore' (see the cachectl.os_engine setting).
CREATE FUNCTION cachectl.os_engine()
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_os_engine'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- The kernel's page size: the unit of every *_pages column.
CREATE FUNCTION cachectl.os_page_size()
RETURNS int8
AS 'MODULE_PATHNAME', 'pg_cachectl_os_page_size'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- OS page-cache residency of a relation: one row per fork and 1 GiB segment.
-- fork NULL means every fork that exists.
CREATE FUNCTION cachectl.os_residency(
    rel regclass,
    fork text DEFAULT NULL,
    OUT relation regclass,
    OUT fork text,
    OUT segment int4,
    OUT path text,
    OUT size_bytes int8,
    OUT os_pages int8,
    OUT cached_pages int8,
    OUT dirty_pages int8,
    OUT writeback_pages int8,
    OUT evicted_pages int8,
    OUT recently_evicted_pages int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_residency'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;

-- The same, summed per relation; cascade adds the TOAST table, its index and
-- every index of each relation.
CREATE FUNCTION cachectl.os_residency_total(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT size_bytes int8,
    OUT os_pages int8,
    OUT cached_pages int8,
    OUT cached_bytes int8,
    OUT dirty_pages int8,
    OUT writeback_pages int8,
    OUT evicted_pages int8,
    OUT recently_evicted_pages int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_residency_total'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;

-- Write a relation set back to disk, then drop it from the OS page cache.
CREATE FUNCTION cachectl.os_drop(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT cached_pages_before int8,
    OUT cached_bytes_before int8,
    OUT dirty_pages_before int8,
    OUT dirty_bytes_before int8,
    OUT cached_pages_after int8,
    OUT cached_bytes_after int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_drop'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;

-- Load a block range of a relation fork into the OS page cache.
CREATE FUNCTION cachectl.os_prefetch(
    rel regclass,
    fork text DEFAULT 'main',
    first_block int8 DEFAULT NULL,
    last_block int8 DEFAULT NULL,
    max_mb_per_sec float8 DEFAULT NULL,
    wait boolean DEFAULT true,
    OUT relation regclass,
    OUT fork text,
    OUT blocks_requested int8,
    OUT cached_pages_after int8,
    OUT cached_bytes_after int8,
    OUT pages_pending int8,
    OUT seconds float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_prefetch'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;

-- The OS block map of a relation fork: one bit per block, set when cached.
CREATE FUNCTION cachectl.os_map(
    rel regclass,
    fork text DEFAULT 'main')
RETURNS varbit
AS 'MODULE_PATHNAME', 'pg_cachectl_os_map'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Load the blocks of a map into the OS page cache.
CREATE FUNCTION cachectl.os_restore(
    rel regclass,
    map varbit,
    fork text DEFAULT 'main',
    drop_others boolean DEFAULT false,
    max_mb_per_sec float8 DEFAULT NULL,
    wait boolean DEFAULT true,
    OUT relation regclass,
    OUT fork text,
    OUT blocks_loaded int8,
    OUT blocks_past_end int8,
    OUT cached_pages_after int8,
    OUT pages_pending int8,
    OUT seconds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_restore'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- A block map drawn as a strip of characters, with a legend.
CREATE FUNCTION cachectl.os_draw(
    map varbit,
    width int4 DEFAULT 64)
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_os_draw'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cachectl.os_engine() IS
    'Names the engine that measures OS page-cache residency here (cachestat or mincore); granted to pg_read_all_stats.';
COMMENT ON FUNCTION cachectl.os_page_size() IS
    'Returns the kernel''s page size in bytes, the unit of every *_pages column; granted to pg_read_all_stats.';
COMMENT ON FUNCTION cachectl.os_residency(regclass, text) IS
    'Reports OS page-cache residency per relation fork and 1 GiB segment file, in OS pages; granted to pg_read_all_stats, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_residency_total(regclass, boolean) IS
    'Reports OS page-cache residency summed per relation of a set, in OS pages and bytes; granted to pg_read_all_stats, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_drop(regclass, text, boolean) IS
    'Writes a relation set back to disk and drops it from the OS page cache, per fork, counting OS pages before and after; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean) IS
    'Loads a block range of a relation fork into the OS page cache and by default waits until it is read, counting OS pages; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_map(regclass, text) IS
    'Returns the OS block map of a relation fork, one bit per block set when the block is in the page cache; granted to pg_read_all_stats, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean) IS
    'Loads the blocks set in a block map into the OS page cache, optionally dropping the rest of the fork first, counting blocks and OS pages; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.os_draw(varbit, int4) IS
    'Draws a block map as a strip of at most width characters with a legend; granted to pg_read_all_stats.';

-- Shared-buffer residency per relation fork: the fork's size in blocks, the
-- buffers holding its pages, how many are dirty or pinned, their mean usage count.
CREATE FUNCTION cachectl.shared_residency(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT blocks int8,
    OUT buffers int8,
    OUT dirty int8,
    OUT pinned int8,
    OUT usage_count_avg float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_residency'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;

-- Evict one shared buffer (numbered as in pg_buffercache) if nobody pins
-- it; a dirty one is written first.
CREATE FUNCTION cachectl.evict_buffer(
    buffer int4,
    OUT evicted boolean,
    OUT flushed boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_buffer'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE ROWS 1;

-- Evict the shared buffers of a relation set (partitions; with cascade its
-- TOAST and indexes): dirty buffers are written first, pinned ones skipped.
CREATE FUNCTION cachectl.evict(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;

-- The same for many relations, in one pass over the pool.
CREATE FUNCTION cachectl.evict_relations(
    rels regclass[],
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_relations'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 100;

-- Every shared buffer of a database.
CREATE FUNCTION cachectl.evict_database(
    db name DEFAULT current_database(),
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_database'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE ROWS 1;

-- Every shared buffer.
CREATE FUNCTION cachectl.evict_all(
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_all'
LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 1;

REVOKE ALL ON FUNCTION cachectl.os_engine() FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_page_size() FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_residency(regclass, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_residency_total(regclass, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_engine() TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.os_page_size() TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.os_residency(regclass, text) TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.os_residency_total(regclass, boolean) TO pg_read_all_stats;
REVOKE ALL ON FUNCTION cachectl.os_map(regclass, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_draw(varbit, int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_map(regclass, text) TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.os_draw(varbit, int4) TO pg_read_all_stats;
REVOKE ALL ON FUNCTION cachectl.shared_residency(regclass, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.shared_residency(regclass, text, boolean) TO pg_read_all_stats;

-- Actions: superuser only until granted.
REVOKE ALL ON FUNCTION cachectl.os_drop(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_buffer(int4) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_database(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_all() FROM PUBLIC;
