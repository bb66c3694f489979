-- Cache snapshots: snapshot() records which blocks each layer holds,
-- restore() loads them back.  Counts that depend on the kernel (readahead,
-- the engine) are compared, never printed.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

-- ---- shapes ----
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull
FROM pg_attribute a
WHERE a.attrelid = 'cachectl.snapshot'::regclass AND a.attnum > 0
ORDER BY a.attnum;
SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = 'cachectl.snapshot'::regclass;
SELECT p.proname, p.prokind, pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result, p.prosecdef AS security_definer
FROM pg_proc p
WHERE p.oid IN ('cachectl.snapshot'::regproc, 'cachectl.restore'::regproc)
ORDER BY p.proname;
-- dumped by pg_dump, guarded by row-level security, nothing for PUBLIC
SELECT e.extconfig::regclass[] AS dumped, e.extcondition FROM pg_extension e WHERE e.extname = 'pg_cachectl';
SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'cachectl.snapshot'::regclass;
SELECT polname, polcmd FROM pg_policy WHERE polrelid = 'cachectl.snapshot'::regclass;
SELECT has_table_privilege('public', 'cachectl.snapshot', 'SELECT') AS public_select,
       has_table_privilege('pg_read_all_stats', 'cachectl.snapshot', 'SELECT') AS stats_select,
       has_table_privilege('pg_read_all_stats', 'cachectl.snapshot', 'INSERT') AS stats_insert,
       has_function_privilege('public', 'cachectl.snapshot(text, regclass[], boolean)', 'EXECUTE') AS public_snapshot,
       has_function_privilege('pg_read_all_stats', 'cachectl.snapshot(text, regclass[], boolean)', 'EXECUTE') AS stats_snapshot,
       has_function_privilege('public', 'cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)', 'EXECUTE') AS public_restore;

-- ---- a small table in a known state ----
CREATE TABLE snap_t (id int PRIMARY KEY, payload text);
INSERT INTO snap_t SELECT g, repeat('x', 200) FROM generate_series(1, 6000) g;
VACUUM snap_t;
SELECT pg_relation_size('snap_t') / current_setting('block_size')::int AS snap_blocks \gset
SELECT :snap_blocks > 120 AS big_enough;
-- cold in both layers ...
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT bool_and(os_pages_after = 0) AS dropped FROM cachectl.os_drop('snap_t');
SELECT count(*) AS shared_runs FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]);
SELECT bit_count(cachectl.os_map('snap_t', fork => 'main')) AS os_blocks;
-- ... then blocks 30-39 read into shared buffers (a TID scan reads just
-- those), blocks 0-9 and 100-104 into the OS cache only
SELECT count(*) FROM snap_t WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid FROM generate_series(30, 39) b));
SELECT os_pages_pending FROM cachectl.os_prefetch('snap_t', first_block => 0, last_block => 9, fork => 'main');
SELECT os_pages_pending FROM cachectl.os_prefetch('snap_t', first_block => 100, last_block => 104, fork => 'main');
SELECT range_agg(int8range(first_block, first_block + block_count)) AS shared_now
FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
SELECT cachectl.os_map('snap_t', fork => 'main') AS os_map_before \gset

-- ---- snapshot ----
SELECT relations, rows_recorded, shared_blocks FROM cachectl.snapshot('regress', ARRAY['snap_t'::regclass]);
SELECT label, relation::regclass, relation_name, owner_table::regclass, relfilenode = pg_relation_filenode('snap_t') AS filenode_ok,
       fork, layer, fork_blocks = :snap_blocks AS fork_size_ok,
       system_identifier = cachectl_internal.system_identifier() AS this_cluster,
       block_count = (SELECT sum(upper(r) - lower(r)) FROM unnest(blocks) r) AS count_matches
