/* pg_cachectl 1.0: install script (never edited once released; upgrades add scripts) */

\echo Use "CREATE EXTENSION pg_cachectl" to load this file. \quit

-- The schema is created here, so it belongs to the extension: a cachectl
-- schema made beforehand (by anyone with CREATE on the database, who would
-- then decide what a superuser's call resolves to) makes CREATE EXTENSION
-- fail, and DROP EXTENSION removes it.  The control file names pg_catalog.
CREATE SCHEMA cachectl;

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

-- ---- Both layers at once ----

-- Per relation fork: how many blocks each layer holds, and both (double-buffered).
CREATE FUNCTION cachectl.status(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT blocks int8,
    OUT shared_blocks int8,
    OUT os_blocks int8,
    OUT both_blocks int8,
    OUT shared_only_blocks int8,
    OUT os_only_blocks int8,
    OUT neither_blocks int8,
    OUT shared_dirty int8,
    OUT os_dirty_pages int8,
    OUT size_bytes int8,
    OUT shared_bytes int8,
    OUT os_bytes int8,
    OUT both_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_status'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;

-- Every relation of the database: size, shared, OS and double-cached bytes.
CREATE FUNCTION cachectl.database_status(
    OUT relation regclass,
    OUT kind text,
    OUT size_bytes int8,
    OUT shared_bytes int8,
    OUT os_cached_bytes int8,
    OUT double_cached_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_database_status'
LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 1000;

CREATE VIEW cachectl.database_status AS
    SELECT relation, kind, size_bytes, shared_bytes, os_cached_bytes, double_cached_bytes
    FROM cachectl.database_status();

-- The main fork of a relation as a two-layer strip.
CREATE FUNCTION cachectl.draw(
    rel regclass,
    width int4 DEFAULT 64)
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_draw'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Evict from shared buffers, then drop from the OS page cache.
CREATE FUNCTION cachectl.cold(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT shared_left int8,
    OUT os_left int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_cold'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;

CREATE FUNCTION cachectl.cold_database(
    OUT relations int8,
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8,
    OUT buffers_failed int8,
    OUT os_pages_left int8,
    OUT seconds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_cold_database'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Load a relation (or a block range) into the OS cache, shared buffers, or both.
CREATE FUNCTION cachectl.prewarm(
    rel regclass,
    target text DEFAULT 'both',
    fork text DEFAULT 'main',
    first_block int8 DEFAULT NULL,
    last_block int8 DEFAULT NULL,
    max_mb_per_sec float8 DEFAULT NULL,
    drop_os_copy boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT blocks_requested int8,
    OUT shared_blocks_loaded int8,
    OUT os_blocks_loaded int8,
    OUT seconds float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_prewarm'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;

-- Internal, for snapshots: runs of blocks in shared buffers (one pass over the pool).
CREATE FUNCTION cachectl.shared_block_runs(
    rels regclass[] DEFAULT NULL,
    OUT relation regclass,
    OUT fork text,
    OUT first_block int8,
    OUT block_count int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_block_runs'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 1000;

-- Internal, for snapshots: runs of blocks of a fork in the OS page cache.
CREATE FUNCTION cachectl.os_block_runs(
    rel regclass,
    fork text DEFAULT 'main',
    OUT first_block int8,
    OUT block_count int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_block_runs'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 100;

-- Internal, for restores: load block runs into the target layer(s).
CREATE FUNCTION cachectl.prewarm_runs(
    rel regclass,
    fork text,
    runs int8multirange,
    target text DEFAULT 'both',
    max_mb_per_sec float8 DEFAULT NULL,
    OUT shared_blocks_loaded int8,
    OUT os_blocks_loaded int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_prewarm_runs'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- Internal, for snapshots: the cluster's system identifier.
CREATE FUNCTION cachectl.system_identifier()
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_system_identifier'
LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION cachectl.status(regclass, boolean) IS
    'Reports per relation fork the blocks in shared buffers, in the OS page cache, in both and in neither, block by block, with dirty counts and bytes; granted to pg_read_all_stats, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.database_status() IS
    'Reports every relation of the current database the caller may read: size, shared-buffer, OS-cache and double-cached bytes; granted to pg_read_all_stats.';
COMMENT ON VIEW cachectl.database_status IS
    'Every relation of the current database the caller may read: size, shared-buffer, OS-cache and double-cached bytes.';
COMMENT ON FUNCTION cachectl.draw(regclass, int4) IS
    'Draws the main fork as a strip of at most width characters: # in both layers, s shared buffers only, o OS cache only; granted to pg_read_all_stats, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.cold(regclass, boolean) IS
    'Evicts a relation set from shared buffers and drops it from the OS page cache, reporting buffers and OS pages left per fork; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.cold_database() IS
    'Evicts the current database from shared buffers and drops all its files from the OS page cache; acts on the whole database, so its EXECUTE grant alone covers it; superuser until granted.';
COMMENT ON FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean) IS
    'Loads a relation fork or block range into the OS page cache, shared buffers (at most cachectl.prewarm_max_share of them) or both, counting blocks; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.shared_block_runs(regclass[]) IS
    'Internal to snapshot(): the runs of blocks of relations in shared buffers; superuser until granted, and needs SELECT on the tables.';
COMMENT ON FUNCTION cachectl.os_block_runs(regclass, text) IS
    'Internal to snapshot(): the runs of blocks of a relation fork in the OS page cache; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.prewarm_runs(regclass, text, int8multirange, text, float8) IS
    'Internal to restore(): loads runs of blocks into the OS page cache, shared buffers or both; superuser until granted, and needs SELECT on the table.';
COMMENT ON FUNCTION cachectl.system_identifier() IS
    'Internal to snapshots: the cluster''s system identifier, the same on its physical standbys; superuser until granted.';

REVOKE ALL ON FUNCTION cachectl.status(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.database_status() FROM PUBLIC;
REVOKE ALL ON cachectl.database_status FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.draw(regclass, int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.status(regclass, boolean) TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.database_status() TO pg_read_all_stats;
GRANT SELECT ON cachectl.database_status TO pg_read_all_stats;
GRANT EXECUTE ON FUNCTION cachectl.draw(regclass, int4) TO pg_read_all_stats;
REVOKE ALL ON FUNCTION cachectl.cold(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.cold_database() FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.shared_block_runs(regclass[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_block_runs(regclass, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.prewarm_runs(regclass, text, int8multirange, text, float8) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.system_identifier() FROM PUBLIC;

-- Shared-buffer residency per relation fork: the fork's size in blocks, the
-- buffers holding its pages, how many are dirty or pinned, their mean usage
-- count; the figures one compares with the OS cache also in bytes.
CREATE FUNCTION cachectl.shared_residency(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT blocks int8,
    OUT size_bytes int8,
    OUT buffers int8,
    OUT cached_bytes int8,
    OUT dirty int8,
    OUT dirty_bytes int8,
    OUT pinned int8,
    OUT usage_count_avg float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_residency'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.shared_residency(regclass, text, boolean) IS
'Reports per relation fork how many blocks shared buffers hold, dirty and pinned, in buffers of block_size bytes and in bytes; granted to pg_read_all_stats, and needs SELECT on the table.';

-- Evict one shared buffer (numbered as in pg_buffercache) if nobody pins
-- it; a dirty one is written first.  reason says why it was not evicted.
CREATE FUNCTION cachectl.evict_buffer(
    buffer int4,
    OUT evicted boolean,
    OUT flushed boolean,
    OUT reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_buffer'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl.evict_buffer(int4) IS
'Evicts one shared buffer of the whole cluster, numbered as in pg_buffercache, writing it first if dirty and never if pinned; superuser-only until granted, and its EXECUTE grant alone covers every database.';

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
COMMENT ON FUNCTION cachectl.evict(regclass, text, boolean) IS
'Evicts a relation''s shared buffers (its partitions; with cascade its TOAST and indexes too), writing dirty ones first and skipping pinned ones, counted in buffers per fork; superuser-only until granted, and needs SELECT on the table.';

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
COMMENT ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) IS
'Evicts the shared buffers of a list of relations (at most a million) in one pass, as evict does, counted in buffers per fork; superuser-only until granted, and needs SELECT on each table.';

-- Every shared buffer of a database.
CREATE FUNCTION cachectl.evict_database(
    db name DEFAULT current_database(),
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8,
    OUT buffers_failed int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_database'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl.evict_database(name) IS
'Evicts every unpinned shared buffer of any database of the cluster, writing dirty ones first and leaving those whose write fails, counted in buffers; superuser-only until granted, and its EXECUTE grant alone covers every table.';

-- Every shared buffer.
CREATE FUNCTION cachectl.evict_all(
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8,
    OUT buffers_failed int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_all'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl.evict_all() IS
'Evicts every unpinned shared buffer of the whole cluster, writing dirty ones first and leaving those whose write fails, counted in buffers; superuser-only until granted, and its EXECUTE grant alone covers every database.';

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

-- Actions: superuser only until granted.  Those on relations also need
-- SELECT on the table; evict_buffer, evict_database and evict_all act on the
-- whole cluster and are covered by their EXECUTE grant alone.
REVOKE ALL ON FUNCTION cachectl.os_drop(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_buffer(int4) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_database(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_all() FROM PUBLIC;
