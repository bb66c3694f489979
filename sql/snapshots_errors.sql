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
-- the messages a user reads: one, with no CONTEXT lines of the internals
\set VERBOSITY default
SELECT * FROM cachectl.snapshot('bad', ARRAY['snap_v'::regclass]);
SELECT * FROM cachectl.snapshot(NULL);
CALL cachectl.restore('no such label');
\set VERBOSITY sqlstate
-- a procedure that commits cannot run inside a transaction block: it says so
-- at once (25001), with a hint, not at its first COMMIT
BEGIN;
\set VERBOSITY default
CALL cachectl.restore('regress');
\set VERBOSITY sqlstate
ROLLBACK;
-- nor from a function (atomic too): the same, before it loads anything
CREATE FUNCTION restore_inside() RETURNS void LANGUAGE plpgsql AS $$
DECLARE w int8; s int8; r int8; sb int8; ob int8; secs float8; m text;
BEGIN CALL cachectl.restore('regress', 'both', NULL, w, s, r, sb, ob, secs, m); END $$;
\set VERBOSITY default
SELECT restore_inside();
\set VERBOSITY sqlstate
DROP FUNCTION restore_inside();
-- layer and fork are checked
INSERT INTO cachectl.snapshot SELECT label, taken_at, system_identifier, relation, relation_name, owner_table,
       owner_table_name, relfilenode, fork, 'disk', fork_blocks, block_count, blocks
FROM cachectl.snapshot WHERE label = 'regress' LIMIT 1;

-- rows are bounded by what a fork can hold (2^32 - 1 blocks), block_count by
-- fork_blocks, and runs must be bounded: each UPDATE fails with 23514
UPDATE cachectl.snapshot SET fork_blocks = 9223372036854775807, block_count = 9223372036854775807
WHERE label = 'regress';
UPDATE cachectl.snapshot SET block_count = fork_blocks + 1 WHERE label = 'regress';
UPDATE cachectl.snapshot SET blocks = '{[0,)}' WHERE label = 'regress';
UPDATE cachectl.snapshot SET blocks = '{(,3)}' WHERE label = 'regress';
-- hot blocks are some of the row's blocks, and only of shared buffers (23514)
UPDATE cachectl.snapshot SET hot_blocks = blocks + '{[100000,100001)}' WHERE label = 'regress' AND layer = 'shared';
UPDATE cachectl.snapshot SET hot_blocks = '{[0,1)}' WHERE label = 'regress' AND layer = 'os';

-- a row a superuser made unreadable (NOT NULL dropped) is skipped with a
-- WARNING naming it; the label's other relation is still planned
CREATE TABLE snap_err_other (id int);
INSERT INTO snap_err_other SELECT g FROM generate_series(1, 1000) g;
SELECT relations FROM cachectl.snapshot('regress', ARRAY['snap_err_t'::regclass, 'snap_err_other'::regclass]);
-- snap_err_t keeps one row (its main fork in shared buffers): one WARNING each time
DELETE FROM cachectl.snapshot
WHERE label = 'regress' AND relation = 'snap_err_t'::regclass AND (fork, layer) <> ('main', 'shared');
ALTER TABLE cachectl.snapshot ALTER COLUMN blocks DROP NOT NULL, ALTER COLUMN fork_blocks DROP NOT NULL,
    ALTER COLUMN relation_name DROP NOT NULL, DROP CONSTRAINT snapshot_fork_check;
UPDATE cachectl.snapshot SET blocks = NULL WHERE label = 'regress' AND relation = 'snap_err_t'::regclass;
\set VERBOSITY default
SELECT relation_name, skip_reason, count(fork) > 0 AS planned
FROM cachectl_internal.restore_plan('regress') GROUP BY 1, 2 ORDER BY 1;
\set VERBOSITY sqlstate
UPDATE cachectl.snapshot SET blocks = '{}', hot_blocks = '{}', fork_blocks = NULL WHERE label = 'regress' AND relation = 'snap_err_t'::regclass;
\set VERBOSITY default
SELECT relation_name, count(fork) > 0 AS planned FROM cachectl_internal.restore_plan('regress') GROUP BY 1 ORDER BY 1;
\set VERBOSITY sqlstate
UPDATE cachectl.snapshot SET fork_blocks = 4294967295, fork = 'wal' || fork WHERE label = 'regress' AND relation = 'snap_err_t'::regclass;
\set VERBOSITY default
SELECT relation_name, count(fork) > 0 AS planned FROM cachectl_internal.restore_plan('regress') GROUP BY 1 ORDER BY 1;
\set VERBOSITY sqlstate
UPDATE cachectl.snapshot SET relation_name = NULL WHERE label = 'regress' AND relation = 'snap_err_t'::regclass;
\set VERBOSITY default
SELECT relation_name, count(fork) > 0 AS planned FROM cachectl_internal.restore_plan('regress') GROUP BY 1 ORDER BY 1;
\set VERBOSITY sqlstate
DELETE FROM cachectl.snapshot WHERE label = 'regress' AND relation_name IS NULL;
ALTER TABLE cachectl.snapshot ALTER COLUMN blocks SET NOT NULL, ALTER COLUMN fork_blocks SET NOT NULL,
    ALTER COLUMN relation_name SET NOT NULL,
    ADD CONSTRAINT snapshot_fork_check CHECK (fork IN ('main', 'fsm', 'vm', 'init'));

DROP VIEW snap_v;
DROP TABLE snap_err_t, snap_err_other, snap_temp;
DROP EXTENSION pg_cachectl;