FROM cachectl.snapshot WHERE label = 'regress' ORDER BY fork, layer;
SELECT blocks AS shared_blocks FROM cachectl.snapshot WHERE label = 'regress' AND layer = 'shared';
-- a row's hot blocks (usage count 2 or more when recorded; which ones depends
-- on the clock sweep, so a row is forged here): restore_plan() gives each
-- shared chunk's hot runs, which a load short of room brings first
INSERT INTO cachectl.snapshot
SELECT 'hot', s.taken_at, s.system_identifier, s.relation, s.relation_name, s.owner_table,
       s.owner_table_name, s.relfilenode, 'main', 'shared', s.fork_blocks, 20, '{[0,20)}', '{[5,8), [15,16)}'
  FROM cachectl.snapshot AS s WHERE s.label = 'regress' AND s.fork = 'main' AND s.layer = 'shared';
SELECT relation_name, remapped, fork, layer, runs, hot_runs FROM cachectl_internal.restore_plan('hot');
DELETE FROM cachectl.snapshot WHERE label = 'hot';
-- the OS row is the map: the same blocks, as runs
SELECT (SELECT blocks FROM cachectl.snapshot WHERE label = 'regress' AND layer = 'os' AND fork = 'main')
     = (SELECT range_agg(int8range(b - 1, b)) FROM generate_series(1, length(:'os_map_before'::varbit)) b
        WHERE substring(:'os_map_before'::varbit FROM b FOR 1) = B'1') AS os_row_is_the_map,
       (SELECT blocks FROM cachectl.snapshot WHERE label = 'regress' AND layer = 'os' AND fork = 'main')
       @> '{[0,10), [30,40), [100,105)}'::int8multirange AS os_row_holds_what_was_read;

-- ---- make it cold, restore, compare both maps ----
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT bool_and(os_pages_after = 0) AS dropped FROM cachectl.os_drop('snap_t');
SELECT count(*) AS shared_runs FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]);
SELECT bit_count(cachectl.os_map('snap_t', fork => 'main')) AS os_blocks;
CALL cachectl.restore('regress') \gset restored_
SELECT :restored_relations_warmed AS warmed, :restored_relations_skipped AS skipped,
       :restored_relations_remapped AS remapped, :restored_shared_blocks_loaded AS shared_loaded,
       :restored_os_blocks_loaded = (SELECT block_count FROM cachectl.snapshot
                                      WHERE label = 'regress' AND layer = 'os' AND fork = 'main') AS os_loaded_all,
       :restored_seconds >= 0 AS timed, :'restored_matched_by' AS matched_by;
SELECT range_agg(int8range(first_block, first_block + block_count)) AS shared_after
FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
SELECT cachectl.os_map('snap_t', fork => 'main') = :'os_map_before'::varbit AS os_map_reproduced;
-- one layer only
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT bool_and(os_pages_after = 0) AS dropped FROM cachectl.os_drop('snap_t');
CALL cachectl.restore('regress', target => 'shared') \gset restored_
SELECT :restored_shared_blocks_loaded AS shared_loaded, :restored_os_blocks_loaded AS os_loaded;
SELECT range_agg(int8range(first_block, first_block + block_count)) AS shared_after
FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT bool_and(os_pages_after = 0) AS dropped FROM cachectl.os_drop('snap_t');
CALL cachectl.restore('regress', target => 'os', max_mb_per_sec => 1000) \gset restored_
SELECT :restored_shared_blocks_loaded AS shared_loaded, :restored_os_blocks_loaded > 0 AS os_loaded;
SELECT count(*) AS shared_runs FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]);
SELECT cachectl.os_map('snap_t', fork => 'main') = :'os_map_before'::varbit AS os_map_reproduced;

-- ---- blocks in shared buffers only come back without an OS copy ----
SELECT count(*) >= 0 AS cold FROM cachectl.cold('snap_t');
SELECT shared_blocks_loaded FROM cachectl.prewarm('snap_t', 'shared', first_block => 60, last_block => 69,
                                                  drop_os_copy => true, fork => 'main');
