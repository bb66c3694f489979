-- Evicting shared buffers: nothing dirty is lost, nothing pinned is touched.
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;

CREATE TABLE ev_t (id int PRIMARY KEY, doc text);
INSERT INTO ev_t
SELECT g, CASE WHEN g % 100 = 0
               THEN (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i)
               ELSE 'small ' || g END
FROM generate_series(1, 5000) g;
-- its visibility map exists on every version (19's plain SELECT makes one,
-- or not, where 15-18 never do)
VACUUM ev_t;
SELECT reltoastrelid::regclass AS ev_toast FROM pg_class WHERE oid = 'ev_t'::regclass \gset
SELECT indexrelid::regclass AS ev_toast_index FROM pg_index WHERE indrelid = :'ev_toast'::regclass \gset

-- shared buffers holding a relation's main fork, as pg_buffercache sees them
-- (an update reads the visibility map and free space map again)
CREATE FUNCTION ev_buffers(rel regclass) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM pg_buffercache
    WHERE relfilenode = pg_relation_filenode(rel) AND relforknumber = 0
      AND reldatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
$$;

-- load everything, then evict the table alone
SELECT count(*), sum(length(doc)) > 0 AS read_toast FROM ev_t;
SELECT count(*) FROM ev_t WHERE id BETWEEN 10 AND 20;    -- through the index
SELECT ev_buffers('ev_t') > 0 AS table_cached, ev_buffers('ev_t_pkey') > 0 AS index_cached,
       ev_buffers(:'ev_toast') > 0 AS toast_cached;
SELECT relation, fork, buffers_evicted > 0 AS evicted, buffers_skipped
FROM cachectl.evict('ev_t') ORDER BY fork;
SELECT ev_buffers('ev_t') AS table_buffers, ev_buffers('ev_t_pkey') > 0 AS index_still_cached;

-- cascade: the TOAST table, its index and the table's index go too
SELECT count(*), sum(length(doc)) > 0 AS read_toast FROM ev_t;
SELECT count(*) FROM ev_t WHERE id BETWEEN 10 AND 20;
SELECT relation = 'ev_t'::regclass AS is_table, relation = 'ev_t_pkey'::regclass AS is_index,
       relation = :'ev_toast'::regclass AS is_toast, relation = :'ev_toast_index'::regclass AS is_toast_index,
       fork, buffers_skipped
FROM cachectl.evict('ev_t', cascade => true) ORDER BY relation::oid = 'ev_t'::regclass DESC, relation::text, fork;
SELECT ev_buffers('ev_t') + ev_buffers('ev_t_pkey') + ev_buffers(:'ev_toast') + ev_buffers(:'ev_toast_index') AS left_cached;

-- a dirty page is written before its buffer is dropped: the update survives
UPDATE ev_t SET doc = 'updated just before evict' WHERE id = 42;
SELECT shared_dirty_blocks > 0 AS has_dirty FROM cachectl.shared_residency('ev_t', 'main');
SELECT buffers_flushed > 0 AS flushed, buffers_evicted >= buffers_flushed AS consistent
FROM cachectl.evict('ev_t', 'main');
SELECT ev_buffers('ev_t') AS table_buffers;
SELECT doc FROM ev_t WHERE id = 42;

-- a buffer pinned by an open cursor (of this very session) is skipped, and
-- the cursor goes on
BEGIN;
DECLARE ev_cursor CURSOR FOR SELECT id FROM ev_t;  -- a plain scan keeps its page pinned
FETCH 2 FROM ev_cursor;
SELECT buffers_skipped >= 1 AS pinned_skipped FROM cachectl.evict('ev_t', 'main');
SELECT shared_pinned_blocks >= 1 AS still_pinned, shared_blocks >= 1 AS still_cached FROM cachectl.shared_residency('ev_t', 'main');
-- evict_buffer says why it left the pinned buffer alone
SELECT bufferid AS ev_pinned_buffer FROM pg_buffercache
WHERE relfilenode = pg_relation_filenode('ev_t') AND relforknumber = 0 AND pinning_backends > 0 LIMIT 1 \gset
SELECT cachectl.evict_buffer(:ev_pinned_buffer);
FETCH 2 FROM ev_cursor;
COMMIT;

