-- os_residency and os_residency_total on every kind of relation.
CREATE EXTENSION pg_cachectl;

CREATE TABLE kinds_t (id int PRIMARY KEY, doc text);
-- incompressible values big enough to be stored out of line in TOAST
INSERT INTO kinds_t
SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 200) i)
FROM generate_series(1, 50) g;

-- helper: forks and segments of a relation, with the size matching the catalog
CREATE FUNCTION kinds_rows(rel regclass)
RETURNS TABLE (fork text, segment int, size_matches boolean, cached_in_bounds boolean)
LANGUAGE sql AS $$
    SELECT fork, segment, size_bytes = pg_relation_size(rel, fork), os_pages BETWEEN 0 AND size_pages
    FROM cachectl.os_residency(rel) ORDER BY fork, segment
$$;

-- a table, its primary-key index
SELECT * FROM kinds_rows('kinds_t');
SELECT * FROM kinds_rows('kinds_t_pkey');

-- its TOAST table and TOAST index
SELECT * FROM kinds_rows((SELECT reltoastrelid FROM pg_class WHERE oid = 'kinds_t'::regclass));
SELECT * FROM kinds_rows((SELECT indexrelid FROM pg_index
                          WHERE indrelid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'kinds_t'::regclass)));

-- a sequence
CREATE SEQUENCE kinds_seq;
SELECT * FROM kinds_rows('kinds_seq');

-- a materialized view, and one created empty (zero-length main fork)
CREATE MATERIALIZED VIEW kinds_mv AS SELECT id FROM kinds_t;
-- (main only: from PostgreSQL 18 on, a populated materialized view also has a vm fork)
SELECT * FROM kinds_rows('kinds_mv') WHERE fork = 'main';
CREATE MATERIALIZED VIEW kinds_mv_empty AS SELECT id FROM kinds_t WITH NO DATA;
SELECT fork, segment, size_bytes, size_pages, os_pages FROM cachectl.os_residency('kinds_mv_empty');

-- an empty table: one zero-length row for main; no fsm/vm forks yet
CREATE TABLE kinds_empty (id int);
SELECT fork, segment, size_bytes, size_pages, os_pages FROM cachectl.os_residency('kinds_empty');
-- a fork that does not exist gives no row
SELECT count(*) AS fsm_rows FROM cachectl.os_residency('kinds_empty', 'fsm');

-- an unlogged table has an init fork (and so do its indexes)
CREATE UNLOGGED TABLE kinds_unlogged (id int PRIMARY KEY);
INSERT INTO kinds_unlogged SELECT generate_series(1, 1000);
SELECT * FROM kinds_rows('kinds_unlogged');
SELECT * FROM kinds_rows('kinds_unlogged_pkey');

-- a temporary table of this session: its files carry the backend's number
CREATE TEMP TABLE kinds_temp (id int);
INSERT INTO kinds_temp SELECT generate_series(1, 1000);
SELECT fork, segment, path ~ '^base/[0-9]+/t[0-9]+_[0-9]+(_fsm|_vm)?$' AS temp_path FROM cachectl.os_residency('kinds_temp');
SELECT count(*) AS temp_totals FROM cachectl.os_residency_total('kinds_temp', cascade => true);

-- a relation rewritten in this transaction reports its new files
BEGIN;
TRUNCATE kinds_unlogged;
SELECT fork, size_bytes FROM cachectl.os_residency('kinds_unlogged') ORDER BY fork;
ROLLBACK;

-- a system catalog (a mapped relation)
SELECT count(*) > 0 AS catalog_rows FROM cachectl.os_residency('pg_class');

DROP FUNCTION kinds_rows(regclass);
DROP MATERIALIZED VIEW kinds_mv, kinds_mv_empty;
DROP TABLE kinds_t, kinds_empty, kinds_unlogged, kinds_temp;
DROP SEQUENCE kinds_seq;
DROP EXTENSION pg_cachectl;
