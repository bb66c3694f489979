-- The examples of docs/REGRESSION_TESTING.md, as a suite: a
-- known cold state, then assertions on a plan node's buffer counts, on
-- status() before and after a query, and on os_residency around a
-- maintenance job.  Written so that the output is the same on PostgreSQL
-- 15 to 19, with either OS engine, on any filesystem: no count that depends
-- on readahead, on tmpfs or on the EXPLAIN text format of a major is printed.
CREATE EXTENSION pg_cachectl;

-- What makes buffer counts repeatable.
SET max_parallel_workers_per_gather = 0;  -- one process reads every block, whatever workers are free
SET synchronize_seqscans = off;           -- a large table's scan starts at block 0, not where another one is
SET client_min_messages = warning;        -- on tmpfs, cache advice adds a NOTICE

CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL, placed_on date NOT NULL, note text NOT NULL);
INSERT INTO orders
SELECT g, g % 997, date '2026-01-01' + g % 365, repeat('n', 60) FROM generate_series(1, 100000) g;
-- Hint bits, visibility map and statistics now: no query below dirties a
-- page or sets a bit (the first scan of fresh rows would), and plans hold.
VACUUM (FREEZE, ANALYZE) orders;
-- Nothing dirty: cold() has nothing to write, and no background writer or
-- checkpoint pins a buffer of orders while it evicts.
CHECKPOINT;

-- A plan node's buffer counts as columns, from EXPLAIN (FORMAT JSON): one
-- row per node in the order EXPLAIN prints them; a node's counts include
-- its children's, as EXPLAIN shows them.  The query runs (ANALYZE), in the
-- caller's search_path.
CREATE FUNCTION plan_buffers(query text)
RETURNS TABLE (node int, depth int, node_type text, relation text, index_name text, loops int8,
               shared_hit int8, shared_read int8, shared_dirtied int8, shared_written int8)
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query
       INTO plan;
    RETURN QUERY
    WITH RECURSIVE nodes (path, item) AS (
        SELECT ARRAY[1], plan -> 0 -> 'Plan'
        UNION ALL
        SELECT n.path || c.position::int, c.item
        FROM nodes AS n, json_array_elements(n.item -> 'Plans') WITH ORDINALITY AS c (item, position)
    )
    SELECT (row_number() OVER (ORDER BY n.path))::int, cardinality(n.path) - 1,
           n.item ->> 'Node Type', n.item ->> 'Relation Name', n.item ->> 'Index Name',
           (n.item ->> 'Actual Loops')::int8,
           (n.item ->> 'Shared Hit Blocks')::int8, (n.item ->> 'Shared Read Blocks')::int8,
           (n.item ->> 'Shared Dirtied Blocks')::int8, (n.item ->> 'Shared Written Blocks')::int8
    FROM nodes AS n
    ORDER BY n.path;
END
$$;

-- 1. A plan node's reads.  After cold() no block of orders or its index is
-- in shared buffers, so a lookup reads the index root, one leaf and one heap
-- block: 3 reads, no hit, on every machine.
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT node_type, relation, index_name, shared_hit, shared_read
FROM plan_buffers('SELECT * FROM orders WHERE id = 4242');
-- the same lookup again: the 3 blocks are hits now
SELECT node_type, shared_hit, shared_read
FROM plan_buffers('SELECT * FROM orders WHERE id = 4243');
-- an index-only scan reads root, leaf and the visibility map page instead
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT node_type, shared_hit, shared_read
FROM plan_buffers('SELECT id FROM orders WHERE id = 4242');
-- a whole sequential scan reads every block once, and dirties none
SELECT pg_relation_size('orders') / current_setting('block_size')::int AS orders_blocks \gset
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT node, node_type, shared_hit, shared_read = :orders_blocks AS reads_every_block, shared_dirtied
FROM plan_buffers('SELECT count(*) FROM orders');
-- with blocks 0-99 loaded first, those are hits and the rest reads
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT shared_blocks_loaded FROM cachectl.prewarm('orders', 'shared', first_block => 0, last_block => 99, fork => 'main');
SELECT node_type, shared_hit, shared_hit + shared_read = :orders_blocks AS hit_and_read_cover_the_table
FROM plan_buffers('SELECT count(*) FROM orders') WHERE relation = 'orders';

-- 2. status() before and after a query: "it brought 3 blocks into shared
-- buffers and left the OS cache as it was".  The OS cache holds orders and
-- its index whole, shared buffers none of them.
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT relation, os_pages_pending FROM cachectl.os_prefetch('orders', fork => 'main');
SELECT relation, os_pages_pending FROM cachectl.os_prefetch('orders_pkey', fork => 'main');
-- (with the pages the host's reclaim took since the prefetch, as cachestat
-- counts them: none unless the page cache is under pressure;
-- docs/REGRESSION_TESTING.md shows the plain comparisons)
CREATE TEMP TABLE status_before AS
SELECT s.relation, s.fork, s.shared_blocks, s.os_blocks,
       (SELECT coalesce(sum(r.os_evicted_pages), 0) FROM cachectl.os_residency(s.relation, s.fork) AS r) AS evicted_pages