SELECT os_pages_pending FROM cachectl.os_prefetch('snap_t', first_block => 80, last_block => 84, fork => 'main');
SELECT fork, shared_blocks, os_blocks, both_blocks FROM cachectl.status('snap_t') WHERE fork = 'main';
SELECT cachectl.os_map('snap_t', fork => 'main') AS os_map_exact \gset
SELECT relations FROM cachectl.snapshot('exact', ARRAY['snap_t'::regclass]);
SELECT count(*) >= 0 AS cold FROM cachectl.cold('snap_t');
CALL cachectl.restore('exact') \gset exact_
SELECT :exact_shared_blocks_loaded AS shared_loaded, :exact_os_blocks_loaded AS os_loaded;
SELECT fork, shared_blocks, os_blocks, both_blocks FROM cachectl.status('snap_t') WHERE fork = 'main';
SELECT range_agg(int8range(first_block, first_block + block_count)) AS shared_after
FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
SELECT cachectl.os_map('snap_t', fork => 'main') = :'os_map_exact'::varbit AS os_map_reproduced;

-- ---- many runs load in one step per 32 MB chunk, not one per run ----
SELECT count(*) >= 0 AS cold FROM cachectl.cold('snap_t');
SELECT shared_blocks_loaded FROM cachectl_internal.prewarm_runs('snap_t', 'main',
    (SELECT range_agg(int8range(b, b + 2)) FROM generate_series(0, 100, 4) b), 'shared');
SELECT relations FROM cachectl.snapshot('many_runs', ARRAY['snap_t'::regclass]);
SELECT count(*) AS shared_runs FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
SELECT count(*) >= 0 AS cold FROM cachectl.cold('snap_t');
-- the plan has one chunk for the 26 runs; restore() loads a chunk per step
SELECT count(*) AS chunks, sum((SELECT count(*) FROM unnest(runs))) AS runs
FROM cachectl_internal.restore_plan('many_runs', 'shared') WHERE fork IS NOT NULL;
CALL cachectl.restore('many_runs', target => 'shared') \gset many_
SELECT :many_shared_blocks_loaded AS shared_loaded;

-- ---- a row may drift a 64th of its blocks before it is written again ----
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT count(*) >= 0 AS warm FROM cachectl.prewarm('snap_t', 'shared', fork => 'main');
SELECT relations FROM cachectl.snapshot('drift', ARRAY['snap_t'::regclass]);
SELECT taken_at AS drift_taken, block_count AS drift_blocks
FROM cachectl.snapshot WHERE label = 'drift' AND layer = 'shared' AND fork = 'main' \gset
-- block 0 out of shared buffers: one block of more than 64, kept as it was
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t', fork => 'main');
SELECT count(*) >= 0 AS warm FROM cachectl.prewarm('snap_t', 'shared', fork => 'main', first_block => 1);
SELECT relations FROM cachectl.snapshot('drift', ARRAY['snap_t'::regclass]);
SELECT taken_at = :'drift_taken' AS kept, block_count = :drift_blocks AS as_recorded
FROM cachectl.snapshot WHERE label = 'drift' AND layer = 'shared' AND fork = 'main';
-- blocks 0 to 49 out: written again
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t', fork => 'main');
SELECT count(*) >= 0 AS warm FROM cachectl.prewarm('snap_t', 'shared', fork => 'main', first_block => 50);
SELECT relations FROM cachectl.snapshot('drift', ARRAY['snap_t'::regclass]);
SELECT taken_at > :'drift_taken' AS written, :drift_blocks - block_count AS fewer_blocks
FROM cachectl.snapshot WHERE label = 'drift' AND layer = 'shared' AND fork = 'main';

-- ---- the budget: prewarm_max_share of the pool, for the whole restore ----
SELECT count(*) >= 0 AS warm FROM cachectl.prewarm('snap_t', 'shared');
SELECT relations, shared_blocks > 16 AS more_than_budget FROM cachectl.snapshot('budget', ARRAY['snap_t'::regclass]);
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SET cachectl.prewarm_max_share = 0.001;  -- 16 of the 16,384 buffers
\set VERBOSITY default
CALL cachectl.restore('budget', target => 'shared') \gset budget_
\set VERBOSITY sqlstate
SELECT :budget_shared_blocks_loaded AS shared_loaded,
       (SELECT sum(block_count) FROM cachectl.snapshot WHERE label = 'budget' AND layer = 'shared')
         - :budget_shared_blocks_loaded AS left_out;
