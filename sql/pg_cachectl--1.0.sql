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
REVOKE ALL ON FUNCTION cachectl.shared_residency(regclass, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.shared_residency(regclass, text, boolean) TO pg_read_all_stats;

-- Actions: superuser only until granted.  Those on relations also need
-- SELECT on the table; evict_buffer, evict_database and evict_all act on the
-- whole cluster and are covered by their EXECUTE grant alone.
REVOKE ALL ON FUNCTION cachectl.evict_buffer(int4) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_database(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_all() FROM PUBLIC;
