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