RESET cachectl.prewarm_max_share;

-- ---- replacing a label ----
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT count(*) FROM snap_t WHERE ctid = '(50,1)';
SELECT relations, rows_recorded >= 2 AS recorded FROM cachectl.snapshot('regress', ARRAY['snap_t'::regclass]);
SELECT count(DISTINCT taken_at) AS taken_once, count(*) FILTER (WHERE layer = 'shared') AS shared_rows
FROM cachectl.snapshot WHERE label = 'regress';
SELECT blocks AS shared_blocks FROM cachectl.snapshot WHERE label = 'regress' AND layer = 'shared';

-- ---- sets: partitions, cascade; the whole database ----
CREATE TABLE snap_p (id int PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE snap_p1 PARTITION OF snap_p FOR VALUES FROM (0) TO (1000);
CREATE TABLE snap_p2 PARTITION OF snap_p FOR VALUES FROM (1000) TO (2000);
INSERT INTO snap_p SELECT g FROM generate_series(0, 1999) g;
SELECT relations, rows_recorded > 0 AS recorded FROM cachectl.snapshot('parts', ARRAY['snap_p'::regclass]);
SELECT DISTINCT relation_name, owner_table_name FROM cachectl.snapshot WHERE label = 'parts' ORDER BY 1;
SELECT relations FROM cachectl.snapshot('parts', ARRAY['snap_p'::regclass], cascade => true);
SELECT DISTINCT relation_name, owner_table_name FROM cachectl.snapshot WHERE label = 'parts' ORDER BY 1;
SELECT relations > 10 AS many_relations, rows_recorded > relations AS rows_ok, shared_blocks > 0 AS some_shared
FROM cachectl.snapshot('whole');
SELECT count(*) FILTER (WHERE relation = 'snap_t'::regclass) > 0 AS has_snap_t,
       count(*) FILTER (WHERE relation = 'pg_class'::regclass) > 0 AS has_pg_class,
       count(*) FILTER (WHERE relation_name = 'pg_catalog.pg_database') AS shared_catalogs
FROM cachectl.snapshot WHERE label = 'whole';
CALL cachectl.restore('whole', target => 'shared') \gset whole_
SELECT :whole_relations_warmed > 10 AS warmed, :whole_relations_skipped AS skipped;

-- ---- rewritten, dropped, another cluster (NOTICEs in full) ----
\set VERBOSITY default
SELECT relations FROM cachectl.snapshot('moved', ARRAY['snap_t'::regclass, 'snap_p1'::regclass]);
VACUUM FULL snap_t;                     -- a new relfilenode: mapped by share
DROP TABLE snap_p;                      -- gone: skipped
CALL cachectl.restore('moved') \gset moved_
SELECT :moved_relations_warmed AS warmed, :moved_relations_skipped AS skipped,
       :moved_relations_remapped AS remapped, :'moved_matched_by' AS matched_by;
-- the one matching rule: by OID where this cluster recorded the row and the
-- OID exists, else by name; NULL where neither finds a relation
SELECT cachectl_internal.snapshot_row_relation(cachectl_internal.system_identifier(), 'snap_t'::regclass, 'no_such') AS by_oid,
       cachectl_internal.snapshot_row_relation('1', 'snap_t'::regclass, 'public.snap_t') AS other_cluster_by_name,
       cachectl_internal.snapshot_row_relation(cachectl_internal.system_identifier(), 0, 'public.snap_t') AS oid_gone_by_name,
       cachectl_internal.snapshot_row_relation('1', 'snap_t'::regclass, 'public.no_such') IS NULL AS found_nowhere;
-- a snapshot from a dump of another cluster: matched by name, blocks by share
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
UPDATE cachectl.snapshot SET system_identifier = '1', relation = 1, owner_table = 1 WHERE label = 'regress';
CALL cachectl.restore('regress', target => 'shared') \gset elsewhere_
SELECT :elsewhere_relations_warmed AS warmed, :elsewhere_relations_remapped AS remapped,
       :elsewhere_shared_blocks_loaded AS shared_loaded, :'elsewhere_matched_by' AS matched_by;
SELECT range_agg(int8range(first_block, first_block + block_count)) AS shared_after
FROM cachectl_internal.shared_block_runs(ARRAY['snap_t'::regclass]) WHERE fork = 'main';
-- a label holding rows of two clusters: each row is matched as the cluster
-- that recorded it says.  Here a row from another cluster's dump whose OID is,
-- in this one, another table's: by name it is mix_tst (by OID, mix_secret
-- would be loaded), and this cluster's own row goes by OID.  The foreign
-- identifier sorts after this cluster's, as in the issue.
CREATE TABLE mix_tst AS SELECT g AS id FROM generate_series(1, 2000) g;
CREATE TABLE mix_secret AS SELECT g AS id FROM generate_series(1, 5000) g;
CREATE TABLE mix_local AS SELECT g AS id FROM generate_series(1, 100) g;
SELECT count(*) >= 0 AS warmed FROM cachectl.prewarm('mix_tst', 'shared', fork => 'main');
SELECT relations FROM cachectl.snapshot('mix', ARRAY['mix_tst'::regclass]);
UPDATE cachectl.snapshot
   SET system_identifier = '99999999999999999999', relation = 'mix_secret'::regclass,
       owner_table = 'mix_secret'::regclass, relfilenode = 1
 WHERE label = 'mix';
