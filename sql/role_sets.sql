-- Granting by role (grant_to / revoke_from), the internal helpers out of the
-- user's schema and callable only through their entry points, and reports
-- on every relation for pg_read_all_stats while actions still need SELECT.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE rs_open (id int PRIMARY KEY, pad text);
INSERT INTO rs_open SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;
CREATE TABLE rs_secret (id int PRIMARY KEY, pad text);
INSERT INTO rs_secret SELECT g, repeat('y', 100) FROM generate_series(1, 2000) g;
CHECKPOINT;

-- every object of schema cachectl is in a set (grant_to and revoke_from are
-- for superusers and owners): a new object cannot be left out silently
SELECT o.object AS object_in_no_set
  FROM (SELECT 'FUNCTION ' || p.oid::regprocedure::text AS object
          FROM pg_proc AS p
         WHERE p.pronamespace = 'cachectl'::regnamespace AND p.prokind = 'f'
           AND p.proname NOT IN ('grant_to', 'revoke_from')
        UNION ALL
        SELECT 'PROCEDURE ' || p.oid::regprocedure::text
          FROM pg_proc AS p
         WHERE p.pronamespace = 'cachectl'::regnamespace AND p.prokind = 'p'
        UNION ALL
        SELECT 'cachectl.' || c.relname
          FROM pg_class AS c
         WHERE c.relnamespace = 'cachectl'::regnamespace AND c.relkind IN ('r', 'v')) AS o
 WHERE NOT EXISTS (
        SELECT FROM (VALUES ('reader'), ('operator'), ('cluster_operator'), ('snapshots'), ('autowarm')) AS s (name),
               LATERAL cachectl_internal.role_set_objects(s.name) AS r
         WHERE CASE WHEN r.object ~ '^(FUNCTION|PROCEDURE) '
                    THEN split_part(r.object, ' ', 1) || ' ' ||
                         to_regprocedure(substr(r.object, strpos(r.object, ' ') + 1))::text
                    ELSE r.object END = o.object)
 ORDER BY 1;

-- every object a set names exists, with that signature
SELECT s.name, r.object AS unresolved
  FROM (VALUES ('reader'), ('operator'), ('cluster_operator'), ('snapshots'), ('autowarm')) AS s (name),
       LATERAL cachectl_internal.role_set_objects(s.name) AS r
 WHERE CASE WHEN r.object ~ '^(FUNCTION|PROCEDURE) '
            THEN to_regprocedure(substr(r.object, strpos(r.object, ' ') + 1)) IS NULL
            WHEN r.object ~ '^SCHEMA ' THEN to_regnamespace(substr(r.object, 8)) IS NULL
            ELSE to_regclass(r.object) IS NULL END;

-- the reader set is what pg_read_all_stats and pg_monitor hold
CREATE ROLE regress_rs_reader;
SELECT count(*) AS reader_statements FROM cachectl.grant_to('regress_rs_reader', 'reader');
SELECT p.oid::regprocedure AS reader_differs
  FROM pg_proc AS p
 WHERE p.pronamespace = 'cachectl'::regnamespace
   AND has_function_privilege('regress_rs_reader', p.oid, 'EXECUTE')
       IS DISTINCT FROM (has_function_privilege('pg_read_all_stats', p.oid, 'EXECUTE')
                         OR has_function_privilege('pg_monitor', p.oid, 'EXECUTE'))
 ORDER BY 1::text;

-- a role granted the snapshots set alone takes and restores a snapshot:
-- no grant of an internal helper, and only the tables it may SELECT
CREATE ROLE regress_rs_snap;
SELECT * FROM cachectl.grant_to('regress_rs_snap', 'snapshots');
GRANT SELECT ON rs_open TO regress_rs_snap;
SELECT count(*) FROM rs_open;
SET ROLE regress_rs_snap;
SELECT relations FROM cachectl.snapshot('rs', ARRAY['rs_open'::regclass], cascade => true);
SELECT DISTINCT relation_name FROM cachectl.snapshot WHERE label = 'rs' AND relation_name !~ '^pg_toast' ORDER BY 1;
-- the whole database: what it may read, its own tables and the catalogs
SELECT relations > 0 AS recorded FROM cachectl.snapshot('rs_all');
SELECT count(*) AS secret_rows FROM cachectl.snapshot WHERE label = 'rs_all' AND relation_name ~ 'rs_secret';
CALL cachectl.restore('rs', 'os') \gset
SELECT :relations_warmed AS relations_warmed, :relations_skipped AS relations_skipped, :'matched_by' AS matched_by;
RESET ROLE;
SELECT count(*) AS secret_rows_anyone FROM cachectl.snapshot WHERE label = 'rs_all' AND relation_name ~ 'rs_secret';
-- nor may it name what it may not read
SET ROLE regress_rs_snap;
SELECT relations FROM cachectl.snapshot('rs', ARRAY['rs_secret'::regclass]);
RESET ROLE;

-- the helpers: not in the user's schema; a role without the entry point's
-- grant gets 42501 from each, whatever other grants it has
SELECT count(*) AS helpers_in_cachectl
  FROM pg_proc
 WHERE pronamespace = 'cachectl'::regnamespace
   AND proname IN ('os_block_runs', 'prewarm_runs', 'restore_plan', 'shared_block_runs',
                   'snapshot_relations', 'relation_guard_of', 'system_identifier');
