-- Metrics for scraping: database_summary (per relation kind) and
-- top_relations (the forks holding the most bytes per layer).  Figures are
-- compared, not printed, so the output holds with either OS engine.
CREATE EXTENSION pg_cachectl;

CREATE TABLE metrics_t (id int PRIMARY KEY, payload text);
INSERT INTO metrics_t SELECT g, repeat('m', 300) FROM generate_series(1, 5000) g;
VACUUM metrics_t;
SELECT pg_relation_size('metrics_t') AS metrics_t_bytes \gset

-- the shape: a view over the function, one row per kind, in this order
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type
FROM pg_attribute a WHERE a.attrelid = 'cachectl.database_summary'::regclass AND a.attnum > 0
ORDER BY a.attnum;
SELECT database = current_database() AS this_database, kind, relations > 0 AS has_relations
FROM cachectl.database_summary;
SELECT pg_get_function_arguments('cachectl.top_relations'::regproc) AS arguments,
       pg_get_function_result('cachectl.top_relations'::regproc) AS result;

-- the summary is database_status summed per kind (the same walk's figures)
SELECT count(*) FROM cachectl.database_summary \g /dev/null
SELECT (SELECT row(sum(size_bytes), sum(shared_bytes), sum(os_bytes), sum(both_bytes))
        FROM cachectl.database_summary)
     = (SELECT row(sum(size_bytes), sum(shared_bytes), sum(os_bytes), sum(both_bytes))
        FROM cachectl.database_status) AS summary_matches_status;
SELECT bool_and(shared_dirty_bytes <= shared_bytes AND both_bytes <= shared_bytes
                AND both_bytes <= os_bytes) AS bounds_hold
FROM cachectl.database_summary;

-- one vocabulary of kinds: database_status names each relation's kind as
-- database_summary counts it (a TOAST table's own index is an index)
CREATE SEQUENCE metrics_seq;
CREATE MATERIALIZED VIEW metrics_mv AS SELECT 1 AS one;
SELECT d.kind, count(*) AS relations
FROM cachectl.database_status AS d
WHERE d.relation::oid IN ('metrics_t'::regclass, 'metrics_t_pkey'::regclass, 'metrics_seq'::regclass,
                          'metrics_mv'::regclass,
                          (SELECT reltoastrelid FROM pg_class WHERE oid = 'metrics_t'::regclass),
                          (SELECT i.indexrelid FROM pg_index AS i, pg_class AS c
                           WHERE c.oid = 'metrics_t'::regclass AND i.indrelid = c.reltoastrelid))
GROUP BY d.kind ORDER BY d.kind;
SELECT (SELECT array_agg(kind || ':' || relations ORDER BY kind) FROM cachectl.database_summary WHERE relations > 0)
     = (SELECT array_agg(kind || ':' || relations ORDER BY kind)
        FROM (SELECT kind, count(*) AS relations FROM cachectl.database_status GROUP BY kind) AS k)
       AS summary_counts_status_kinds;
SELECT string_agg(kind, ', ') AS kinds FROM cachectl.database_summary;

-- a known state: the table cold, then all of it in shared buffers only
SELECT count(*) FROM cachectl.cold('metrics_t', cascade => true) \g /dev/null
SELECT count(*) FROM cachectl.prewarm('metrics_t', 'shared', drop_os_copy => true, fork => 'main') \g /dev/null
SELECT count(*) FROM cachectl.prewarm('metrics_t_pkey', 'shared', drop_os_copy => true, fork => 'main') \g /dev/null
SELECT layer, kind, fork, bytes = :metrics_t_bytes AS whole_table
FROM cachectl.top_relations(1000) WHERE relation = 'metrics_t' ORDER BY layer;
-- then in both layers: cached twice, all of it
SELECT count(*) FROM cachectl.prewarm('metrics_t', 'both', fork => 'main') \g /dev/null
SELECT layer, bytes = :metrics_t_bytes AS whole_table
FROM cachectl.top_relations(1000) WHERE relation = 'metrics_t' AND fork = 'main' ORDER BY layer;
-- bounded: at most n rows per layer, most bytes first
SELECT layer, count(*) <= 2 AS bounded FROM cachectl.top_relations(2) GROUP BY layer ORDER BY layer;
SELECT bool_and(ordered) AS most_first FROM (
    SELECT bytes <= lag(bytes, 1, bytes) OVER (PARTITION BY layer ORDER BY ord) AS ordered
    FROM cachectl.top_relations(50) WITH ORDINALITY AS t(database, schema, relation, kind, fork, layer, bytes, ord)) s;
SELECT DISTINCT schema, kind FROM cachectl.top_relations(1000) WHERE relation = 'metrics_t_pkey';

-- privileges: pg_monitor may read both, PUBLIC neither; top_relations lists
-- only tables the caller may SELECT, the summary counts every relation
CREATE ROLE regress_metrics_monitor IN ROLE pg_monitor;
CREATE ROLE regress_metrics_nobody;
SELECT p.proname, has_function_privilege('public', p.oid, 'EXECUTE') AS public_can_run,
       has_function_privilege('pg_monitor', p.oid, 'EXECUTE') AS monitor_can_run
FROM pg_proc p WHERE p.oid IN ('cachectl.database_summary'::regproc, 'cachectl.top_relations'::regproc)
ORDER BY 1;
SELECT has_table_privilege('public', 'cachectl.database_summary', 'SELECT') AS public_can_select,
       has_table_privilege('pg_monitor', 'cachectl.database_summary', 'SELECT') AS monitor_can_select;
SET ROLE regress_metrics_monitor;
SELECT count(*) AS kinds, sum(shared_bytes) >= :metrics_t_bytes AS counts_every_table
FROM cachectl.database_summary;
-- pg_monitor's top list ranks every relation, those it may not SELECT too
SELECT count(*) AS unselectable_rows FROM cachectl.top_relations(1000) WHERE relation LIKE 'metrics_t%';
RESET ROLE;
GRANT SELECT ON metrics_t TO regress_metrics_monitor;
SET ROLE regress_metrics_monitor;
SELECT DISTINCT relation FROM cachectl.top_relations(1000) WHERE relation LIKE 'metrics_t%' ORDER BY 1;
RESET ROLE;
SET ROLE regress_metrics_nobody;
\set VERBOSITY sqlstate
SELECT * FROM cachectl.database_summary;
SELECT * FROM cachectl.database_summary();
SELECT * FROM cachectl.top_relations();
\set VERBOSITY default
RESET ROLE;

-- search_path-safe: the view calls the extension's function, not a planted one
CREATE SCHEMA metrics_plant;
CREATE FUNCTION metrics_plant.database_summary(OUT database name, OUT kind text, OUT relations int8,
    OUT size_bytes int8, OUT shared_bytes int8, OUT shared_dirty_bytes int8,
    OUT os_bytes int8, OUT both_bytes int8)
RETURNS SETOF record LANGUAGE sql AS $$ SELECT 'planted'::name, 'planted', 0::int8, 0::int8, 0::int8, 0::int8, 0::int8, 0::int8 $$;
SET search_path = metrics_plant, public;
SELECT count(*) AS kinds, bool_and(database = current_database()) AS not_planted FROM cachectl.database_summary;
RESET search_path;
DROP SCHEMA metrics_plant CASCADE;

REVOKE SELECT ON metrics_t FROM regress_metrics_monitor;
DROP ROLE regress_metrics_monitor;
DROP ROLE regress_metrics_nobody;
DROP MATERIALIZED VIEW metrics_mv;
DROP SEQUENCE metrics_seq;
DROP TABLE metrics_t;
DROP EXTENSION pg_cachectl;
