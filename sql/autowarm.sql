-- Autowarm: its settings (bounds, SQLSTATEs, reloadable only), and the
-- status view's shape and privileges.  The regression server does not
-- preload pg_cachectl, so the worker cannot run here: the view says so.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

SELECT name, setting, unit, context, vartype, min_val, max_val, boot_val
  FROM pg_settings WHERE name LIKE 'cachectl.autowarm%' ORDER BY name;

-- a reload, not a session, changes them (55P02)
SET cachectl.autowarm = on;
SET cachectl.autowarm_interval = '1min';
SET cachectl.autowarm_label = 'nightly';
SET cachectl.autowarm_max_mb_per_sec = 100;
SET cachectl.autowarm_max_share = 1;
SET cachectl.autowarm_follow = off;
SET cachectl.autowarm_role = 'postgres';

-- out of bounds, of the wrong type, an empty label (22023)
ALTER SYSTEM SET cachectl.autowarm_interval = -1;
ALTER SYSTEM SET cachectl.autowarm_interval = '8d';
ALTER SYSTEM SET cachectl.autowarm_interval = 'often';
ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = -1;
ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 2e6;
ALTER SYSTEM SET cachectl.autowarm_max_share = 1.5;
ALTER SYSTEM SET cachectl.autowarm = 'sometimes';
ALTER SYSTEM SET cachectl.autowarm_label = '';
-- within bounds, accepted (and taken back)
ALTER SYSTEM SET cachectl.autowarm_interval = 0;
ALTER SYSTEM SET cachectl.autowarm_interval = '7d';
ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 0.5;
ALTER SYSTEM SET cachectl.autowarm_max_share = 0.3;
ALTER SYSTEM SET cachectl.autowarm_label = 'nightly';
ALTER SYSTEM RESET ALL;

-- the view's columns and types
SELECT a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_attribute AS a
 WHERE a.attrelid = 'cachectl.autowarm_status'::regclass AND a.attnum > 0
 ORDER BY a.attnum;

-- without shared_preload_libraries: one row for this database, disabled, saying why
SELECT database = current_database() AS this_database, role, state, pid,
       snapshots_taken, loads_done, failures, last_error
  FROM cachectl.autowarm_status;

-- pg_monitor may read it; PUBLIC may not (42501)
SELECT has_table_privilege('pg_monitor', 'cachectl.autowarm_status', 'SELECT') AS monitor_view,
       has_function_privilege('pg_monitor', 'cachectl.autowarm_status()', 'EXECUTE') AS monitor_function,
       has_table_privilege('public', 'cachectl.autowarm_status', 'SELECT') AS public_view,
       has_function_privilege('public', 'cachectl.autowarm_status()', 'EXECUTE') AS public_function;
CREATE ROLE regress_autowarm_nobody;
CREATE ROLE regress_autowarm_monitor IN ROLE pg_monitor;
SET ROLE regress_autowarm_nobody;
SELECT state FROM cachectl.autowarm_status;
SELECT state FROM cachectl.autowarm_status();
RESET ROLE;
SET ROLE regress_autowarm_monitor;
SELECT state, last_error IS NOT NULL AS says_why FROM cachectl.autowarm_status;
RESET ROLE;
DROP ROLE regress_autowarm_nobody, regress_autowarm_monitor;

-- what the worker loads: restore_plan() checks its arguments as restore() does
SELECT * FROM cachectl_internal.restore_plan('no such label');
SELECT * FROM cachectl_internal.restore_plan('x', 'disk');
SELECT * FROM cachectl_internal.restore_plan('x', 'both', 0);
SELECT * FROM cachectl_internal.restore_plan(NULL);
SELECT * FROM cachectl_internal.restore_plan('x', 'both', NULL, NULL);
-- in the words prewarm() uses
\set VERBOSITY default
SELECT * FROM cachectl_internal.restore_plan('x', 'disk');
\set VERBOSITY sqlstate
-- the gate: without the library preloaded there is nothing to wait for, and
-- it says so at once (false, never an error: a failover hook must go on)
\set VERBOSITY default
SELECT warm, state, waited_seconds < 1 AS at_once, snapshot_taken_at, shared_blocks_loaded
FROM cachectl.wait_warm('30 s');
\set VERBOSITY sqlstate
SELECT * FROM cachectl.wait_warm(NULL);
SELECT * FROM cachectl.wait_warm('-1 s');
SELECT * FROM cachectl.wait_warm('1 mon');
SELECT * FROM cachectl.wait_warm('400 days');
SELECT warm FROM cachectl.wait_warm('0');
-- what is missing of the newest snapshot, counted in every state (here the
-- library is not preloaded) by the planner the worker loads with, as the
-- worker's role: none while the table is in shared buffers, all its recorded
-- shared blocks once evicted
CREATE TABLE autowarm_missing AS SELECT g AS id, repeat('x', 500) AS pad FROM generate_series(1, 150) AS g;
SELECT relations FROM cachectl.snapshot('autowarm', ARRAY['autowarm_missing'::regclass]);
SELECT sum(block_count) > 0 AS recorded FROM cachectl.snapshot WHERE label = 'autowarm' AND layer = 'shared';
SELECT warm, state, snapshot_taken_at IS NOT NULL AS snapshot_named, shared_blocks_missing,
       os_blocks_missing IS NOT NULL AS os_counted
FROM cachectl.wait_warm('0');
SELECT sum(buffers_evicted) > 0 AS evicted FROM cachectl.evict('autowarm_missing');
SELECT w.shared_blocks_missing = (SELECT sum(block_count) FROM cachectl.snapshot
                                   WHERE label = 'autowarm' AND layer = 'shared') AS all_recorded_missing
FROM cachectl.wait_warm('0') AS w;
-- a caller who may read none of it (pg_monitor) gets the worker's figures
CREATE ROLE regress_autowarm_gate IN ROLE pg_monitor;
SET ROLE regress_autowarm_gate;
SELECT shared_blocks_missing > 0 AS missing_seen, snapshot_taken_at IS NOT NULL AS snapshot_named
FROM cachectl.wait_warm('0');
RESET ROLE;
DROP ROLE regress_autowarm_gate;
DROP TABLE autowarm_missing;
DELETE FROM cachectl.snapshot WHERE label = 'autowarm';
DROP EXTENSION pg_cachectl;
