-- shared_residency: what shared buffers hold of each relation fork.
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;

CREATE TABLE sr_t (id int PRIMARY KEY, doc text);
INSERT INTO sr_t SELECT g, repeat('s', 100) FROM generate_series(1, 3000) g;
VACUUM sr_t;
SELECT count(*) AS forks_evicted FROM cachectl.evict('sr_t', cascade => true);

-- after eviction: the forks and their sizes, no buffer
SELECT relation, fork, size_blocks = pg_relation_size('sr_t', fork) / current_setting('block_size')::int AS size_blocks_match,
       size_bytes = pg_relation_size('sr_t', fork) AS size_bytes_match,
       shared_blocks, shared_bytes, shared_dirty_blocks, shared_dirty_bytes, shared_pinned_blocks, usage_count_avg
FROM cachectl.shared_residency('sr_t') ORDER BY fork;

-- read it all: buffers appear, clean and unpinned, and match pg_buffercache
SELECT count(*) FROM sr_t;
SELECT r.fork, r.shared_blocks = b.buffers AS matches_pg_buffercache, r.shared_blocks <= r.size_blocks AS within_fork,
       r.shared_dirty_blocks, r.shared_pinned_blocks, r.usage_count_avg BETWEEN 1 AND 5 AS usage_in_range
FROM cachectl.shared_residency('sr_t', 'main') r,
     (SELECT count(*) AS buffers FROM pg_buffercache
      WHERE relfilenode = pg_relation_filenode('sr_t') AND relforknumber = 0) b;

-- the byte columns are the buffer counts in bytes; the average has two decimals
SELECT shared_bytes = shared_blocks * current_setting('block_size')::int8 AS shared_bytes_ok,
       size_bytes = size_blocks * current_setting('block_size')::int8 AS size_bytes_ok,
       usage_count_avg::numeric = round(usage_count_avg::numeric, 2) AS rounded
FROM cachectl.shared_residency('sr_t', 'main');

-- an update dirties buffers
UPDATE sr_t SET doc = 'changed' WHERE id <= 10;
SELECT shared_dirty_blocks > 0 AS has_dirty, shared_dirty_bytes = shared_dirty_blocks * current_setting('block_size')::int8 AS dirty_bytes_ok
FROM cachectl.shared_residency('sr_t', 'main');
-- a usage count average that is not a whole number is rounded: one buffer
-- read once more than the others
SELECT count(*) FROM sr_t WHERE id = 1;
SELECT usage_count_avg::numeric = round(usage_count_avg::numeric, 2) AS two_decimals
FROM cachectl.shared_residency('sr_t', 'main');

-- cascade reports the index and the TOAST relations too
SELECT relation = 'sr_t'::regclass AS is_table, fork
FROM cachectl.shared_residency('sr_t', 'main', cascade => true)
ORDER BY relation::oid = 'sr_t'::regclass DESC, relation::text;

-- a fork that does not exist: no row; a NULL relation: no row
CREATE TABLE sr_empty (id int);
SELECT count(*) FROM cachectl.shared_residency('sr_empty', 'vm');
SELECT count(*) FROM cachectl.shared_residency(NULL);

-- a temporary table: reported, with a NOTICE that its pages live in the
-- session's local buffers (so none are counted here)
CREATE TEMP TABLE sr_temp AS SELECT 1 AS one;
SELECT fork, shared_blocks FROM cachectl.shared_residency('sr_temp');

DROP TABLE sr_t, sr_empty, sr_temp;
DROP EXTENSION pg_buffercache;
DROP EXTENSION pg_cachectl;
