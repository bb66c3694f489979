/* pg_cachectl 1.0 to 1.1 (never edited once released) */

\echo Use "ALTER EXTENSION pg_cachectl UPDATE TO '1.1'" to load this file. \quit

-- restore() loads through the loader the autowarm worker uses, in C
-- (src/pg/snapshot_load.c): the OS page cache of every relation first, then
-- shared buffers within cachectl.prewarm_max_share of them, hot blocks first
-- when they do not all fit, paced as a whole.  The PL/pgSQL body and the
-- check it called first go.
CREATE OR REPLACE PROCEDURE cachectl.restore(
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

DROP FUNCTION cachectl_internal.require_own_transaction(text);

-- snapshot() records in C (src/pg/snapshot_record.c): one walk per fork and
-- one pass over the buffer pool, the rows written by two statements; the
-- autowarm worker records with it too.
CREATE OR REPLACE FUNCTION cachectl.snapshot(
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

-- The autowarm worker on a standby asks every second whether the label has a
-- newer snapshot: its newest taken_at, one probe of this index whatever the
-- label's row count.
CREATE INDEX snapshot_label_taken_at ON cachectl.snapshot (label, taken_at);

-- The matching rule in one function (src/pg/snapshot_match.c): the policy
-- finds a row's guard with it, restore_plan() the relation to load.
CREATE FUNCTION cachectl_internal.snapshot_row_relation(system_identifier text, relation oid, relation_name text)
RETURNS regclass
AS 'MODULE_PATHNAME', 'pg_cachectl_snapshot_row_relation'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION cachectl_internal.snapshot_row_relation(text, oid, text) IS
    'Internal to snapshots: the relation a snapshot row names in this cluster, by OID where this cluster recorded it and it exists, else by name; NULL when none.';
GRANT EXECUTE ON FUNCTION cachectl_internal.snapshot_row_relation(text, oid, text) TO PUBLIC;

ALTER POLICY snapshot_of_readable_tables ON cachectl.snapshot
    USING (COALESCE(pg_catalog.has_table_privilege(
        cachectl_internal.snapshot_row_relation(system_identifier, owner_table, owner_table_name), 'SELECT'), false));

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
    OUT os_blocks_loaded int8)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_cachectl_wait_warm'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION cachectl.wait_warm(interval) IS
    'Waits until the autowarm worker of this database has loaded the newest snapshot the server has, or the timeout passes; says which, with the snapshot''s age and the last load''s 8 kB blocks per layer; pg_monitor may call it.';
REVOKE ALL ON FUNCTION cachectl.wait_warm(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cachectl.wait_warm(interval) TO pg_monitor;

-- the reader set grants wait_warm() too
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
