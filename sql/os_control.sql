-- OS page-cache control: os_drop, os_prefetch, os_map, os_restore, os_draw.
-- Counts are compared, never printed, so the output holds with either
-- engine and on any page size.
CREATE EXTENSION pg_cachectl;

CREATE TABLE control_t (id int PRIMARY KEY, payload text);
INSERT INTO control_t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
VACUUM control_t;    -- creates the fsm and vm forks
SELECT pg_relation_size('control_t') / current_setting('block_size')::int AS control_blocks \gset

-- os_drop: one row per existing fork, nothing cached afterwards, even though
-- the table was never checkpointed (its pages were dirty in the OS cache).
SELECT relation, fork, os_pages_before > 0 AS was_cached,
       os_bytes_before = os_pages_before * cachectl.os_page_size() AS before_bytes_match,
       os_dirty_pages_before IS NULL OR os_dirty_pages_before BETWEEN 0 AND os_pages_before AS dirty_in_bounds,
       os_pages_after, os_bytes_after
FROM cachectl.os_drop('control_t') ORDER BY fork;
SELECT fork, os_pages FROM cachectl.os_residency('control_t') ORDER BY fork;
-- with cascade: the index too; one fork only
SELECT count(*) AS forks, count(*) FILTER (WHERE relation = 'control_t_pkey'::regclass) AS of_the_index,
       bool_and(fork = 'main') AS main_only, bool_and(os_pages_after = 0) AS all_dropped
FROM cachectl.os_drop('control_t', 'main', cascade => true);

-- os_prefetch waits until the pages are read: nothing pending afterwards.
SELECT relation, fork, blocks_requested = :control_blocks AS all_blocks,
       os_pages_after = ceil(:control_blocks * current_setting('block_size')::numeric / cachectl.os_page_size())
           AS all_pages_read,
       os_bytes_after = os_pages_after * cachectl.os_page_size() AS bytes_match,
       os_pages_pending, seconds >= 0 AS timed
FROM cachectl.os_prefetch('control_t', fork => 'main');
SELECT bit_count(cachectl.os_map('control_t', fork => 'main')) = :control_blocks AS map_all_set;

-- A block range, inclusive; every fork with fork => NULL.
SELECT * FROM cachectl.os_drop('control_t', 'main') \gset dropped_
SELECT blocks_requested, os_pages_pending
FROM cachectl.os_prefetch('control_t', first_block => 10, last_block => 20, fork => 'main');
SELECT substring(cachectl.os_map('control_t', fork => 'main') FROM 11 FOR 11) AS range_cached,
       length(cachectl.os_map('control_t', fork => 'main')) = :control_blocks AS map_length;
SELECT fork, os_pages_pending FROM cachectl.os_prefetch('control_t', fork => NULL) ORDER BY fork;
SELECT blocks_requested FROM cachectl.os_prefetch('control_t', first_block => :control_blocks - 1, fork => 'main');
SELECT blocks_requested FROM cachectl.os_prefetch('control_t', last_block => 0, fork => 'main');
-- throttled, and without waiting
SELECT blocks_requested = :control_blocks AS all_blocks, os_pages_pending = 0 AS read
FROM cachectl.os_prefetch('control_t', max_mb_per_sec => 1000, fork => 'main');
SELECT blocks_requested = :control_blocks AS all_blocks, os_pages_pending >= 0 AS pending_counted
FROM cachectl.os_prefetch('control_t', wait => false, fork => 'main');

-- os_map -> os_drop -> os_restore gives the map back exactly, with both engines.
SELECT * FROM cachectl.os_drop('control_t', 'main') \gset dropped_
SELECT os_pages_pending FROM cachectl.os_prefetch('control_t', first_block => 0, last_block => 99, fork => 'main');
SELECT os_pages_pending FROM cachectl.os_prefetch('control_t', first_block => 300, last_block => 301, fork => 'main');
SELECT cachectl.os_map('control_t', fork => 'main') AS saved_map \gset
SELECT * FROM cachectl.os_prefetch('control_t', first_block => 200, last_block => 250, fork => 'main') \gset extra_
-- (the map's count, not 102: this host's reclaim may take a page just read)
SELECT relation, fork, os_blocks_loaded = bit_count(:'saved_map'::varbit) AS loaded_the_map,
       blocks_past_end, os_pages_pending
FROM cachectl.os_restore('control_t', :'saved_map', drop_others => true, fork => 'main');
SELECT cachectl.os_map('control_t', fork => 'main') = :'saved_map'::varbit AS map_reproduced;
SET cachectl.os_engine = mincore;
SELECT cachectl.os_map('control_t', fork => 'main') = :'saved_map'::varbit AS same_map_with_mincore;
SELECT (cachectl.os_restore('control_t', :'saved_map', drop_others => true, fork => 'main')).os_blocks_loaded
       = bit_count(:'saved_map'::varbit) AS loaded_the_map;
SELECT cachectl.os_map('control_t', fork => 'main') = :'saved_map'::varbit AS reproduced_with_mincore;
RESET cachectl.os_engine;
-- without drop_others, what was cached stays
SELECT (cachectl.os_restore('control_t', B'1', 'main')).os_blocks_loaded;
SELECT cachectl.os_map('control_t', fork => 'main') = :'saved_map'::varbit AS still_the_same;
-- a map longer than the fork: what exists is loaded, the rest reported
SELECT os_blocks_loaded, blocks_past_end
FROM cachectl.os_restore('control_t', B'1111' || repeat('0', :control_blocks - 4)::varbit || B'111', fork => 'main');
-- a fork without a file: everything is past its end
SELECT os_blocks_loaded, blocks_past_end FROM cachectl.os_restore('control_t', B'101', 'init');
SELECT length(cachectl.os_map('control_t', 'init')) AS init_map_length;

-- os_draw: one character per run of blocks, and a legend.
SELECT cachectl.os_draw(B'11110000', 8);
SELECT cachectl.os_draw(B'1111000011001000', 4);
SELECT cachectl.os_draw(B'101', 64);
SELECT cachectl.os_draw(B'', 10);
SELECT split_part(cachectl.os_draw(cachectl.os_map('control_t', fork => 'main'), 10), E'\n', 1) ~ '^\|[ .:#]{1,10}\|$' AS strip_shape;

-- A partitioned table stands for its partitions in os_drop and os_prefetch.
CREATE TABLE control_p (id int) PARTITION BY RANGE (id);
CREATE TABLE control_p1 PARTITION OF control_p FOR VALUES FROM (0) TO (1000);
CREATE TABLE control_p2 PARTITION OF control_p FOR VALUES FROM (1000) TO (2000);
INSERT INTO control_p SELECT g FROM generate_series(0, 1999) g;
SELECT relation, fork, os_pages_after FROM cachectl.os_drop('control_p')
WHERE fork = 'main' ORDER BY relation::text;
SELECT relation, fork, os_pages_pending FROM cachectl.os_prefetch('control_p', fork => 'main') ORDER BY relation::text;

-- Progress and the closing log line are settings.
SHOW cachectl.progress;
SHOW cachectl.log_actions;

DROP TABLE control_p;
DROP TABLE control_t;
DROP EXTENSION pg_cachectl;