SELECT count(*) >= 0 AS warmed FROM cachectl.prewarm('mix_local', 'shared', fork => 'main');
SELECT relations FROM cachectl.snapshot('mix', ARRAY['mix_local'::regclass]);
SELECT count(*) >= 0 AS evicted FROM cachectl.evict_relations(ARRAY['mix_tst', 'mix_secret', 'mix_local']::regclass[]);
CALL cachectl.restore('mix', 'shared') \gset mix_
SELECT :mix_relations_warmed AS warmed, :mix_relations_remapped AS remapped, :'mix_matched_by' AS matched_by;
SELECT r.relname, s.shared_blocks > 0 AS loaded
  FROM (VALUES ('mix_tst'), ('mix_secret'), ('mix_local')) AS r (relname),
       LATERAL cachectl.shared_residency(r.relname::regclass, 'main') AS s
 ORDER BY 1;
DROP TABLE mix_tst, mix_secret, mix_local;
DELETE FROM cachectl.snapshot WHERE label = 'mix';
\set VERBOSITY sqlstate

-- ---- a relation with nothing cached: a row with no blocks, restore loads nothing ----
CREATE TABLE snap_cold (id int);
INSERT INTO snap_cold SELECT generate_series(1, 1000);
SELECT count(*) >= 0 AS cold FROM cachectl.cold('snap_cold');
SELECT relations, rows_recorded, shared_blocks, os_blocks FROM cachectl.snapshot('cold', ARRAY['snap_cold'::regclass]);
SELECT relation_name, fork, layer, block_count, isempty(blocks) AS no_blocks, fork_blocks > 0 AS sized
FROM cachectl.snapshot WHERE label = 'cold';
CALL cachectl.restore('cold') \gset cold_
SELECT :cold_relations_warmed AS warmed, :cold_relations_skipped AS skipped,
       :cold_shared_blocks_loaded AS shared_loaded, :cold_os_blocks_loaded AS os_loaded;
SELECT fork, shared_blocks, os_blocks FROM cachectl.status('snap_cold') WHERE fork = 'main';
-- once cached, the next snapshot of the label replaces the empty row
SELECT count(*) AS rows FROM snap_cold;
SELECT relations, shared_blocks > 0 AS shared FROM cachectl.snapshot('cold', ARRAY['snap_cold'::regclass]);
SELECT count(*) FILTER (WHERE block_count = 0) AS empty_rows FROM cachectl.snapshot WHERE label = 'cold';
DROP TABLE snap_cold;

