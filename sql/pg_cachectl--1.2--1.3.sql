/* pg_cachectl 1.2 to 1.3 (never edited once released) */

\echo Use "ALTER EXTENSION pg_cachectl UPDATE TO '1.3'" to load this file. \quit

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

-- relation_reads joins the reader set, its reset the cluster operator's.
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
