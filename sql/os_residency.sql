-- os_residency: one row per fork and segment, counts consistent with the
-- files, with either engine.
CREATE EXTENSION pg_cachectl;

CREATE TABLE residency_t (id int PRIMARY KEY, payload text);
INSERT INTO residency_t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
VACUUM residency_t;    -- creates the fsm and vm forks
CHECKPOINT;            -- written back: nothing dirty in the OS cache

-- Rows: one per existing fork, each matching the relation's own files.
SELECT fork, segment,
       path = pg_relation_filepath('residency_t') || CASE fork WHEN 'main' THEN '' ELSE '_' || fork END AS path_matches,
       size_bytes = pg_relation_size('residency_t', fork) AS size_matches,
       size_pages = ceil(size_bytes::numeric / cachectl.os_page_size()) AS os_pages_match,
       os_pages BETWEEN 0 AND size_pages AS cached_in_bounds
FROM cachectl.os_residency('residency_t')
ORDER BY fork, segment;

-- One fork only.
SELECT fork, segment FROM cachectl.os_residency('residency_t', 'vm');
SELECT fork, segment FROM cachectl.os_residency('residency_t', fork => 'main');

-- A table just written and checkpointed sits in the OS cache.
SELECT os_pages > 0 AS main_is_cached FROM cachectl.os_residency('residency_t', 'main');

-- The cachestat-only counters: NULL with mincore, consistent with cachestat.
SET cachectl.os_engine = mincore;
SELECT fork, os_dirty_pages IS NULL AS dirty_null, os_writeback_pages IS NULL AS writeback_null,
       os_evicted_pages IS NULL AS evicted_null, os_recently_evicted_pages IS NULL AS recent_null
FROM cachectl.os_residency('residency_t') ORDER BY fork;
CREATE TEMP TABLE by_mincore AS
    SELECT fork, segment, size_bytes, size_pages FROM cachectl.os_residency('residency_t');
RESET cachectl.os_engine;

-- Both engines see the same files; with cachestat, the counters obey their
-- bounds (checked whichever engine auto chose here).
SELECT r.fork, r.size_bytes = m.size_bytes AS same_size, r.size_pages = m.size_pages AS same_pages,
       cachectl.os_engine() = 'mincore' OR (r.os_dirty_pages BETWEEN 0 AND r.os_pages
                                            AND r.os_writeback_pages >= 0
                                            AND r.os_evicted_pages >= 0
                                            AND r.os_recently_evicted_pages BETWEEN 0 AND r.os_evicted_pages) AS counters_sane
FROM cachectl.os_residency('residency_t') r JOIN by_mincore m USING (fork, segment)
ORDER BY r.fork;

-- Forcing cachestat works where the kernel has it, else fails with 0A000.
CREATE FUNCTION forced_cachestat_behaves() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    auto_engine text := cachectl.os_engine();
    forced_rows int;
BEGIN
    SET LOCAL cachectl.os_engine = cachestat;
    SELECT count(*) INTO forced_rows FROM cachectl.os_residency('residency_t');
    RETURN forced_rows = 3 AND cachectl.os_engine() = 'cachestat';
EXCEPTION WHEN feature_not_supported THEN
    RETURN auto_engine = 'mincore';
END $$;
SELECT forced_cachestat_behaves();

-- Totals: the sum of the rows, and os_bytes in bytes.
SELECT t.relation, t.size_bytes = s.size_bytes AS size_sums, t.size_pages = s.size_pages AS pages_sum,
       t.os_bytes = t.os_pages * cachectl.os_page_size() AS bytes_match
FROM cachectl.os_residency_total('residency_t') t,
     (SELECT sum(size_bytes) AS size_bytes, sum(size_pages) AS size_pages
      FROM cachectl.os_residency('residency_t')) s;

-- NULL relation: no rows; NULL fork: every fork.
SELECT count(*) FROM cachectl.os_residency(NULL);
SELECT count(*) FROM cachectl.os_residency('residency_t', NULL);
SELECT count(*) FROM cachectl.os_residency_total(NULL);

DROP FUNCTION forced_cachestat_behaves();
DROP TABLE residency_t;
DROP EXTENSION pg_cachectl;
