/* pg_cachectl 1.3 to 1.4 (never edited once released) */

\echo Use "ALTER EXTENSION pg_cachectl UPDATE TO '1.4'" to load this file. \quit

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