-- one buffer by number, as in pg_buffercache
SELECT count(*) FROM ev_t WHERE id = 7;
SELECT bufferid AS ev_buffer FROM pg_buffercache
WHERE relfilenode = pg_relation_filenode('ev_t') AND relforknumber = 0 LIMIT 1 \gset
SELECT evicted, reason FROM cachectl.evict_buffer(:ev_buffer);
SELECT count(*) AS still_there FROM pg_buffercache
WHERE bufferid = :ev_buffer AND relfilenode = pg_relation_filenode('ev_t');
-- an empty buffer: nothing to evict, and the reason says so
SELECT cachectl.evict_buffer(:ev_buffer);

-- a partitioned table stands for its partitions
CREATE TABLE ev_p (id int, region text) PARTITION BY LIST (region);
CREATE TABLE ev_p_a PARTITION OF ev_p FOR VALUES IN ('a');
CREATE TABLE ev_p_b PARTITION OF ev_p FOR VALUES IN ('b');
INSERT INTO ev_p SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(1, 4000) g;
VACUUM ev_p;
SELECT relation, fork, buffers_evicted > 0 AS evicted, buffers_skipped FROM cachectl.evict('ev_p') ORDER BY 1, 2;
SELECT ev_buffers('ev_p_a') + ev_buffers('ev_p_b') AS partition_buffers;

-- many relations in one call
SELECT count(*) FROM ev_t;
SELECT count(*) FROM ev_p;
SELECT relation, fork, buffers_skipped
FROM cachectl.evict_relations(ARRAY['ev_t', 'ev_p_a', 'ev_p']::regclass[]) ORDER BY 1, 2;
SELECT ev_buffers('ev_t') + ev_buffers('ev_p_a') + ev_buffers('ev_p_b') AS left_cached;
SELECT count(*) FROM cachectl.evict_relations('{}');

-- temporary relations: their buffers are local to their session
CREATE TEMP TABLE ev_temp (id int);
INSERT INTO ev_temp VALUES (1);
\set VERBOSITY sqlstate
SELECT * FROM cachectl.evict('ev_temp');
\set VERBOSITY default
SELECT * FROM cachectl.evict('ev_temp');
-- in a list, a temporary relation is skipped with a NOTICE
SELECT relation, fork FROM cachectl.evict_relations(ARRAY['ev_t'::regclass, 'ev_temp'::regclass], 'main');
-- a database, and everything: one row of counts (a composite, not a set)
SELECT buffers_evicted >= 0 AND buffers_flushed <= buffers_evicted AND buffers_skipped >= 0 AS counted,
       buffers_failed
FROM cachectl.evict_database();
SELECT count(*) FROM ev_t;
SELECT buffers_evicted > 0 AS evicted_some, buffers_failed FROM cachectl.evict_all();
SELECT ev_buffers('ev_t') AS table_buffers;
SELECT pg_typeof(cachectl.evict_all()) AS evict_all_returns,
       (cachectl.evict_database()).buffers_failed AS database_failed,
       (cachectl.evict_all()).buffers_failed AS all_failed;

-- an eviction is no read: EXPLAIN (BUFFERS) does not count the buffers it
-- evicts as shared hits
CREATE FUNCTION ev_shared_hits(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) ' || query INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint;
END
$$;
SELECT count(*) FROM ev_t;
SELECT count(*) FROM ev_t WHERE id BETWEEN 1 AND 2000;
SELECT ev_buffers('ev_t') + ev_buffers('ev_t_pkey') AS ev_loaded \gset
SELECT :ev_loaded > 20 AS loaded_enough;
SELECT ev_shared_hits($$SELECT * FROM cachectl.evict('ev_t', cascade => true)$$) < :ev_loaded / 2 AS evictions_not_hits;
SELECT ev_buffers('ev_t') + ev_buffers('ev_t_pkey') AS left_cached;

-- a list naming one relation a million times is one relation: duplicates go
-- before the list is expanded (and before the cap below is applied)
SELECT relation = 'ev_t'::regclass AS is_table, fork
FROM cachectl.evict_relations(array_fill('ev_t'::regclass, ARRAY[1000000]), 'main', cascade => true)
ORDER BY relation::oid = 'ev_t'::regclass DESC, relation::text;
DROP FUNCTION ev_buffers(regclass);
DROP FUNCTION ev_shared_hits(text);
DROP TABLE ev_t, ev_p, ev_temp;
DROP EXTENSION pg_buffercache;
DROP EXTENSION pg_cachectl;
