/* pg_cachectl 1.4: install script (never edited once released; upgrades add scripts) */

\echo Use "CREATE EXTENSION pg_cachectl" to load this file. \quit

-- Names: every column is <layer>_<what>_<unit> (docs/REFERENCE.md, "Vocabulary").  The
-- layer is shared (PostgreSQL shared buffers), os (the OS page cache) or both
-- (in both at once: cached twice); a fork's own size has the layer size.  The
-- unit is blocks (block_size, 8 KB: size_blocks, shared_blocks,
-- shared_dirty_blocks, os_blocks_loaded, shared_blocks_left), pages (OS pages
-- of os_page_size() bytes: size_pages, os_pages, os_dirty_pages,
-- os_pages_left) or bytes (size_bytes, shared_bytes, os_bytes, both_bytes).
-- Actions on shared buffers count buffers (buffers_evicted, buffers_flushed,
-- buffers_skipped, buffers_failed).  Counts of other things name the thing
-- (relations, rows_recorded); flags (evicted, flushed) and seconds are not
-- counts.

-- The schema is created here, so it belongs to the extension: a cachectl
-- schema made beforehand (by anyone with CREATE on the database, who would
-- then decide what a superuser's call resolves to) makes CREATE EXTENSION
-- fail, and DROP EXTENSION removes it.  The control file names pg_catalog.
CREATE SCHEMA cachectl;

-- Nothing here is executable by PUBLIC.  Reporting functions are granted to
-- pg_read_all_stats (and grantable to anyone); actions stay superuser-only
-- until a superuser grants EXECUTE on them.  Those on relations also need
-- SELECT on the table; evict_buffer, evict_database and evict_all act on the
-- whole cluster and are covered by their EXECUTE grant alone.  Each object's
-- COMMENT, REVOKE and GRANT follow its CREATE.
REVOKE ALL ON SCHEMA cachectl FROM PUBLIC;
GRANT USAGE ON SCHEMA cachectl TO pg_read_all_stats;

-- The helpers snapshot() and restore() call (they run with the caller's
-- privileges, so they call these as the caller) live apart, out of the
-- user's \df cachectl.*.  They are executable by PUBLIC and each refuses a
-- role that may not execute the entry point it serves
-- (src/pg/internal_entry.c), or returns catalog facts only: granting
-- snapshot() or restore() is all a role needs.
CREATE SCHEMA cachectl_internal;
REVOKE ALL ON SCHEMA cachectl_internal FROM PUBLIC;
GRANT USAGE ON SCHEMA cachectl_internal TO PUBLIC;

-- Which engine measures OS page-cache residency in this session:
-- 'cachestat' or 'mincore' (see the cachectl.os_engine setting).
CREATE FUNCTION cachectl.os_engine()
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_os_engine'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.os_engine() IS
    'Names the engine that measures OS page-cache residency here (cachestat or mincore); granted to pg_read_all_stats.';
REVOKE ALL ON FUNCTION cachectl.os_engine() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_engine() TO pg_read_all_stats;

-- The kernel's page size: the unit of every *_pages column.
CREATE FUNCTION cachectl.os_page_size()
RETURNS int8
AS 'MODULE_PATHNAME', 'pg_cachectl_os_page_size'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl.os_page_size() IS
    'Returns the kernel''s page size in bytes, the unit of every *_pages column; granted to pg_read_all_stats.';
REVOKE ALL ON FUNCTION cachectl.os_page_size() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_page_size() TO pg_read_all_stats;

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
    OUT size_pages int8,
    OUT os_pages int8,
    OUT os_dirty_pages int8,
    OUT os_writeback_pages int8,
    OUT os_evicted_pages int8,
    OUT os_recently_evicted_pages int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_residency'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.os_residency(regclass, text) IS
    'Reports OS page-cache residency per relation fork and 1 GiB segment file, in OS pages; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.os_residency(regclass, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_residency(regclass, text) TO pg_read_all_stats;

-- The same, summed per relation; cascade adds the TOAST table, its index and
-- every index of each relation.
CREATE FUNCTION cachectl.os_residency_total(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT size_bytes int8,
    OUT size_pages int8,
    OUT os_pages int8,
    OUT os_bytes int8,
    OUT os_dirty_pages int8,
    OUT os_writeback_pages int8,
    OUT os_evicted_pages int8,
    OUT os_recently_evicted_pages int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_residency_total'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.os_residency_total(regclass, boolean) IS
    'Reports OS page-cache residency summed per relation of a set, in OS pages and bytes; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.os_residency_total(regclass, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_residency_total(regclass, boolean) TO pg_read_all_stats;

-- Write a relation set back to disk, then drop it from the OS page cache.
CREATE FUNCTION cachectl.os_drop(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT os_pages_before int8,
    OUT os_bytes_before int8,
    OUT os_dirty_pages_before int8,
    OUT os_dirty_bytes_before int8,
    OUT os_pages_after int8,
    OUT os_bytes_after int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_drop'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;
COMMENT ON FUNCTION cachectl.os_drop(regclass, text, boolean) IS
    'Writes a relation set back to disk and drops it from the OS page cache, per fork, counting OS pages before and after; superuser until granted, and needs SELECT on the table.';
REVOKE ALL ON FUNCTION cachectl.os_drop(regclass, text, boolean) FROM PUBLIC;

-- Load a block range of a relation fork into the OS page cache.
CREATE FUNCTION cachectl.os_prefetch(
    rel regclass,
    fork text DEFAULT NULL,
    first_block int8 DEFAULT NULL,
    last_block int8 DEFAULT NULL,
    max_mb_per_sec float8 DEFAULT NULL,
    wait boolean DEFAULT true,
    OUT relation regclass,
    OUT fork text,
    OUT blocks_requested int8,
    OUT os_pages_after int8,
    OUT os_bytes_after int8,
    OUT os_pages_pending int8,
    OUT seconds float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_prefetch'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;
COMMENT ON FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean) IS
    'Loads a block range of a relation fork into the OS page cache and by default waits until it is read, counting OS pages; superuser until granted, and needs SELECT on the table.';
REVOKE ALL ON FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean) FROM PUBLIC;

-- The OS block map of a relation fork: one bit per block, set when cached.
CREATE FUNCTION cachectl.os_map(
    rel regclass,
    fork text DEFAULT NULL)
RETURNS varbit
AS 'MODULE_PATHNAME', 'pg_cachectl_os_map'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.os_map(regclass, text) IS
    'Returns the OS block map of a relation fork, one bit per block set when the block is in the page cache; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.os_map(regclass, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_map(regclass, text) TO pg_read_all_stats;

-- Load the blocks of a map into the OS page cache.
CREATE FUNCTION cachectl.os_restore(
    rel regclass,
    map varbit,
    fork text DEFAULT NULL,
    drop_others boolean DEFAULT false,
    max_mb_per_sec float8 DEFAULT NULL,
    wait boolean DEFAULT true,
    OUT relation regclass,
    OUT fork text,
    OUT os_blocks_loaded int8,
    OUT blocks_past_end int8,
    OUT os_pages_after int8,
    OUT os_pages_pending int8,
    OUT seconds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_restore'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean) IS
    'Loads the blocks set in a block map into the OS page cache, optionally dropping the rest of the fork first, counting blocks and OS pages; superuser until granted, and needs SELECT on the table.';
REVOKE ALL ON FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean) FROM PUBLIC;

-- A block map drawn as a strip of characters, with a legend.
CREATE FUNCTION cachectl.os_draw(
    map varbit,
    width int4 DEFAULT 64)
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_os_draw'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl.os_draw(varbit, int4) IS
    'Draws a block map as a strip of at most width characters with a legend; granted to pg_read_all_stats.';
REVOKE ALL ON FUNCTION cachectl.os_draw(varbit, int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.os_draw(varbit, int4) TO pg_read_all_stats;

-- ---- Both layers at once ----

-- Per relation fork: how many blocks each layer holds, and both (double-buffered).
CREATE FUNCTION cachectl.status(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT size_blocks int8,
    OUT shared_blocks int8,
    OUT os_blocks int8,
    OUT both_blocks int8,
    OUT shared_only_blocks int8,
    OUT os_only_blocks int8,
    OUT neither_blocks int8,
    OUT shared_dirty_blocks int8,
    OUT os_dirty_pages int8,
    OUT size_bytes int8,
    OUT shared_bytes int8,
    OUT os_bytes int8,
    OUT both_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_status'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.status(regclass, boolean) IS
    'Reports per relation fork the blocks in shared buffers, in the OS page cache, in both and in neither, block by block, with dirty counts and bytes; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.status(regclass, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.status(regclass, boolean) TO pg_read_all_stats;

-- Every relation of the database: size, shared, OS and double-cached bytes.
CREATE FUNCTION cachectl.database_status(
    OUT relation regclass,
    OUT kind text,
    OUT size_bytes int8,
    OUT shared_bytes int8,
    OUT os_bytes int8,
    OUT both_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_database_status'
LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION cachectl.database_status() IS
    'Reports every relation of the current database (for pg_read_all_stats; others see those they may SELECT): size, shared-buffer, OS-cache and double-cached bytes; granted to pg_read_all_stats.';
REVOKE ALL ON FUNCTION cachectl.database_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.database_status() TO pg_read_all_stats;

CREATE VIEW cachectl.database_status AS
    SELECT relation, kind, size_bytes, shared_bytes, os_bytes, both_bytes
    FROM cachectl.database_status();
COMMENT ON VIEW cachectl.database_status IS
    'Every relation of the current database (for pg_read_all_stats; others see those they may SELECT): size, shared-buffer, OS-cache and double-cached bytes.';
REVOKE ALL ON cachectl.database_status FROM PUBLIC;
GRANT SELECT ON cachectl.database_status TO pg_read_all_stats;

-- The same rows for snapshot() of a whole database (it reads the OS maps of
-- the relations found cached only), so that snapshot() needs no grant of
-- the report.
CREATE FUNCTION cachectl_internal.database_status()
RETURNS SETOF cachectl.database_status
AS 'MODULE_PATHNAME', 'pg_cachectl_snapshot_database_status'
LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION cachectl_internal.database_status() IS
    'Internal to snapshot(): the rows of cachectl.database_status(); for roles that may execute snapshot().';
GRANT EXECUTE ON FUNCTION cachectl_internal.database_status() TO PUBLIC;

-- The main fork of a relation as a two-layer strip.
CREATE FUNCTION cachectl.draw(
    rel regclass,
    width int4 DEFAULT 64)
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_draw'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.draw(regclass, int4) IS
    'Draws the main fork as a strip of at most width characters: # in both layers, s shared buffers only, o OS cache only; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.draw(regclass, int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.draw(regclass, int4) TO pg_read_all_stats;

-- Evict from shared buffers, then drop from the OS page cache.
CREATE FUNCTION cachectl.cold(
    rel regclass,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT shared_blocks_left int8,
    OUT os_pages_left int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_cold'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 4;
COMMENT ON FUNCTION cachectl.cold(regclass, boolean) IS
    'Evicts a relation set from shared buffers and drops it from the OS page cache, reporting the blocks and OS pages left per fork; superuser until granted, and needs SELECT on the table.';
REVOKE ALL ON FUNCTION cachectl.cold(regclass, boolean) FROM PUBLIC;

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
COMMENT ON FUNCTION cachectl.cold_database() IS
    'Evicts the current database from shared buffers and drops all its files from the OS page cache; acts on the whole database, so its EXECUTE grant alone covers it; superuser until granted.';
REVOKE ALL ON FUNCTION cachectl.cold_database() FROM PUBLIC;

-- Load a relation (or a block range) into the OS cache, shared buffers, or both.
CREATE FUNCTION cachectl.prewarm(
    rel regclass,
    target text DEFAULT 'both',
    fork text DEFAULT NULL,
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
COMMENT ON FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean) IS
    'Loads a relation fork or block range into the OS page cache, shared buffers (at most cachectl.prewarm_max_share of them) or both, counting blocks; superuser until granted, and needs SELECT on the table.';
REVOKE ALL ON FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean) FROM PUBLIC;

-- Internal, for snapshots: runs of blocks in shared buffers (one pass over the pool).
CREATE FUNCTION cachectl_internal.shared_block_runs(
    rels regclass[] DEFAULT NULL,
    OUT relation regclass,
    OUT fork text,
    OUT first_block int8,
    OUT block_count int8,
    OUT hot boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_block_runs'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION cachectl_internal.shared_block_runs(regclass[]) IS
    'Internal to snapshot(): the runs of blocks of relations in shared buffers, hot where their buffers'' usage counts were 2 or more; for roles that may execute snapshot(), and needs SELECT on the tables.';
GRANT EXECUTE ON FUNCTION cachectl_internal.shared_block_runs(regclass[]) TO PUBLIC;

-- Internal, for snapshots: runs of blocks of a fork in the OS page cache.
CREATE FUNCTION cachectl_internal.os_block_runs(
    rel regclass,
    fork text DEFAULT 'main',
    OUT first_block int8,
    OUT block_count int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_os_block_runs'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION cachectl_internal.os_block_runs(regclass, text) IS
    'Internal to snapshot(): the runs of blocks of a relation fork in the OS page cache; for roles that may execute snapshot(), and needs SELECT on the table.';
GRANT EXECUTE ON FUNCTION cachectl_internal.os_block_runs(regclass, text) TO PUBLIC;

-- Internal, for restores: load block runs into the target layer(s).
CREATE FUNCTION cachectl_internal.prewarm_runs(
    rel regclass,
    fork text,
    runs int8multirange,
    target text DEFAULT 'both',
    max_mb_per_sec float8 DEFAULT NULL,
    drop_os_copy boolean DEFAULT false,
    OUT shared_blocks_loaded int8,
    OUT os_blocks_loaded int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_prewarm_runs'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl_internal.prewarm_runs(regclass, text, int8multirange, text, float8, boolean) IS
    'Internal to restore(): loads runs of blocks into the OS page cache, shared buffers or both (drop_os_copy: into shared buffers only), counting blocks; for roles that may execute restore(), and needs SELECT on the table.';
GRANT EXECUTE ON FUNCTION cachectl_internal.prewarm_runs(regclass, text, int8multirange, text, float8, boolean) TO PUBLIC;

-- Internal, for snapshots: the cluster's system identifier.
CREATE FUNCTION cachectl_internal.system_identifier()
RETURNS text
AS 'MODULE_PATHNAME', 'pg_cachectl_system_identifier'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl_internal.system_identifier() IS
    'Internal to snapshots: the cluster''s system identifier, the same on its physical standbys.';
-- public: the snapshot table's policy compares with it as the querying role
-- (pg_control_system(), which says the same, is public too)
GRANT EXECUTE ON FUNCTION cachectl_internal.system_identifier() TO PUBLIC;

-- Shared-buffer residency per relation fork: the fork's size in blocks, how
-- many of them shared buffers hold, how many are dirty or pinned, their mean
-- usage count; the figures one compares with the OS cache also in bytes.
CREATE FUNCTION cachectl.shared_residency(
    rel regclass,
    fork text DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relation regclass,
    OUT fork text,
    OUT size_blocks int8,
    OUT size_bytes int8,
    OUT shared_blocks int8,
    OUT shared_bytes int8,
    OUT shared_dirty_blocks int8,
    OUT shared_dirty_bytes int8,
    OUT shared_pinned_blocks int8,
    OUT usage_count_avg float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_residency'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.shared_residency(regclass, text, boolean) IS
'Reports per relation fork how many of its blocks shared buffers hold, dirty and pinned, in blocks of block_size bytes and in bytes; granted to pg_read_all_stats, which reports on every relation (others need SELECT on the table).';
REVOKE ALL ON FUNCTION cachectl.shared_residency(regclass, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.shared_residency(regclass, text, boolean) TO pg_read_all_stats;

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
REVOKE ALL ON FUNCTION cachectl.evict_buffer(int4) FROM PUBLIC;

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
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean) FROM PUBLIC;

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
REVOKE ALL ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) FROM PUBLIC;

-- Every shared buffer of a database.
CREATE FUNCTION cachectl.evict_database(
    db name DEFAULT current_database(),
    OUT buffers_evicted int8,
    OUT buffers_flushed int8,
    OUT buffers_skipped int8,
    OUT buffers_failed int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_evict_database'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION cachectl.evict_database(name) IS
'Evicts every unpinned shared buffer of any database of the cluster, writing dirty ones first and leaving those whose write fails, counted in buffers; superuser-only until granted, and its EXECUTE grant alone covers every table.';
REVOKE ALL ON FUNCTION cachectl.evict_database(name) FROM PUBLIC;

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
REVOKE ALL ON FUNCTION cachectl.evict_all() FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- Cache snapshots: which blocks each layer holds, kept in a table so that
-- they replicate to standbys, survive restarts and are dumped; and a
-- procedure that loads them back, committing between relations so that it
-- never holds one snapshot or the locks of the whole set for long (on a hot
-- standby, replay would cancel it otherwise).  Both are PL/pgSQL over the
-- internal helpers shared_block_runs, os_block_runs and prewarm_runs and run
-- with the caller's privileges: the helpers check SELECT on each relation,
-- and row-level security shows a role only the rows of tables it may read.
-- ---------------------------------------------------------------------------

-- One row per label, relation, fork and cache layer holding at least one of
-- its blocks, the blocks as runs.  system_identifier names the cluster that
-- took it: restore() goes by block number there and on its physical
-- standbys, by name elsewhere.  owner_table is the table whose SELECT
-- privilege guards the row: the relation itself, an index's table, a TOAST
-- table's owner.  fork_blocks is the fork's size when the snapshot was taken.
CREATE TABLE cachectl.snapshot (
    label text NOT NULL,
    taken_at timestamptz NOT NULL,
    system_identifier text NOT NULL,
    relation oid NOT NULL,
    relation_name text NOT NULL,
    owner_table oid NOT NULL,
    owner_table_name text NOT NULL,
    relfilenode oid NOT NULL,
    fork text NOT NULL CHECK (fork IN ('main', 'fsm', 'vm', 'init')),
    layer text NOT NULL CHECK (layer IN ('shared', 'os')),
    -- a fork holds at most 2^32 - 1 blocks: bounded, the sums of a label's
    -- rows cannot overflow int8, whatever a granted role writes
    fork_blocks int8 NOT NULL CHECK (fork_blocks >= 0 AND fork_blocks <= 4294967295),
    block_count int8 NOT NULL CHECK (block_count >= 0),
    blocks int8multirange NOT NULL,
    -- of the blocks in shared buffers, those whose buffers were hot (a usage
    -- count of 2 or more: used again since read, or since the clock sweep
    -- last passed): a load that cannot bring back all of a relation brings
    -- these first
    hot_blocks int8multirange NOT NULL DEFAULT '{}',
    PRIMARY KEY (label, relation, fork, layer),
    CONSTRAINT snapshot_count_within_fork CHECK (block_count <= fork_blocks),
    -- restore() reads runs within the fork as it was; an edited row must not
    -- make it read (or chunk) more: bounded runs only (upper() of '{[0,)}'
    -- is NULL, which a CHECK lets through)
    CONSTRAINT snapshot_runs_within_fork
        CHECK (NOT pg_catalog.lower_inf(blocks) AND NOT pg_catalog.upper_inf(blocks)
               AND pg_catalog.lower(blocks) >= 0 AND pg_catalog.upper(blocks) <= fork_blocks),
    CONSTRAINT snapshot_hot_within_blocks
        CHECK (hot_blocks OPERATOR(pg_catalog.<@) blocks AND (layer = 'shared' OR pg_catalog.isempty(hot_blocks)))
);
COMMENT ON TABLE cachectl.snapshot IS
    'Cache snapshots: per label, relation, fork and layer, the blocks cached when cachectl.snapshot() ran, as runs of 8 kB block numbers; pg_read_all_stats may SELECT it, and sees only the rows of tables it may SELECT.';
REVOKE ALL ON TABLE cachectl.snapshot FROM PUBLIC;
GRANT SELECT ON TABLE cachectl.snapshot TO pg_read_all_stats;

SELECT pg_catalog.pg_extension_config_dump('cachectl.snapshot', '');

-- The runs of a fragmented pool make large values (about 17 bytes a run,
-- 500 kB for 28,000 runs): lz4 compresses them several times faster than
-- pglz (a changed 4 GiB snapshot spent a fifth of its CPU in pglz), where
-- the server was built with it.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_settings AS s
                WHERE s.name = 'default_toast_compression' AND 'lz4' = ANY (s.enumvals)) THEN
        ALTER TABLE cachectl.snapshot ALTER COLUMN blocks SET COMPRESSION lz4,
                                      ALTER COLUMN hot_blocks SET COMPRESSION lz4;
    END IF;
END
$$;

-- The autowarm worker on a standby asks every second whether the label has a
-- newer snapshot: its newest taken_at, one probe of this index whatever the
-- label's row count.
CREATE INDEX snapshot_label_taken_at ON cachectl.snapshot (label, taken_at);

-- The relation sets and guards of snapshots come from the C module every
-- function uses (which relations a list stands for, which table's SELECT
-- guards each): snapshot() and the policy below ask it rather than walk the
-- catalogs again.  Both functions return catalog facts only, all readable in
-- pg_class, and check SELECT where they expand a list: executable by PUBLIC,
-- as relation_guard is readable by it (the schema's USAGE is the gate), so
-- that the policy's check can run as the inserting role.
CREATE FUNCTION cachectl_internal.snapshot_relations(
    rels regclass[],
    cascade boolean,
    OUT relation oid,
    OUT relation_name text,
    OUT relfilenode oid,
    OUT relpersistence "char",
    OUT owner_table oid,
    OUT owner_table_name text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_snapshot_relations'
LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION cachectl_internal.snapshot_relations(regclass[], boolean) IS
    'Internal to snapshot(): the relations a relation set stands for (NULL: every relation of the database the caller may read), with their qualified names, file nodes and guarding tables; needs SELECT on each guarding table named.';

CREATE FUNCTION cachectl_internal.relation_guard_of(
    rel oid,
    OUT relation_name text,
    OUT relfilenode oid,
    OUT relkind "char",
    OUT relpersistence "char",
    OUT relisshared boolean,
    OUT owner_table oid,
    OUT owner_table_name text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_relation_guard_of'
LANGUAGE C STRICT STABLE PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION cachectl_internal.relation_guard_of(oid) IS
    'Internal to snapshots: a relation with storage, its qualified name and file node, and the table whose SELECT privilege guards its residency (no row for one without storage); catalog facts only.';

-- Every relation with storage: its qualified name, its file, and the table
-- whose SELECT privilege guards what is known of its pages (the relation
-- itself, an index's table, a TOAST table's owner), by OID and by name.
-- snapshot() records these, and the policy below lets a role insert a row
-- only if it says what they say.  relation is pg_class's own column, so a
-- lookup by it is an index scan and one call.
CREATE VIEW cachectl.relation_guard AS
SELECT c.oid AS relation, g.relation_name, g.relfilenode, g.relkind, g.relpersistence,
       g.relisshared, g.owner_table, g.owner_table_name
  FROM pg_catalog.pg_class AS c,
       LATERAL cachectl_internal.relation_guard_of(c.oid) AS g;
COMMENT ON VIEW cachectl.relation_guard IS
    'Internal to snapshots: each relation with storage, its qualified name and file node, and the table whose SELECT privilege guards its residency (itself, an index''s table, a TOAST table''s owner).';
-- catalog facts only, all readable in pg_class: the policy's check runs as
-- the inserting role
GRANT SELECT ON cachectl.relation_guard TO PUBLIC;

-- The one rule that says which relation a snapshot row names here: by OID
-- where this cluster (or its primary) recorded it and that OID still exists,
-- else by the name it had (a restored dump, a logical replica, a relation
-- made again).  The policy below finds a row's guard with it, and
-- restore_plan() the relation to load (src/pg/snapshot_match.c).  Catalog
-- facts only: the policy's check runs as the reading role.
CREATE FUNCTION cachectl_internal.snapshot_row_relation(system_identifier text, relation oid, relation_name text)
RETURNS regclass
AS 'MODULE_PATHNAME', 'pg_cachectl_snapshot_row_relation'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl_internal.snapshot_row_relation(text, oid, text) IS
    'Internal to snapshots: the relation a snapshot row names in this cluster, by OID where this cluster recorded it and it exists, else by name; NULL when none.';
GRANT EXECUTE ON FUNCTION cachectl_internal.snapshot_row_relation(text, oid, text) TO PUBLIC;

-- Residency is what the reports protect: a row is visible to a role that may
-- SELECT its table, found by the rule above (a rename changes nothing where
-- the OID holds).  has_table_privilege() of a relation found nowhere is
-- NULL: hidden.
ALTER TABLE cachectl.snapshot ENABLE ROW LEVEL SECURITY;
CREATE POLICY snapshot_of_readable_tables ON cachectl.snapshot
    USING (COALESCE(pg_catalog.has_table_privilege(
        cachectl_internal.snapshot_row_relation(system_identifier, owner_table, owner_table_name), 'SELECT'), false))
    -- A row a role (not the table's owner) writes must be one snapshot()
    -- would write for it: this cluster, a relation it may read, named and
    -- guarded as the catalogs say.  Otherwise it could make a superuser's
    -- restore() load a table it may not read, or probe through the primary
    -- key which rows of such tables exist (this check comes first).
    WITH CHECK (COALESCE(pg_catalog.has_table_privilege(owner_table, 'SELECT'), false)
        AND system_identifier = cachectl_internal.system_identifier()
        AND EXISTS (SELECT FROM cachectl.relation_guard AS g
                     WHERE g.relation = snapshot.relation
                       AND g.relation_name = snapshot.relation_name
                       AND g.relfilenode = snapshot.relfilenode
                       AND g.owner_table = snapshot.owner_table
                       AND g.owner_table_name = snapshot.owner_table_name));

-- Record which blocks of a relation set (NULL: every relation of the current
-- database the caller may read) each layer holds, replacing the label's
-- earlier rows of those relations: one walk per fork, one pass over the
-- buffer pool, rows that would read the same left alone
-- (src/pg/snapshot_record.c; the autowarm worker records with it too).
CREATE FUNCTION cachectl.snapshot(
    label text DEFAULT 'default',
    rels regclass[] DEFAULT NULL,
    cascade boolean DEFAULT false,
    OUT relations int8,
    OUT rows_recorded int8,
    OUT shared_blocks int8,
    OUT os_blocks int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_snapshot'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION cachectl.snapshot(text, regclass[], boolean) IS
    'Records under a label which blocks of a relation set (NULL: the whole database) are in shared buffers and the OS page cache, counting rows and 8 kB blocks; superuser until granted, with INSERT and DELETE on cachectl.snapshot and SELECT on the tables.';
REVOKE ALL ON FUNCTION cachectl.snapshot(text, regclass[], boolean) FROM PUBLIC;

-- What loading a snapshot back means, as a list of chunks: for each of the
-- label's relations the caller can see (numbered from the one with the fewest
-- recorded blocks), where it is now (by OID where this cluster recorded it,
-- remapped by share of the fork when rewritten or matched by name), or why it
-- is skipped; then its OS runs before its shared runs, clipped to the fork as
-- it is now and cut into chunks of a quarter of a second's loading at the
-- rate (32 MB at most); runs the snapshot had in shared buffers only carry
-- drop_os_copy; hot_runs says which blocks of a shared chunk were hot (NULL
-- where not known).  With missing_only, what is resident now is left out.  The
-- plan is the core's (src/core/restore_planner.hpp), the rows are read as the
-- caller (src/pg/snapshot_plan.c).  Internal: restore() and the autowarm
-- worker load what it plans, a chunk per transaction.
CREATE FUNCTION cachectl_internal.restore_plan(
    label text,
    target text DEFAULT 'both',
    max_mb_per_sec float8 DEFAULT NULL,
    missing_only boolean DEFAULT false)
RETURNS TABLE (
    relation_number int4,
    relation_name text,
    rel regclass,
    remapped boolean,
    skip_reason text,
    fork text,
    layer text,
    runs int8multirange,
    drop_os_copy boolean,
    hot_runs int8multirange)
AS 'MODULE_PATHNAME', 'pg_cachectl_restore_plan'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION cachectl_internal.restore_plan(text, text, float8, boolean) IS
    'Internal to restore() and the autowarm worker: the chunks (8 kB block runs per relation, fork and layer) that load a cache snapshot back, or why a relation is skipped; for roles that may execute restore().';
GRANT EXECUTE ON FUNCTION cachectl_internal.restore_plan(text, text, float8, boolean) TO PUBLIC;

-- An error about the caller's arguments, raised from PL/pgSQL without the
-- CONTEXT lines PL/pgSQL adds (the body's internals mean nothing to the user).
CREATE FUNCTION cachectl_internal.raise_for_user(sqlstate text, message text, hint text DEFAULT NULL,
                                                 detail text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'pg_cachectl_raise_for_user'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl_internal.raise_for_user(text, text, text, text) IS
    'Internal to snapshot() and grant_to(): raises an ERROR with no CONTEXT lines.';
GRANT EXECUTE ON FUNCTION cachectl_internal.raise_for_user(text, text, text, text) TO PUBLIC;

-- Load a snapshot back into the layers it recorded: the OS page cache of
-- every relation first, then shared buffers, a chunk at a time (a quarter of
-- a second's loading, as restore_plan() cut them), committing after each: it
-- never holds a snapshot or a lock for long, so replay on a hot standby need
-- not cancel it.  The loader is the autowarm worker's (src/pg/snapshot_load.c).
-- A procedure, so CALL it outside a transaction block.  Its results are
-- INOUT parameters because a procedure's OUT parameters cannot follow
-- parameters with defaults; what is passed in them is ignored.
CREATE PROCEDURE cachectl.restore(
    label text DEFAULT 'default',
    target text DEFAULT 'both',
    max_mb_per_sec float8 DEFAULT NULL,
    INOUT relations_warmed int8 DEFAULT NULL,
    INOUT relations_skipped int8 DEFAULT NULL,
    INOUT relations_remapped int8 DEFAULT NULL,
    INOUT shared_blocks_loaded int8 DEFAULT NULL,
    INOUT os_blocks_loaded int8 DEFAULT NULL,
    INOUT seconds float8 DEFAULT NULL,
    INOUT matched_by text DEFAULT NULL)
AS 'MODULE_PATHNAME', 'pg_cachectl_restore'
LANGUAGE C;
COMMENT ON PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text) IS
    'Loads a cache snapshot back into the OS page cache, then shared buffers (within cachectl.prewarm_max_share of them, hot blocks first), a chunk at a time, committing after each (so it works on a hot standby), counting relations and 8 kB blocks; superuser until granted, with SELECT on cachectl.snapshot and on the tables.';
REVOKE ALL ON PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text) FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- Metrics for scraping (monitoring/ ships the exporters' configurations):
-- one walk of the current database, one pass over the pool, no relation
-- locks, nothing written (so they run on a hot standby too).

-- Both layers of the current database, one row per relation kind.
CREATE FUNCTION cachectl.database_summary(
    OUT database name,
    OUT kind text,
    OUT relations int8,
    OUT size_bytes int8,
    OUT shared_bytes int8,
    OUT shared_dirty_bytes int8,
    OUT os_bytes int8,
    OUT both_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_database_summary'
LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION cachectl.database_summary() IS
    'Reports the current database per relation kind (table, index, toast, sequence, materialized_view, other): relations, file bytes, shared-buffer bytes (dirty too), OS-cache bytes and bytes cached in both, over every relation; granted to pg_read_all_stats (so pg_monitor), its EXECUTE grant alone covers it.';
REVOKE ALL ON FUNCTION cachectl.database_summary() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.database_summary() TO pg_read_all_stats;

CREATE VIEW cachectl.database_summary AS
    SELECT database, kind, relations, size_bytes, shared_bytes, shared_dirty_bytes,
           os_bytes, both_bytes
    FROM cachectl.database_summary();
COMMENT ON VIEW cachectl.database_summary IS
    'The current database per relation kind: relations, file bytes, shared-buffer bytes (dirty too), OS-cache bytes and bytes cached in both.';
REVOKE ALL ON cachectl.database_summary FROM PUBLIC;
GRANT SELECT ON cachectl.database_summary TO pg_read_all_stats;

-- For each layer ('both', 'os', 'shared'), the n relation forks holding the
-- most bytes in it.
CREATE FUNCTION cachectl.top_relations(
    n int4 DEFAULT 10,
    OUT database name,
    OUT schema name,
    OUT relation name,
    OUT kind text,
    OUT fork text,
    OUT layer text,
    OUT bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_top_relations'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 30;
COMMENT ON FUNCTION cachectl.top_relations(int4) IS
    'Reports for each layer (both, os, shared) the n relation forks of the current database holding the most bytes in it, in bytes; granted to pg_read_all_stats (so pg_monitor), which sees every relation (others: the tables they may SELECT).';
REVOKE ALL ON FUNCTION cachectl.top_relations(int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.top_relations(int4) TO pg_read_all_stats;

-- ---------------------------------------------------------------------------
-- Autowarm: the background worker (shared_preload_libraries = 'pg_cachectl',
-- cachectl.autowarm = on) that records the cache on a primary and loads it
-- back at start and on standbys, and what it reports.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cachectl.autowarm_status(
    OUT database text,
    OUT role text,
    OUT state text,
    OUT pid int4,
    OUT last_snapshot_at timestamptz,
    OUT last_snapshot_rows_written int8,
    OUT last_snapshot_wal_bytes int8,
    OUT last_snapshot_seconds float8,
    OUT start_load_started timestamptz,
    OUT start_load_finished timestamptz,
    OUT start_load_shared_blocks int8,
    OUT start_load_os_blocks int8,
    OUT start_load_relations_skipped int8,
    OUT start_load_seconds float8,
    OUT follow_load_started timestamptz,
    OUT follow_load_finished timestamptz,
    OUT follow_load_shared_blocks int8,
    OUT follow_load_os_blocks int8,
    OUT follow_load_relations_skipped int8,
    OUT follow_load_seconds float8,
    OUT snapshots_taken int8,
    OUT loads_done int8,
    OUT failures int8,
    OUT last_error text,
    OUT last_error_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_autowarm_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.autowarm_status() IS
    'The autowarm worker of each database: role, state, the last snapshot (rows and bytes of WAL written), the start load and the last follow load (8 kB blocks per layer, relations skipped), failures with the last message; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.autowarm_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.autowarm_status() TO pg_monitor;

CREATE VIEW cachectl.autowarm_status AS
SELECT * FROM cachectl.autowarm_status();
COMMENT ON VIEW cachectl.autowarm_status IS
    'The autowarm worker of each database (cachectl.autowarm_status()); readable by pg_monitor.';
REVOKE ALL ON cachectl.autowarm_status FROM PUBLIC;
GRANT SELECT ON cachectl.autowarm_status TO pg_monitor;

-- The gate of a planned switchover (a Patroni pre_promote hook, a repmgr
-- event script, before patronictl switchover): returns when this database's
-- autowarm worker has loaded the newest snapshot the server has (a standby:
-- the one replay brought; a primary: its start load), or at the timeout,
-- saying which.  It never fails for the state it finds: a hook must not stop
-- an unplanned failover.
CREATE FUNCTION cachectl.wait_warm(
    timeout interval DEFAULT '60 s',
    OUT warm boolean,
    OUT state text,
    OUT waited_seconds float8,
    OUT snapshot_taken_at timestamptz,
    OUT snapshot_age_seconds float8,
    OUT shared_blocks_loaded int8,
    OUT os_blocks_loaded int8,
    OUT shared_blocks_missing int8,
    OUT os_blocks_missing int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_wait_warm'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.wait_warm(interval) IS
    'Waits until the autowarm worker of this database has loaded the newest snapshot the server has, or the timeout passes; says which, with the snapshot''s age, the last load''s 8 kB blocks per layer and the snapshot''s blocks per layer not resident now; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.wait_warm(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.wait_warm(interval) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- Where reads came from (since 1.2).  explain_reads() runs one query as
-- EXPLAIN ANALYZE would, as the caller, and tells per plan node the blocks
-- served by shared buffers, by the OS page cache and by the device
-- (src/pg/read_tracking.c; the rule in src/core/read_sources.hpp).
-- ---------------------------------------------------------------------------
CREATE FUNCTION cachectl.explain_reads(
    query text,
    OUT node_id int4,
    OUT parent_node_id int4,
    OUT depth int4,
    OUT node_type text,
    OUT relation regclass,
    OUT index regclass,
    OUT loops int8,
    OUT shared_hit_blocks int8,
    OUT read_blocks int8,
    OUT os_hit_blocks int8,
    OUT device_read_blocks int8,
    OUT device_read_bytes int8,
    OUT read_seconds float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_explain_reads'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE ROWS 8;
COMMENT ON FUNCTION cachectl.explain_reads(text) IS
    'Runs one query as EXPLAIN ANALYZE would (as the caller, its results discarded) and returns per plan node, then for the whole query, the 8 kB blocks hit in shared buffers, read from the kernel, served by the OS page cache and read from the device, with the device bytes; NULL where the source cannot be known; pg_read_all_stats may call it.';
REVOKE ALL ON FUNCTION cachectl.explain_reads(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.explain_reads(text) TO pg_read_all_stats;

-- Where each relation's reads came from, cumulative: counted by every
-- backend while cachectl.track_reads is on (pg_cachectl in
-- shared_preload_libraries), one row per relation and database, and one per
-- database for the reads no relation count claims (kind 'other').
CREATE FUNCTION cachectl.relation_reads(
    OUT datid oid,
    OUT database text,
    OUT relid oid,
    OUT schema text,
    OUT relation text,
    OUT kind text,
    OUT shared_hit_blocks int8,
    OUT read_blocks int8,
    OUT os_hit_blocks int8,
    OUT device_read_blocks int8,
    OUT unsplit_read_blocks int8,
    OUT device_read_bytes int8,
    OUT counted_since timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_relation_reads'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.relation_reads() IS
    'Per relation of every database, since the last reset: 8 kB blocks hit in shared buffers, read from the kernel, of those served by the OS page cache, read from the device, or unsplit (a span of several relations and both sources), and the device bytes; counted while cachectl.track_reads is on; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.relation_reads() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.relation_reads() TO pg_monitor;

CREATE VIEW cachectl.relation_reads AS
SELECT * FROM cachectl.relation_reads();
COMMENT ON VIEW cachectl.relation_reads IS
    'Where each relation''s reads came from, cumulative (cachectl.relation_reads()); readable by pg_monitor.';
REVOKE ALL ON cachectl.relation_reads FROM PUBLIC;
GRANT SELECT ON cachectl.relation_reads TO pg_monitor;

CREATE FUNCTION cachectl.reset_relation_reads()
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'pg_cachectl_reset_relation_reads'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.reset_relation_reads() IS
    'Empties cachectl.relation_reads for every database and returns the time counting starts again from; superuser only unless granted.';
REVOKE ALL ON FUNCTION cachectl.reset_relation_reads() FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- Granting by role.  Each set below is what one kind of role needs; grant_to()
-- grants a set in one call and returns the statements it ran, revoke_from()
-- takes them back.  They run as the caller (who must hold the objects' grant
-- option: their owner or a superuser).  Every function, procedure, view and
-- table of schema cachectl is in at least one set (test/t/086 checks it), so
-- a new object cannot be left out silently.
-- ---------------------------------------------------------------------------
CREATE FUNCTION cachectl_internal.role_set_objects(role_set text)
RETURNS TABLE (privilege text, object text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $role_set_objects$
    SELECT o.privilege, o.object
      FROM (VALUES
        -- reader: every report, on every relation it may SELECT (pg_monitor,
        -- through pg_read_all_stats, reports on every relation)
        ('reader', 'USAGE', 'SCHEMA cachectl'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_engine()'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_page_size()'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_residency(regclass, text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_residency_total(regclass, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.shared_residency(regclass, text, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_map(regclass, text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_draw(varbit, int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.status(regclass, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.draw(regclass, int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.database_status()'),
        ('reader', 'SELECT', 'cachectl.database_status'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.database_summary()'),
        ('reader', 'SELECT', 'cachectl.database_summary'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.top_relations(int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.autowarm_status()'),
        ('reader', 'SELECT', 'cachectl.autowarm_status'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.wait_warm(interval)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.explain_reads(text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.relation_reads()'),
        ('reader', 'SELECT', 'cachectl.relation_reads'),
        ('reader', 'SELECT', 'cachectl.relation_guard'),
        -- operator: the actions on the relations it names (each needs SELECT
        -- on the relation too)
        ('operator', 'USAGE', 'SCHEMA cachectl'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.evict(regclass, text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.evict_relations(regclass[], text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_drop(regclass, text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.cold(regclass, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean)'),
        -- cluster_operator: the actions on every buffer of the database or
        -- the cluster, whatever their tables: for roles trusted with all
        ('cluster_operator', 'USAGE', 'SCHEMA cachectl'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_buffer(int4)'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_database(name)'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_all()'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.cold_database()'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.reset_relation_reads()'),
        -- snapshots: take and restore them (rows and loads of the tables it
        -- may SELECT only)
        ('snapshots', 'USAGE', 'SCHEMA cachectl'),
        ('snapshots', 'EXECUTE', 'FUNCTION cachectl.snapshot(text, regclass[], boolean)'),
        ('snapshots', 'EXECUTE', 'PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)'),
        ('snapshots', 'SELECT, INSERT, DELETE', 'cachectl.snapshot'),
        -- autowarm: what cachectl.autowarm_role needs (it also needs LOGIN):
        -- the snapshots, and os_prefetch, with which it advises the OS layer
        ('autowarm', 'USAGE', 'SCHEMA cachectl'),
        ('autowarm', 'EXECUTE', 'FUNCTION cachectl.snapshot(text, regclass[], boolean)'),
        ('autowarm', 'EXECUTE', 'PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)'),
        ('autowarm', 'SELECT, INSERT, DELETE', 'cachectl.snapshot'),
        ('autowarm', 'EXECUTE', 'FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean)')
      ) AS o (role_set, privilege, object)
     WHERE o.role_set = role_set_objects.role_set
$role_set_objects$;
COMMENT ON FUNCTION cachectl_internal.role_set_objects(text) IS
    'Internal to role_set_apply(): the privileges of a set (reader, operator, cluster_operator, snapshots, autowarm).';

CREATE FUNCTION cachectl_internal.role_set_apply(role regrole, role_set text, granting boolean)
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $role_set_apply$
DECLARE
    v_object record;
    v_statement text;
    v_found boolean := false;
BEGIN
    IF role IS NULL OR role_set IS NULL THEN
        PERFORM cachectl_internal.raise_for_user('22004', 'role and role_set must not be null');
    END IF;
    FOR v_object IN SELECT * FROM cachectl_internal.role_set_objects(role_set) LOOP
        v_found := true;
        -- the schema's USAGE stays on a revoke: another set may need it
        CONTINUE WHEN NOT granting AND v_object.privilege = 'USAGE';
        v_statement := CASE WHEN granting
            THEN format('GRANT %s ON %s TO %s', v_object.privilege, v_object.object, role)
            ELSE format('REVOKE %s ON %s FROM %s', v_object.privilege, v_object.object, role)
        END;
        EXECUTE v_statement;
        RETURN NEXT v_statement;
    END LOOP;
    IF NOT v_found THEN
        PERFORM cachectl_internal.raise_for_user('22023', format('unknown role set "%s"', role_set),
            'The sets are reader, operator, cluster_operator, snapshots and autowarm.');
    END IF;
END
$role_set_apply$;
COMMENT ON FUNCTION cachectl_internal.role_set_apply(regrole, text, boolean) IS
    'Internal to grant_to() and revoke_from(): runs the GRANT or REVOKE statements of a set for a role and returns them.';

-- Grants a set of privileges to a role in one call; returns the statements run.
CREATE FUNCTION cachectl.grant_to(role regrole, role_set text)
RETURNS SETOF text
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $grant_to$ SELECT * FROM cachectl_internal.role_set_apply(role, role_set, true) $grant_to$;
COMMENT ON FUNCTION cachectl.grant_to(regrole, text) IS
    'Grants a role one set of privileges (reader, operator, cluster_operator, snapshots, autowarm) and returns the statements run; as the caller, who must hold the grant option (owner or superuser).';
REVOKE ALL ON FUNCTION cachectl.grant_to(regrole, text) FROM PUBLIC;

-- Takes a set back; returns the statements run.
CREATE FUNCTION cachectl.revoke_from(role regrole, role_set text)
RETURNS SETOF text
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $revoke_from$ SELECT * FROM cachectl_internal.role_set_apply(role, role_set, false) $revoke_from$;
COMMENT ON FUNCTION cachectl.revoke_from(regrole, text) IS
    'Revokes from a role one set of privileges that grant_to() grants (USAGE on schema cachectl stays: another set may need it) and returns the statements run; as the caller. A privilege of two sets is revoked with either.';
REVOKE ALL ON FUNCTION cachectl.revoke_from(regrole, text) FROM PUBLIC;

-- 1.4
-- What more (or less) memory would buy: the shared-buffer hit ratio other
-- pool sizes would have given the reads of the window, predicted by the
-- sampler that cachectl.track_advice turns on (pg_cachectl in
-- shared_preload_libraries), anchored at 1x to pg_stat_database.
CREATE FUNCTION cachectl.shared_buffers_advice(
    sizes int8[] DEFAULT NULL,
    OUT pool_bytes int8,
    OUT size_ratio float8,
    OUT hit_ratio float8,
    OUT read_blocks_per_second float8,
    OUT device_read_blocks_per_second float8,
    OUT observed_seconds float8,
    OUT basis text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_shared_buffers_advice'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 5;
COMMENT ON FUNCTION cachectl.shared_buffers_advice(int8[]) IS
    'Per pool size in bytes (NULL: 1/4, 1/2, 1, 2 and 4 times shared_buffers): the predicted shared-buffer hit ratio of the window, 8 kB blocks read per second, of those from the device (with cachectl.track_reads), the window''s seconds and what the figure rests on; needs cachectl.track_advice; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.shared_buffers_advice(int8[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.shared_buffers_advice(int8[]) TO pg_monitor;

CREATE VIEW cachectl.shared_buffers_advice AS
SELECT * FROM cachectl.shared_buffers_advice();
COMMENT ON VIEW cachectl.shared_buffers_advice IS
    'The sizing advice at 1/4, 1/2, 1, 2 and 4 times shared_buffers (cachectl.shared_buffers_advice()); readable by pg_monitor.';
REVOKE ALL ON cachectl.shared_buffers_advice FROM PUBLIC;
GRANT SELECT ON cachectl.shared_buffers_advice TO pg_monitor;

CREATE FUNCTION cachectl.relation_advice(
    n int4 DEFAULT 10,
    OUT relation regclass,
    OUT kind text,
    OUT pool_bytes int8,
    OUT size_ratio float8,
    OUT hit_ratio float8,
    OUT read_blocks_per_second float8,
    OUT read_blocks_saved_per_second float8,
    OUT device_read_blocks_per_second float8,
    OUT os_refault_blocks_per_second float8,
    OUT os_recently_evicted_blocks int8,
    OUT observed_seconds float8,
    OUT basis text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_cachectl_relation_advice'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 50;
COMMENT ON FUNCTION cachectl.relation_advice(int4) IS
    'The n relations of this database (and shared catalogs) a larger pool would help most, each at 1/4, 1/2, 1, 2 and 4 times shared_buffers: predicted hit ratio, 8 kB blocks read and saved per second, device reads, the reads a larger page cache would have served (the kernel''s recently evicted pages; NULL where it cannot tell); relations the caller may not read are left out; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.relation_advice(int4) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.relation_advice(int4) TO pg_monitor;

CREATE FUNCTION cachectl.advice_status(
    OUT state text,
    OUT sampler_pid int4,
    OUT window_started timestamptz,
    OUT window_reason text,
    OUT observed_seconds float8,
    OUT sample_rate float8,
    OUT sampled_blocks int8,
    OUT followed_buffers int8,
    OUT round_interval_ms float8,
    OUT told_accesses int8,
    OUT sampler_cpu_seconds float8,
    OUT memory_bytes int8,
    OUT last_error text,
    OUT last_error_at timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_advice_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.advice_status() IS
    'The sizing advice''s sampler: its state, window (start, reason, seconds), the share of blocks it follows, its round, CPU seconds, memory in bytes and last error; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.advice_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.advice_status() TO pg_monitor;

CREATE VIEW cachectl.advice_status AS
SELECT * FROM cachectl.advice_status();
COMMENT ON VIEW cachectl.advice_status IS
    'The sizing advice''s sampler (cachectl.advice_status()); readable by pg_monitor.';
REVOKE ALL ON cachectl.advice_status FROM PUBLIC;
GRANT SELECT ON cachectl.advice_status TO pg_monitor;

CREATE FUNCTION cachectl.reset_advice()
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'pg_cachectl_reset_advice'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.reset_advice() IS
    'Asks the sampler to start a new window of the sizing advice (within its next round) and returns when it was asked; superuser only unless granted.';
REVOKE ALL ON FUNCTION cachectl.reset_advice() FROM PUBLIC;

-- The sizing reports join the reader set, their reset the cluster operator's.
CREATE OR REPLACE FUNCTION cachectl_internal.role_set_objects(role_set text)
RETURNS TABLE (privilege text, object text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $role_set_objects$
    SELECT o.privilege, o.object
      FROM (VALUES
        -- reader: every report, on every relation it may SELECT (pg_monitor,
        -- through pg_read_all_stats, reports on every relation)
        ('reader', 'USAGE', 'SCHEMA cachectl'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_engine()'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_page_size()'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_residency(regclass, text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_residency_total(regclass, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.shared_residency(regclass, text, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_map(regclass, text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.os_draw(varbit, int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.status(regclass, boolean)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.draw(regclass, int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.database_status()'),
        ('reader', 'SELECT', 'cachectl.database_status'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.database_summary()'),
        ('reader', 'SELECT', 'cachectl.database_summary'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.top_relations(int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.autowarm_status()'),
        ('reader', 'SELECT', 'cachectl.autowarm_status'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.wait_warm(interval)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.explain_reads(text)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.relation_reads()'),
        ('reader', 'SELECT', 'cachectl.relation_reads'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.shared_buffers_advice(int8[])'),
        ('reader', 'SELECT', 'cachectl.shared_buffers_advice'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.relation_advice(int4)'),
        ('reader', 'EXECUTE', 'FUNCTION cachectl.advice_status()'),
        ('reader', 'SELECT', 'cachectl.advice_status'),
        ('reader', 'SELECT', 'cachectl.relation_guard'),
        -- operator: the actions on the relations it names (each needs SELECT
        -- on the relation too)
        ('operator', 'USAGE', 'SCHEMA cachectl'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.evict(regclass, text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.evict_relations(regclass[], text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_drop(regclass, text, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.cold(regclass, boolean)'),
        ('operator', 'EXECUTE', 'FUNCTION cachectl.prewarm(regclass, text, text, int8, int8, float8, boolean)'),
        -- cluster_operator: the actions on every buffer of the database or
        -- the cluster, whatever their tables: for roles trusted with all
        ('cluster_operator', 'USAGE', 'SCHEMA cachectl'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_buffer(int4)'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_database(name)'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.evict_all()'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.cold_database()'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.reset_relation_reads()'),
        ('cluster_operator', 'EXECUTE', 'FUNCTION cachectl.reset_advice()'),
        -- snapshots: take and restore them (rows and loads of the tables it
        -- may SELECT only)
        ('snapshots', 'USAGE', 'SCHEMA cachectl'),
        ('snapshots', 'EXECUTE', 'FUNCTION cachectl.snapshot(text, regclass[], boolean)'),
        ('snapshots', 'EXECUTE', 'PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)'),
        ('snapshots', 'SELECT, INSERT, DELETE', 'cachectl.snapshot'),
        -- autowarm: what cachectl.autowarm_role needs (it also needs LOGIN):
        -- the snapshots, and os_prefetch, with which it advises the OS layer
        ('autowarm', 'USAGE', 'SCHEMA cachectl'),
        ('autowarm', 'EXECUTE', 'FUNCTION cachectl.snapshot(text, regclass[], boolean)'),
        ('autowarm', 'EXECUTE', 'PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)'),
        ('autowarm', 'SELECT, INSERT, DELETE', 'cachectl.snapshot'),
        ('autowarm', 'EXECUTE', 'FUNCTION cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean)')
      ) AS o (role_set, privilege, object)
     WHERE o.role_set = role_set_objects.role_set
$role_set_objects$;
COMMENT ON FUNCTION cachectl_internal.role_set_objects(text) IS
    'Internal to role_set_apply(): the privileges of a set (reader, operator, cluster_operator, snapshots, autowarm).';
