-- The per-relation read counters' SQL surface: the view's columns, the
-- settings and who may change them, the privileges, and the error a server
-- without pg_cachectl in shared_preload_libraries gives (pg_regress's
-- server has none).  What they count is measured by
-- test/t/090_relation_reads.pl, on a server that preloads the library.
CREATE EXTENSION pg_cachectl;

-- the view's columns and their types
SELECT a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_attribute AS a
 WHERE a.attrelid = 'cachectl.relation_reads'::regclass AND a.attnum > 0
 ORDER BY a.attnum;

-- the settings: track_reads a superuser's, the bound fixed at server start
LOAD 'pg_cachectl';
SELECT name, setting, context, vartype, min_val, max_val
  FROM pg_settings WHERE name IN ('cachectl.track_reads', 'cachectl.track_reads_max_relations')
 ORDER BY name;

-- without shared memory: 55000 with the way out, for the view and the reset
SELECT * FROM cachectl.relation_reads;
\echo :LAST_ERROR_SQLSTATE
SELECT cachectl.reset_relation_reads();
\echo :LAST_ERROR_SQLSTATE

-- privileges: pg_monitor reads, nobody else by default; only a superuser resets
CREATE ROLE regress_rr_plain;
SELECT r AS role,
       has_function_privilege(r, 'cachectl.relation_reads()', 'EXECUTE') AS call,
       has_table_privilege(r, 'cachectl.relation_reads', 'SELECT') AS read_view,
       has_function_privilege(r, 'cachectl.reset_relation_reads()', 'EXECUTE') AS reset
  FROM unnest(ARRAY['pg_monitor', 'pg_read_all_stats', 'regress_rr_plain']) AS r;
SET ROLE regress_rr_plain;
\set VERBOSITY sqlstate
SELECT * FROM cachectl.relation_reads;
SELECT cachectl.reset_relation_reads();
SET cachectl.track_reads = on;
\set VERBOSITY default
RESET ROLE;

-- the reader set gives the view (cachectl.role_set_apply)
SELECT privilege, object FROM cachectl_internal.role_set_objects('reader')
 WHERE object LIKE '%relation_reads%' ORDER BY object;

DROP ROLE regress_rr_plain;
DROP EXTENSION pg_cachectl;
