-- explain_reads(): where a query's reads came from, per plan node.  Only
-- what is the same on every machine is shown: the plan's shape, the sums
-- that must hold, the errors with their SQLSTATEs, the privileges.  The
-- constructed states (cold, OS cache only, shared buffers) are measured by
-- test/t/089_read_sources.pl, where the page cache can be dropped.
-- expected/read_sources_1.out is the output with 18's default io_method,
-- worker: the same counts, the sources NULL with a NOTICE naming it.
CREATE EXTENSION pg_cachectl;
SET max_parallel_workers_per_gather = 0;

-- the columns and their types
SELECT a.attname, format_type(a.atttypid, NULL)
  FROM pg_proc AS p
 CROSS JOIN LATERAL unnest(p.proargnames, p.proallargtypes::oid[], p.proargmodes::text[])
       AS a (attname, atttypid, mode)
 WHERE p.oid = 'cachectl.explain_reads(text)'::regprocedure AND a.mode = 'o';

CREATE TABLE rs_small AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 1000) AS g;
CREATE TABLE rs_other AS SELECT g AS id FROM generate_series(1, 100) AS g;
ANALYZE rs_small, rs_other;

-- one row per plan node, in EXPLAIN's order, with its parent and depth, then the query
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT node_id, parent_node_id, depth, node_type, relation, index, loops
  FROM cachectl.explain_reads('SELECT count(*) FROM rs_small AS s JOIN rs_other AS o ON o.id = s.id');
RESET enable_hashjoin;
RESET enable_mergejoin;

-- evicted from shared buffers, a seq scan asks the kernel for every block
-- once: hits and reads add up to the table's blocks, and every read is a
-- page-cache hit or a device read (the split itself depends on the machine)
SELECT sum(buffers_evicted) > 0 AS evicted FROM cachectl.evict('rs_small');
SELECT node_type,
       shared_hit_blocks + read_blocks = pg_relation_size('rs_small') / current_setting('block_size')::int AS every_block_once,
       read_blocks > 0 AS read,
       os_hit_blocks + device_read_blocks = read_blocks AS split_adds_up,
       device_read_bytes >= 0 AS bytes_counted
  FROM cachectl.explain_reads('SELECT count(pad) FROM rs_small');
-- read again, all of it is in shared buffers
SELECT node_type, shared_hit_blocks = pg_relation_size('rs_small') / current_setting('block_size')::int AS all_hits,
       read_blocks, os_hit_blocks, device_read_blocks, device_read_bytes
  FROM cachectl.explain_reads('SELECT count(pad) FROM rs_small');
-- read_seconds only with track_io_timing
SET track_io_timing = on;
SELECT node_type, read_seconds >= 0 AS timed FROM cachectl.explain_reads('SELECT count(pad) FROM rs_small');
RESET track_io_timing;
SELECT node_type, read_seconds FROM cachectl.explain_reads('SELECT count(pad) FROM rs_small');

-- it runs the statement, as EXPLAIN ANALYZE does: writes happen
SELECT node_type, relation FROM cachectl.explain_reads('INSERT INTO rs_other SELECT 1000 + g FROM generate_series(1, 5) AS g');
SELECT count(*) AS rows_now FROM rs_other;
SELECT node_type FROM cachectl.explain_reads('DELETE FROM rs_other WHERE id > 1000');
SELECT count(*) AS rows_now FROM rs_other;

-- what it refuses
\set VERBOSITY sqlstate
SELECT * FROM cachectl.explain_reads(NULL);
SELECT * FROM cachectl.explain_reads('');
SELECT * FROM cachectl.explain_reads('SELECT 1; SELECT 2');
SELECT * FROM cachectl.explain_reads('VACUUM rs_small');
SELECT * FROM cachectl.explain_reads('SELECT * INTO rs_copy FROM rs_small');
SELECT * FROM cachectl.explain_reads('SELEKT 1');
SELECT * FROM cachectl.explain_reads('SELECT * FROM no_such_table');
-- a query inside a query it measures is not measured twice
SELECT * FROM cachectl.explain_reads('SELECT * FROM cachectl.explain_reads(''SELECT 1'')');
\set VERBOSITY default
SELECT * FROM cachectl.explain_reads('VACUUM rs_small');
SELECT * FROM cachectl.explain_reads('SELECT 1; SELECT 2');

-- privileges: pg_read_all_stats may call it, PUBLIC may not; it runs as the
-- caller, who needs the query's own privileges
SELECT has_function_privilege('public', 'cachectl.explain_reads(text)', 'EXECUTE') AS public_may,
       has_function_privilege('pg_read_all_stats', 'cachectl.explain_reads(text)', 'EXECUTE') AS stats_may;
CREATE ROLE regress_rs_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_rs_nobody;
GRANT USAGE ON SCHEMA cachectl TO regress_rs_nobody;
\set VERBOSITY sqlstate
SET ROLE regress_rs_nobody;
SELECT * FROM cachectl.explain_reads('SELECT 1');
RESET ROLE;
SET ROLE regress_rs_stats;
SELECT * FROM cachectl.explain_reads('SELECT count(*) FROM rs_small');
SELECT node_type FROM cachectl.explain_reads('SELECT 1');
RESET ROLE;
GRANT SELECT ON rs_small TO regress_rs_stats;
SET ROLE regress_rs_stats;
SELECT node_type, relation FROM cachectl.explain_reads('SELECT count(*) FROM rs_small');
RESET ROLE;
\set VERBOSITY default
REVOKE ALL ON SCHEMA cachectl FROM regress_rs_nobody;
DROP OWNED BY regress_rs_stats;
DROP ROLE regress_rs_stats, regress_rs_nobody;

DROP TABLE rs_small, rs_other;
DROP EXTENSION pg_cachectl;