-- ---- privileges ----
CREATE TABLE snap_secret (id int);
INSERT INTO snap_secret SELECT generate_series(1, 100);
CREATE ROLE regress_snap_nobody;
CREATE ROLE regress_snap_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_snap_reader IN ROLE pg_read_all_stats;
CREATE ROLE regress_snap_operator;
GRANT SELECT ON snap_t TO regress_snap_reader, regress_snap_operator;
GRANT USAGE ON SCHEMA cachectl TO regress_snap_operator;
GRANT SELECT, INSERT, DELETE ON cachectl.snapshot TO regress_snap_operator;
GRANT EXECUTE ON FUNCTION cachectl.snapshot(text, regclass[], boolean) TO regress_snap_operator;
GRANT EXECUTE ON PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)
      TO regress_snap_operator;
SELECT relations FROM cachectl.snapshot('guarded', ARRAY['snap_t'::regclass, 'snap_t_pkey'::regclass, 'snap_secret'::regclass]);
SELECT DISTINCT relation_name FROM cachectl.snapshot WHERE label = 'guarded' ORDER BY 1;
-- PUBLIC: no USAGE, no SELECT, no EXECUTE
SET ROLE regress_snap_nobody;
SELECT count(*) FROM cachectl.snapshot;
SELECT * FROM cachectl.snapshot('mine');
CALL cachectl.restore('guarded');
RESET ROLE;
-- pg_read_all_stats sees rows of the tables it may read: none here
SET ROLE regress_snap_stats;
SELECT count(*) AS rows_seen FROM cachectl.snapshot WHERE label = 'guarded';
SELECT * FROM cachectl.snapshot('mine');
CALL cachectl.restore('guarded');
RESET ROLE;
-- with SELECT on snap_t: its rows (and its index's), not snap_secret's
SET ROLE regress_snap_reader;
SELECT DISTINCT relation_name FROM cachectl.snapshot WHERE label = 'guarded' ORDER BY 1;
RESET ROLE;
-- an operator granted the functions and the table's rights: works on what
-- it may read, is refused the rest, and replaces only the rows it can see
-- (each row made stale first, beyond the drift a row may keep: a 64th of
-- its blocks)
UPDATE cachectl.snapshot SET fork_blocks = fork_blocks + 100000 WHERE label = 'guarded';
SET ROLE regress_snap_operator;
SELECT relations FROM cachectl.snapshot('guarded', ARRAY['snap_t'::regclass]);
SELECT * FROM cachectl.snapshot('guarded', ARRAY['snap_secret'::regclass]);
CALL cachectl.restore('guarded', target => 'shared') \gset operator_
SELECT :operator_relations_warmed AS warmed, :operator_relations_skipped AS skipped;
CALL cachectl.restore('parts');
RESET ROLE;
SELECT relation_name, min(taken_at) = (SELECT max(taken_at) FROM cachectl.snapshot WHERE label = 'guarded') AS retaken
FROM cachectl.snapshot WHERE label = 'guarded' GROUP BY relation_name ORDER BY 1;
-- the whole database, as the operator: only what it may read is recorded
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT count(*) FROM snap_t WHERE ctid = '(7,1)';
SELECT count(*) FROM snap_secret;
SET ROLE regress_snap_operator;
SELECT relations > 0 AS recorded FROM cachectl.snapshot('operator_whole');
RESET ROLE;
SELECT count(*) FILTER (WHERE relation = 'snap_t'::regclass AND layer = 'shared') AS snap_t_rows,
       count(*) FILTER (WHERE relation = 'snap_secret'::regclass) AS secret_rows,
       bool_and(has_table_privilege('regress_snap_operator', owner_table, 'SELECT')) AS all_readable
FROM cachectl.snapshot WHERE label = 'operator_whole';
-- A row the operator writes must be one snapshot() would write for it:
-- else it could make a superuser's restore() load a table it may not read,
-- or learn through the primary key which rows of such tables exist.
SET ROLE regress_snap_operator;
-- a genuine row under another label: allowed (it could take it itself)
INSERT INTO cachectl.snapshot
SELECT 'copied', s.taken_at, s.system_identifier, s.relation, s.relation_name, s.owner_table,
       s.owner_table_name, s.relfilenode, s.fork, s.layer, s.fork_blocks, s.block_count, s.blocks
  FROM cachectl.snapshot AS s
 WHERE s.label = 'guarded' AND s.relation = 'snap_t'::regclass AND s.fork = 'main' AND s.layer = 'shared';
-- snap_secret behind snap_t's guard
INSERT INTO cachectl.snapshot
SELECT 'forged', s.taken_at, s.system_identifier, 'snap_secret'::regclass, 'public.snap_secret',
       s.owner_table, s.owner_table_name, pg_relation_filenode('snap_secret'), 'main', 'shared', 1, 1, '{[0,1)}'
  FROM cachectl.snapshot AS s WHERE s.label = 'copied';
-- the primary key of snap_secret's row in 'guarded' is not reached
INSERT INTO cachectl.snapshot
SELECT 'guarded', s.taken_at, s.system_identifier, 'snap_secret'::regclass, 'public.snap_secret',
       'snap_secret'::regclass, 'public.snap_secret', pg_relation_filenode('snap_secret'), 'main', 'os', 1, 1, '{[0,1)}'
  FROM cachectl.snapshot AS s WHERE s.label = 'copied';
-- snap_t's row under snap_secret's name (restore() by name would load it)
INSERT INTO cachectl.snapshot
SELECT 'forged', s.taken_at, s.system_identifier, s.relation, 'public.snap_secret', s.owner_table,
       s.owner_table_name, s.relfilenode, s.fork, s.layer, s.fork_blocks, s.block_count, s.blocks
  FROM cachectl.snapshot AS s WHERE s.label = 'copied';
-- another file, another cluster
INSERT INTO cachectl.snapshot
SELECT 'forged', s.taken_at, s.system_identifier, s.relation, s.relation_name, s.owner_table,
       s.owner_table_name, pg_relation_filenode('snap_secret'), s.fork, s.layer, s.fork_blocks, s.block_count, s.blocks
  FROM cachectl.snapshot AS s WHERE s.label = 'copied';
INSERT INTO cachectl.snapshot
SELECT 'forged', s.taken_at, '1', s.relation, s.relation_name, s.owner_table,
       s.owner_table_name, s.relfilenode, s.fork, s.layer, s.fork_blocks, s.block_count, s.blocks
  FROM cachectl.snapshot AS s WHERE s.label = 'copied';
-- runs past the fork's recorded size (restore() would chunk them all)
DO $$
BEGIN
    INSERT INTO cachectl.snapshot
    SELECT 'forged', s.taken_at, s.system_identifier, s.relation, s.relation_name, s.owner_table,
           s.owner_table_name, s.relfilenode, s.fork, s.layer, 1, 100000000, '{[0,100000000)}'
      FROM cachectl.snapshot AS s WHERE s.label = 'copied';
EXCEPTION WHEN check_violation THEN
    RAISE NOTICE 'refused: %', SQLSTATE;
END
$$;
SELECT label, count(*) FROM cachectl.snapshot WHERE label IN ('copied', 'forged') GROUP BY label;
DELETE FROM cachectl.snapshot WHERE label = 'copied';
RESET ROLE;

-- The caller's search path does not reach restore()'s expressions, not even
-- after its COMMITs: overloads that beat polymorphic built-ins are not called.
CREATE SCHEMA regress_hijack;
CREATE FUNCTION regress_hijack.array_length(int8multirange[], int) RETURNS int
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'restore() called regress_hijack.array_length'; END $$;
CREATE FUNCTION regress_hijack.isempty(int8multirange) RETURNS boolean
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'restore() called regress_hijack.isempty'; END $$;
CREATE FUNCTION regress_hijack.unnest(int8multirange) RETURNS SETOF int8range
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'restore() called regress_hijack.unnest'; END $$;
SET search_path = regress_hijack, public;
CALL cachectl.restore('guarded', target => 'os') \gset hijack_
RESET search_path;
SELECT :hijack_relations_warmed AS warmed, :hijack_relations_skipped AS skipped;
DROP FUNCTION regress_hijack.array_length(int8multirange[], int), regress_hijack.isempty(int8multirange),
              regress_hijack.unnest(int8multirange);
DROP SCHEMA regress_hijack;

-- a dropped table's rows are visible to nobody but the superuser
DROP TABLE snap_secret;
SET ROLE regress_snap_reader;
SELECT count(*) AS dropped_rows_seen FROM cachectl.snapshot WHERE relation_name = 'public.snap_secret';
RESET ROLE;
SELECT count(*) > 0 AS dropped_rows_kept FROM cachectl.snapshot WHERE relation_name = 'public.snap_secret';

-- a whole-database label taken again: the rows of a table dropped since are
-- deleted, every other row is either left as it was or replaced, never both
CREATE TABLE snap_gone (id int);
INSERT INTO snap_gone VALUES (1);
SELECT count(*) FROM snap_gone;
SELECT rows_recorded > 0 AS recorded FROM cachectl.snapshot('whole');
SELECT count(*) > 0 AS gone_recorded FROM cachectl.snapshot WHERE label = 'whole' AND relation_name = 'public.snap_gone';
DROP TABLE snap_gone;
SELECT rows_recorded AS whole_rows FROM cachectl.snapshot('whole') \gset
SELECT count(*) AS gone_rows FROM cachectl.snapshot WHERE label = 'whole' AND relation_name = 'public.snap_gone';
SELECT count(*) = :whole_rows AS one_row_each,
       count(DISTINCT (relation, fork, layer)) = count(*) AS no_key_twice
  FROM cachectl.snapshot WHERE label = 'whole';
DELETE FROM cachectl.snapshot WHERE label = 'whole';

-- a fragmented shared layer: every third block of the first 61, 21 runs
-- (the recorder writes the multirange's stored form itself: its bounds, its
-- items — an offset every fourth range — and its flags must read back as
-- PostgreSQL's own multirange of the same runs)
SELECT count(*) >= 0 AS evicted FROM cachectl.evict('snap_t');
SELECT count(*) FROM snap_t WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid FROM generate_series(0, 60, 3) b));
SELECT shared_blocks FROM cachectl.snapshot('fragments', ARRAY['snap_t'::regclass]);
SELECT blocks FROM cachectl.snapshot WHERE label = 'fragments' AND layer = 'shared' AND fork = 'main';
SELECT blocks = (SELECT range_agg(int8range(b, b + 1)) FROM generate_series(0, 60, 3) b) AS same_as_postgres,
       (SELECT array_agg(lower(r) ORDER BY lower(r)) FROM unnest(blocks) r) AS lowers,
       blocks @> 57::int8 AS holds_57, blocks @> 58::int8 AS holds_58,
       (SELECT count(*) FROM generate_series(0::int8, 61) b WHERE blocks @> b) AS blocks_held
  FROM cachectl.snapshot WHERE label = 'fragments' AND layer = 'shared' AND fork = 'main';
DELETE FROM cachectl.snapshot WHERE label = 'fragments';

REVOKE ALL ON SCHEMA cachectl FROM regress_snap_operator;
REVOKE ALL ON cachectl.snapshot FROM regress_snap_operator;
REVOKE ALL ON FUNCTION cachectl.snapshot(text, regclass[], boolean) FROM regress_snap_operator;
REVOKE ALL ON PROCEDURE cachectl.restore(text, text, float8, int8, int8, int8, int8, int8, float8, text)
       FROM regress_snap_operator;
DROP TABLE snap_t;
DROP ROLE regress_snap_nobody, regress_snap_stats, regress_snap_reader, regress_snap_operator;
DROP EXTENSION pg_cachectl;
