/* pg_cachectl 1.1 to 1.2 (never edited once released) */

\echo Use "ALTER EXTENSION pg_cachectl UPDATE TO '1.2'" to load this file. \quit

-- wait_warm() also says what is missing: the blocks of the newest snapshot
-- not resident now, per layer.  New result columns mean a new function: the
-- grants the old one had (pg_monitor's, and any a DBA gave) are kept, each
-- given again in the order the old ACL listed them.
DO $keep_grants$
BEGIN
    PERFORM set_config('cachectl_update.wait_warm_acl',
                       coalesce((SELECT proacl::text FROM pg_proc
                                  WHERE oid = 'cachectl.wait_warm(interval)'::regprocedure), ''),
                       true);
END
$keep_grants$;

DROP FUNCTION cachectl.wait_warm(interval);
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

DO $give_grants_back$
DECLARE
    v_grant record;
BEGIN
    FOR v_grant IN
        SELECT a.grantee, a.is_grantable
          FROM unnest(nullif(current_setting('cachectl_update.wait_warm_acl'), '')::aclitem[])
               WITH ORDINALITY AS item (acl, position)
         CROSS JOIN LATERAL aclexplode(ARRAY[item.acl]) AS a
         WHERE a.privilege_type = 'EXECUTE'
           AND a.grantee <> (SELECT proowner FROM pg_proc
                              WHERE oid = 'cachectl.wait_warm(interval)'::regprocedure)
         ORDER BY item.position
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION cachectl.wait_warm(interval) TO %s%s',
                       CASE WHEN v_grant.grantee = 0 THEN 'PUBLIC' ELSE v_grant.grantee::regrole::text END,
                       CASE WHEN v_grant.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
END
$give_grants_back$;

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

-- explain_reads() joins the reader set.
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
