-- Cache snapshots, bad input: every refusal of snapshot() and restore()
-- with its SQLSTATE (the behaviour is in snapshots.sql).
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

-- a label with a row to load
CREATE TABLE snap_err_t (id int, payload text);
INSERT INTO snap_err_t SELECT g, repeat('x', 500) FROM generate_series(1, 200) g;
SELECT relations FROM cachectl.snapshot('regress', ARRAY['snap_err_t'::regclass]);

CALL cachectl.restore('no such label');
CALL cachectl.restore('regress', target => 'disk');
CALL cachectl.restore('regress', max_mb_per_sec => 0);
CALL cachectl.restore('regress', max_mb_per_sec => 'NaN');
CALL cachectl.restore(NULL);
CALL cachectl.restore('regress', NULL);
SELECT * FROM cachectl.snapshot(NULL);
SELECT relations FROM cachectl.snapshot('nulls', ARRAY[NULL::regclass]);
CREATE VIEW snap_v AS SELECT 1 AS x;
SELECT * FROM cachectl.snapshot('bad', ARRAY['snap_v'::regclass]);
SELECT * FROM cachectl.snapshot('bad', ARRAY[0::regclass]);
CREATE TEMPORARY TABLE snap_temp (id int);
SELECT * FROM cachectl.snapshot('bad', ARRAY['snap_temp'::regclass]);
-- a procedure that commits cannot run inside a transaction block
BEGIN;
CALL cachectl.restore('regress');
ROLLBACK;
-- layer and fork are checked
INSERT INTO cachectl.snapshot SELECT label, taken_at, system_identifier, relation, relation_name, owner_table,
       owner_table_name, relfilenode, fork, 'disk', fork_blocks, block_count, blocks
FROM cachectl.snapshot WHERE label = 'regress' LIMIT 1;

DROP VIEW snap_v;
DROP TABLE snap_err_t, snap_temp;
DROP EXTENSION pg_cachectl;