\set VERBOSITY default
SET ROLE regress_rs_reader;
SELECT count(*) FROM cachectl_internal.os_block_runs('rs_open', 'main');
SELECT count(*) FROM cachectl_internal.shared_block_runs(ARRAY['rs_open'::regclass]);
SELECT count(*) FROM cachectl_internal.database_status();
SELECT count(*) FROM cachectl_internal.restore_plan('rs', 'both', NULL, false);
SELECT * FROM cachectl_internal.prewarm_runs('rs_open', 'main', '{[0,1)}', 'os', NULL, false);
RESET ROLE;
\set VERBOSITY sqlstate
-- catalog facts stay callable by anyone
SET ROLE regress_rs_reader;
SELECT relation_name FROM cachectl_internal.relation_guard_of('rs_open'::regclass);
SELECT length(cachectl_internal.system_identifier()) > 0 AS has_identifier;
RESET ROLE;

-- reports: pg_read_all_stats (and so pg_monitor) sees every relation; a role
-- holding only the reader set sees those it may SELECT
CREATE ROLE regress_rs_monitor IN ROLE pg_monitor;
SET ROLE regress_rs_monitor;
SELECT relation FROM cachectl.os_residency_total('rs_secret') ORDER BY 1;
SELECT count(*) AS forks FROM cachectl.status('rs_secret', true);
SELECT count(*) > 0 AS shared_row FROM cachectl.shared_residency('rs_secret');
SELECT count(*) AS secret_rows FROM cachectl.database_status WHERE relation IN ('rs_secret'::regclass, 'rs_secret_pkey'::regclass);
-- the per-kind sums and the per-relation rows add up alike
SELECT (SELECT sum(size_bytes) FROM cachectl.database_status)
     = (SELECT sum(size_bytes) FROM cachectl.database_summary) AS status_adds_up_to_summary;
-- actions still need SELECT on the relation
SELECT * FROM cachectl.evict('rs_secret');
RESET ROLE;
SELECT count(*) AS operator_statements FROM cachectl.grant_to('regress_rs_monitor', 'operator');
SET ROLE regress_rs_monitor;
SELECT * FROM cachectl.evict('rs_secret');
SELECT * FROM cachectl.evict_relations(ARRAY['rs_secret'::regclass]);
SELECT * FROM cachectl.os_drop('rs_secret');
SELECT * FROM cachectl.os_prefetch('rs_secret');
SELECT * FROM cachectl.os_restore('rs_secret', B'1', 'main');
SELECT * FROM cachectl.cold('rs_secret');
SELECT * FROM cachectl.prewarm('rs_secret');
-- the index alike (its table guards it)
SELECT * FROM cachectl.evict('rs_secret_pkey');
-- and a snapshot records only what it may SELECT, not what it may report
SELECT relations FROM cachectl.snapshot('rs_monitor', ARRAY['rs_secret'::regclass]);
RESET ROLE;
SET ROLE regress_rs_reader;
SELECT count(*) FROM cachectl.os_residency_total('rs_secret');
SELECT count(*) AS secret_rows FROM cachectl.database_status WHERE relation IN ('rs_secret'::regclass, 'rs_secret_pkey'::regclass);
RESET ROLE;

-- revoke_from takes a set back (the schema's USAGE stays)
SELECT * FROM cachectl.revoke_from('regress_rs_snap', 'snapshots');
SELECT has_function_privilege('regress_rs_snap', 'cachectl.snapshot(text, regclass[], boolean)', 'EXECUTE') AS may_snapshot,
       has_schema_privilege('regress_rs_snap', 'cachectl', 'USAGE') AS schema_usage;
-- docs/REFERENCE.md's GRANT by name alone works for the procedure and the functions
GRANT EXECUTE ON PROCEDURE cachectl.restore TO regress_rs_snap;
GRANT EXECUTE ON FUNCTION cachectl.snapshot TO regress_rs_snap;
SELECT has_function_privilege('regress_rs_snap', 'cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)', 'EXECUTE') AS may_restore;
REVOKE EXECUTE ON PROCEDURE cachectl.restore FROM regress_rs_snap;
REVOKE EXECUTE ON FUNCTION cachectl.snapshot FROM regress_rs_snap;
-- bad input
SELECT * FROM cachectl.grant_to('regress_rs_snap', 'writer');
SELECT * FROM cachectl.grant_to(NULL, 'reader');
SELECT * FROM cachectl.grant_to('regress_rs_snap', NULL);
SELECT * FROM cachectl.grant_to('no_such_role', 'reader');
-- not for PUBLIC
SET ROLE regress_rs_snap;
SELECT * FROM cachectl.grant_to('regress_rs_snap', 'reader');
RESET ROLE;

SELECT count(*) AS revoked FROM cachectl.revoke_from('regress_rs_reader', 'reader');
REVOKE ALL ON SCHEMA cachectl FROM regress_rs_reader, regress_rs_snap, regress_rs_monitor;
SELECT count(*) AS operator_revoked FROM cachectl.revoke_from('regress_rs_monitor', 'operator');
DROP TABLE rs_open, rs_secret;
DELETE FROM cachectl.snapshot;
DROP ROLE regress_rs_reader, regress_rs_snap, regress_rs_monitor;
DROP EXTENSION pg_cachectl;