FROM cachectl.status('orders', cascade => true) AS s;
SELECT id, customer FROM orders WHERE id = 4242;
-- os_cache_as_it_was: no block added or lost but what reclaim took and the
-- query read back; os_cache_holds_all: every block but the reclaimed ones
SELECT a.relation, a.fork, a.shared_blocks - b.shared_blocks AS shared_blocks_added,
       a.os_blocks - b.os_blocks BETWEEN -e.evicted_pages
                                 AND least(a.shared_blocks - b.shared_blocks, b.evicted_pages) AS os_cache_as_it_was,
       a.size_blocks - a.os_blocks <= e.evicted_pages AS os_cache_holds_all
FROM cachectl.status('orders', cascade => true) AS a JOIN status_before AS b USING (relation, fork),
     LATERAL (SELECT coalesce(sum(r.os_evicted_pages), 0) AS evicted_pages
              FROM cachectl.os_residency(a.relation, a.fork) AS r) AS e
WHERE a.relation IN ('orders'::regclass, 'orders_pkey'::regclass) AND a.fork = 'main'
ORDER BY a.relation::text;
-- and nothing else of orders changed in either layer (but for reclaim)
SELECT count(*) AS other_forks_changed
FROM cachectl.status('orders', cascade => true) AS a JOIN status_before AS b USING (relation, fork),
     LATERAL (SELECT coalesce(sum(r.os_evicted_pages), 0) AS evicted_pages
              FROM cachectl.os_residency(a.relation, a.fork) AS r) AS e
WHERE NOT (a.relation IN ('orders'::regclass, 'orders_pkey'::regclass) AND a.fork = 'main')
  AND (a.shared_blocks IS DISTINCT FROM b.shared_blocks
       OR a.os_blocks > b.os_blocks OR b.os_blocks - a.os_blocks > e.evicted_pages);
DROP TABLE status_before;

-- 3. os_residency around a maintenance job that must not pollute the page
-- cache: it reads a whole archive table, then puts the archive's OS cache
-- back as it found it (its first 50 blocks, which a daily report reads).
-- "As before" holds on a disk and on tmpfs (always all cached) alike.
CREATE TABLE orders_archive AS
SELECT g AS id, date '2020-01-01' + g % 1461 AS placed_on, repeat('a', 100) AS note
FROM generate_series(1, 30000) g;
VACUUM (FREEZE, ANALYZE) orders_archive;
CHECKPOINT;
CREATE TABLE monthly_totals (month date PRIMARY KEY, orders int8 NOT NULL);
CREATE PROCEDURE refresh_monthly_totals()
LANGUAGE plpgsql AS $$
DECLARE
    archive_cached varbit := cachectl.os_map('orders_archive', fork => 'main');
BEGIN
    DELETE FROM monthly_totals;
    INSERT INTO monthly_totals
    SELECT date_trunc('month', placed_on)::date, count(*) FROM orders_archive GROUP BY 1;
    -- the scan pulled the whole archive into the kernel's cache: put back what was there
    PERFORM cachectl.os_restore('orders_archive', archive_cached, drop_others => true, fork => 'main');
END
$$;
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders_archive');
SELECT os_pages_pending FROM cachectl.os_prefetch('orders_archive', first_block => 0, last_block => 49, fork => 'main');
CREATE TEMP TABLE residency_before AS
SELECT fork, segment, os_pages FROM cachectl.os_residency('orders_archive');
CALL refresh_monthly_totals();
-- As before means nothing added and a few pages fewer at most: the host's
-- reclaim may take some meanwhile (the pgTAP copy once found 96 of 98 beside
-- three other servers); the scan without the restore leaves the whole archive.
SELECT count(*) AS segment_files,
       bool_and(a.os_pages <= b.os_pages AND a.os_pages >= b.os_pages - greatest(4, b.os_pages / 16)) AS os_cache_as_before
FROM cachectl.os_residency('orders_archive') AS a JOIN residency_before AS b USING (fork, segment);
SELECT count(*) AS months, sum(orders) AS orders FROM monthly_totals;
DROP TABLE residency_before;

-- Where the reads came from (since 1.2): after cold() the lookup asks the
-- kernel for its 3 blocks (whether the page cache or the device served them
-- depends on the filesystem, tmpfs cannot drop its pages, and on io_method:
-- NULL with 18's default, worker); read again, it is served from shared
-- buffers, nothing asked of the kernel.
SELECT bool_and(shared_blocks_left = 0) AS nothing_left FROM cachectl.cold('orders', cascade => true);
SELECT node_type, relation, index, shared_hit_blocks, read_blocks
FROM cachectl.explain_reads('SELECT * FROM orders WHERE id = 4242') WHERE node_type <> 'Query';
SELECT node_type, shared_hit_blocks, read_blocks
FROM cachectl.explain_reads('SELECT * FROM orders WHERE id = 4242') WHERE node_type <> 'Query';

DROP PROCEDURE refresh_monthly_totals();
DROP TABLE monthly_totals, orders_archive;
DROP FUNCTION plan_buffers(text);
DROP TABLE orders;
DROP EXTENSION pg_cachectl;
