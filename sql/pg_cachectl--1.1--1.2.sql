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
