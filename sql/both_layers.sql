-- Both layers at once: status, draw, database_status, cold, prewarm.
-- Counts are compared, not printed, so the output holds with either engine.
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;

CREATE TABLE layers_t (id int PRIMARY KEY, payload text);
INSERT INTO layers_t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
VACUUM layers_t;
SELECT pg_relation_size('layers_t') / current_setting('block_size')::int AS layers_blocks \gset

-- status: the four states add up to the fork's size, bytes follow blocks.
SELECT relation, fork, size_blocks = pg_relation_size('layers_t', fork) / current_setting('block_size')::int AS size_blocks_match,
       both_blocks + shared_only_blocks + os_only_blocks + neither_blocks = size_blocks AS states_add_up,
       shared_blocks = both_blocks + shared_only_blocks AS shared_adds_up,
       os_blocks = both_blocks + os_only_blocks AS os_adds_up,
       shared_bytes = shared_blocks * current_setting('block_size')::int AS shared_bytes_match,
       both_bytes = both_blocks * current_setting('block_size')::int AS both_bytes_match,
       shared_dirty_blocks <= shared_blocks AS dirty_in_bounds
FROM cachectl.status('layers_t') ORDER BY fork;
SELECT count(*) AS forks_with_cascade FROM cachectl.status('layers_t', cascade => true);
-- status agrees with pg_buffercache on the shared layer
SELECT s.shared_blocks = (SELECT count(*) FROM pg_buffercache
                          WHERE relfilenode = pg_relation_filenode('layers_t') AND relforknumber = 0
                            AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
       AS matches_pg_buffercache
FROM cachectl.status('layers_t') s WHERE fork = 'main';

-- cold: nothing left in either layer, even of a dirty table
UPDATE layers_t SET payload = 'changed' WHERE id <= 100;
SELECT relation, fork, buffers_evicted > 0 AS evicted, buffers_flushed > 0 AS flushed, shared_blocks_left, os_pages_left
FROM cachectl.cold('layers_t') WHERE fork = 'main';
SELECT fork, shared_blocks, os_blocks, neither_blocks = size_blocks AS all_cold
FROM cachectl.status('layers_t') ORDER BY fork;
SELECT count(*) AS changed_rows FROM layers_t WHERE payload = 'changed';
SELECT count(*) AS cascade_rows, bool_and(shared_blocks_left = 0 AND os_pages_left = 0) AS all_cold
FROM cachectl.cold('layers_t', cascade => true);

-- prewarm into shared buffers: the whole small table is there afterwards
SELECT relation, fork, blocks_requested = :layers_blocks AS all_requested,
       shared_blocks_loaded = :layers_blocks AS all_loaded, os_blocks_loaded
FROM cachectl.prewarm('layers_t', 'shared', fork => 'main');
SELECT shared_blocks = size_blocks AS wholly_in_shared_buffers FROM cachectl.status('layers_t') WHERE fork = 'main';
-- and without keeping the OS copy
SELECT count(*) AS cold_forks FROM cachectl.cold('layers_t') \gset
SELECT shared_blocks_loaded = :layers_blocks AS all_loaded
FROM cachectl.prewarm('layers_t', 'shared', drop_os_copy => true, fork => 'main');
SELECT shared_blocks = size_blocks AS in_shared, os_blocks AS os_copy_blocks, both_blocks
FROM cachectl.status('layers_t') WHERE fork = 'main';
-- into the OS cache only, a block range
SELECT count(*) AS cold_forks FROM cachectl.cold('layers_t') \gset
SELECT blocks_requested, shared_blocks_loaded, os_blocks_loaded
FROM cachectl.prewarm('layers_t', 'os', first_block => 0, last_block => 9, fork => 'main');
SELECT shared_blocks, os_blocks >= 10 AS range_in_os FROM cachectl.status('layers_t') WHERE fork = 'main';
-- both layers
SELECT shared_blocks_loaded = :layers_blocks AS shared_loaded, os_blocks_loaded = :layers_blocks AS os_loaded
FROM cachectl.prewarm('layers_t', fork => 'main');
SELECT both_blocks = size_blocks AS wholly_double_cached FROM cachectl.status('layers_t') WHERE fork = 'main';
-- at most a share of shared_buffers per call
SELECT count(*) AS cold_forks FROM cachectl.cold('layers_t') \gset
SET cachectl.prewarm_max_share = 0;
SELECT shared_blocks_loaded, os_blocks_loaded = :layers_blocks AS os_loaded FROM cachectl.prewarm('layers_t', fork => 'main');
RESET cachectl.prewarm_max_share;

-- draw: one character per run of blocks, and a legend
SELECT count(*) AS cold_forks FROM cachectl.cold('layers_t') \gset
SELECT split_part(cachectl.draw('layers_t', 10), E'\n', 1) AS cold_strip;
SELECT * FROM cachectl.prewarm('layers_t', 'os', fork => 'main') \gset warm_
SELECT split_part(cachectl.draw('layers_t', 10), E'\n', 1) AS os_strip;
SELECT * FROM cachectl.prewarm('layers_t', 'shared', fork => 'main') \gset warm_
SELECT split_part(cachectl.draw('layers_t', 10), E'\n', 1) AS both_strip;
SELECT count(*) AS dropped_forks FROM cachectl.os_drop('layers_t') \gset
SELECT split_part(cachectl.draw('layers_t', 10), E'\n', 1) AS shared_strip;
SELECT split_part(cachectl.draw('layers_t'), E'\n', 2) LIKE '% blocks a character, drawn as most of them are: %' AS legend;

-- database_status: every relation of the database, the table among them
SELECT kind, size_bytes = pg_relation_size('layers_t', 'main') + pg_relation_size('layers_t', 'fsm')
                         + pg_relation_size('layers_t', 'vm') AS size_matches,
       shared_bytes = :layers_blocks * current_setting('block_size')::int AS shared_matches,
       both_bytes <= least(shared_bytes, os_bytes) AS double_in_bounds
FROM cachectl.database_status WHERE relation = 'layers_t'::regclass;
SELECT count(*) > 100 AS catalogs_too, bool_and(both_bytes <= shared_bytes) AS bounds
FROM cachectl.database_status;

-- cold_database: the whole database cold at once
SELECT relations > 100 AS relations_counted, os_pages_left FROM cachectl.cold_database();
SELECT shared_blocks, os_blocks FROM cachectl.status('layers_t') WHERE fork = 'main';

-- the internals of snapshots
SELECT * FROM cachectl_internal.prewarm_runs('layers_t', 'main', '{[0,5),[20,22)}', 'shared');
SELECT relation, fork, first_block, block_count FROM cachectl_internal.shared_block_runs(ARRAY['layers_t'::regclass])
WHERE fork = 'main';
SELECT * FROM cachectl_internal.prewarm_runs('layers_t', 'main', '{[10,12)}', 'os');
SELECT * FROM cachectl_internal.os_block_runs('layers_t') WHERE first_block >= 10;
SELECT cachectl_internal.system_identifier() ~ '^[0-9]+$' AS identifier_is_a_number;

-- a temporary table: status and draw say, as shared_residency does, that its
-- pages live in the session's local buffers (so none are counted)
CREATE TEMP TABLE layers_temp AS SELECT 1 AS one;
SELECT fork, shared_blocks FROM cachectl.status('layers_temp') WHERE fork = 'main';
SELECT length(cachectl.draw('layers_temp', 8)) > 0 AS drawn;
DROP TABLE layers_temp;

DROP TABLE layers_t;
DROP EXTENSION pg_buffercache;
DROP EXTENSION pg_cachectl;
