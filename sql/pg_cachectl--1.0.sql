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
REVOKE ALL ON FUNCTION cachectl.shared_residency(regclass, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.shared_residency(regclass, text, boolean) TO pg_read_all_stats;

-- Actions: superuser only until granted.
REVOKE ALL ON FUNCTION cachectl.evict_buffer(int4) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_relations(regclass[], text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_database(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION cachectl.evict_all() FROM PUBLIC;
