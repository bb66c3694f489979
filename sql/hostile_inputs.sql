-- Hostile inputs, table-driven: every function of the extension, every
-- argument, against relations of every kind, OIDs that are none, NULLs,
-- bad forks, ranges, throttles, widths, maps, targets, labels and settings.
-- Each case prints 'row' (a non-null row came back), 'none' (no row, or
-- only nulls) or the SQLSTATE it failed with; no case may fail with XX000,
-- and the server answers after each.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE hi_t (id int PRIMARY KEY, payload text);
INSERT INTO hi_t SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;
-- its visibility map exists on every version (19's plain SELECT would make
-- one where 15-18 have none)
VACUUM hi_t;
CREATE INDEX hi_t_brin ON hi_t USING brin (id);
CREATE TABLE hi_empty (id int);
CREATE UNLOGGED TABLE hi_unlogged (id int);
INSERT INTO hi_unlogged SELECT generate_series(1, 100);
CREATE VIEW hi_v AS SELECT 1 AS one;
CREATE MATERIALIZED VIEW hi_mv AS SELECT id FROM hi_t;
CREATE MATERIALIZED VIEW hi_mv_nodata AS SELECT id FROM hi_t WITH NO DATA;
CREATE TABLE hi_p (id int) PARTITION BY RANGE (id);
CREATE TABLE hi_p1 PARTITION OF hi_p FOR VALUES FROM (0) TO (100);
CREATE INDEX hi_p_idx ON hi_p (id);
CREATE TABLE hi_p_empty (id int) PARTITION BY LIST (id);
INSERT INTO hi_p SELECT generate_series(0, 99);
CREATE SEQUENCE hi_seq;
CREATE TYPE hi_composite AS (a int);
CREATE FOREIGN DATA WRAPPER hi_fdw;
CREATE SERVER hi_server FOREIGN DATA WRAPPER hi_fdw;
CREATE FOREIGN TABLE hi_foreign (id int) SERVER hi_server;
CREATE TEMP TABLE hi_temp AS SELECT generate_series(1, 100) AS id;
SELECT pg_relation_size('hi_t') / current_setting('block_size')::int AS hi_t_blocks;

-- 'row', 'none' or the SQLSTATE of a call used as a FROM item
CREATE FUNCTION hi_outcome(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n int8;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s AS r WHERE NOT (r IS NULL)', call) INTO n;
    RETURN CASE WHEN n > 0 THEN 'row' ELSE 'none' END;
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$$;
-- the same for a statement (SET)
CREATE FUNCTION hi_statement(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$$;

CREATE TABLE hi_case (grp text, fn text, arg text, call text, outcome text);

-- 1. The relation argument: every kind of relation, OIDs that are none, NULL.
CREATE TABLE hi_rel (label text, rel text);
INSERT INTO hi_rel VALUES
    ('table', '''hi_t'''), ('btree', '''hi_t_pkey'''), ('brin', '''hi_t_brin'''),
    ('empty', '''hi_empty'''), ('unlogged', '''hi_unlogged'''), ('matview', '''hi_mv'''),
    ('matview_nodata', '''hi_mv_nodata'''), ('partitioned', '''hi_p'''), ('partition', '''hi_p1'''),
    ('partitioned_index', '''hi_p_idx'''), ('partitioned_empty', '''hi_p_empty'''),
    ('sequence', '''hi_seq'''), ('view', '''hi_v'''), ('composite', '''hi_composite'''),
    ('foreign', '''hi_foreign'''), ('temp', '''hi_temp'''),
    ('toast', (SELECT format('%s::regclass', reltoastrelid) FROM pg_class WHERE oid = 'hi_t'::regclass)),
    ('mapped_catalog', '''pg_class'''), ('shared_catalog', '''pg_database'''),
    ('oid_0', '0::oid::regclass'), ('oid_1', '1::oid::regclass'),
    ('oid_max', '4294967295::oid::regclass'), ('null', 'NULL::regclass');

CREATE TABLE hi_relation_fn (fn text, template text);
INSERT INTO hi_relation_fn VALUES
    ('os_residency', 'cachectl.os_residency(%s)'),
    ('os_residency_total', 'cachectl.os_residency_total(%s, true)'),
    ('shared_residency', 'cachectl.shared_residency(%s, cascade => true)'),
    ('status', 'cachectl.status(%s, true)'),
    ('draw', 'cachectl.draw(%s)'),
    ('evict', 'cachectl.evict(%s, cascade => true)'),
    ('evict_relations', 'cachectl.evict_relations(ARRAY[%s]::regclass[], cascade => true)'),
    ('os_drop', 'cachectl.os_drop(%s, cascade => true)'),
    ('cold', 'cachectl.cold(%s, true)'),
    ('os_prefetch', 'cachectl.os_prefetch(%s, fork => ''main'')'),
    ('os_map', 'cachectl.os_map(%s, fork => ''main'')'),
    ('os_restore', 'cachectl.os_restore(%s, B''1011'', fork => ''main'')'),
    ('prewarm', 'cachectl.prewarm(%s, fork => ''main'')'),
    ('prewarm_shared', 'cachectl.prewarm(%s, ''shared'', drop_os_copy => true, fork => ''main'')'),
    -- how many runs depends on what is cached: count them, so the case gives one row
    ('shared_block_runs', '(SELECT count(*) FROM cachectl_internal.shared_block_runs(ARRAY[%s]::regclass[]))'),
    ('os_block_runs', '(SELECT count(*) FROM cachectl_internal.os_block_runs(%s))'),
    ('prewarm_runs', 'cachectl_internal.prewarm_runs(%s, ''main'', ''{[0,3)}'')'),
    ('snapshot', 'cachectl.snapshot(''hi'', ARRAY[%s]::regclass[], true)');

INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'relation', f.fn, r.label, format(f.template, r.rel)
  FROM hi_relation_fn AS f CROSS JOIN hi_rel AS r;

-- 2. Forks, on a table and on an unlogged table (which has an init fork).
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'fork', f.fn, t.rel || ' ' || coalesce(k.fork, 'NULL'),
       format(f.template, quote_literal(t.rel), coalesce(quote_literal(k.fork), 'NULL'))
  FROM (VALUES ('os_residency', 'cachectl.os_residency(%s, %s)'),
               ('shared_residency', 'cachectl.shared_residency(%s, %s)'),
               ('evict', 'cachectl.evict(%s, %s)'),
               ('evict_relations', 'cachectl.evict_relations(ARRAY[%s]::regclass[], %s)'),
               ('os_drop', 'cachectl.os_drop(%s, %s)'),
               ('os_prefetch', 'cachectl.os_prefetch(%s, %s)'),
               ('os_map', 'cachectl.os_map(%s, %s)'),
               ('os_restore', 'cachectl.os_restore(%s, B''1'', %s)'),
               ('prewarm', 'cachectl.prewarm(%s, ''both'', %s)'),
               ('os_block_runs', '(SELECT count(*) FROM cachectl_internal.os_block_runs(%s, %s))'),
               ('prewarm_runs', 'cachectl_internal.prewarm_runs(%s, %s, ''{[0,1)}'')')) AS f (fn, template)
 CROSS JOIN (VALUES ('hi_t'), ('hi_unlogged')) AS t (rel)
 CROSS JOIN (VALUES ('main'), ('fsm'), ('vm'), ('init'), (''), ('xyz'), ('MAIN'), (NULL)) AS k (fork);

-- 3. Block ranges (hi_t has 35 blocks): negative, reversed, past the end, beyond 2^32, NULL.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'range', f.fn, a.b || '..' || z.b, format(f.template, a.b, z.b)
  FROM (VALUES ('os_prefetch', 'cachectl.os_prefetch(''hi_t'', ''main'', %s, %s)'),
               ('prewarm', 'cachectl.prewarm(''hi_t'', ''os'', ''main'', %s, %s)')) AS f (fn, template)
 CROSS JOIN (VALUES ('-1'), ('0'), ('34'), ('35'), ('2147483648'), ('4294967296'),
                    ('9223372036854775807'), ('-9223372036854775808'), ('NULL')) AS a (b)
 CROSS JOIN (VALUES ('-1'), ('0'), ('34'), ('35'), ('2147483648'), ('4294967296'),
                    ('9223372036854775807'), ('-9223372036854775808'), ('NULL')) AS z (b);

-- 4. Throttles (1e-300 is in its own statements below: it waits, as asked).
-- Above 1.7145e302 MB/s the rate in bytes per second is infinite: refused
-- as infinity is, by every function (it was XX000, or no throttle at all).
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'throttle', f.fn, r.rate, format(f.template, r.rate)
  FROM (VALUES ('os_prefetch', 'cachectl.os_prefetch(''hi_t'', max_mb_per_sec => %s, fork => ''main'')'),
               ('prewarm', 'cachectl.prewarm(''hi_t'', max_mb_per_sec => %s, fork => ''main'')'),
               ('prewarm os', 'cachectl.prewarm(''hi_t'', ''os'', max_mb_per_sec => %s, fork => ''main'')'),
               ('prewarm shared', 'cachectl.prewarm(''hi_t'', ''shared'', max_mb_per_sec => %s, fork => ''main'')'),
               ('os_restore', 'cachectl.os_restore(''hi_t'', B''1'', max_mb_per_sec => %s, fork => ''main'')'),
               ('prewarm_runs', 'cachectl_internal.prewarm_runs(''hi_t'', ''main'', ''{[0,2)}'', max_mb_per_sec => %s)'))
           AS f (fn, template)
 CROSS JOIN (VALUES ('0'), ('-1'), ('''-0''::float8'), ('''NaN''::float8'), ('''Infinity''::float8'),
                    ('''-Infinity''::float8'), ('1e300'), ('1.7e302'), ('1.72e302'), ('1e303'),
                    ('1.7976931348623157e308'), ('NULL')) AS r (rate);

-- 5. Widths of the drawings, and maps to draw.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'width', 'os_draw', m.label || ' ' || w.w, format('cachectl.os_draw(%s, %s)', m.map, w.w)
  FROM (VALUES ('empty', 'B'''''), ('one', 'B''1'''), ('wide', 'repeat(''10'', 50000)::varbit'),
               ('null', 'NULL::varbit')) AS m (label, map)
 CROSS JOIN (VALUES ('0'), ('-1'), ('1'), ('10000'), ('10001'), ('2147483647'), ('-2147483648'), ('NULL')) AS w (w);
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'width', 'draw', r.rel || ' ' || w.w, format('cachectl.draw(%L, %s)', r.rel, w.w)
  FROM (VALUES ('hi_t'), ('hi_empty'), ('hi_p1')) AS r (rel)
 CROSS JOIN (VALUES ('0'), ('-1'), ('1'), ('10000'), ('10001'), ('2147483647'), ('-2147483648'), ('NULL')) AS w (w);

-- 6. Targets.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'target', f.fn, coalesce(t.target, 'NULL'), format(f.template, coalesce(quote_literal(t.target), 'NULL'))
  FROM (VALUES ('prewarm', 'cachectl.prewarm(''hi_t'', %s, fork => ''main'')'),
               ('prewarm_runs', 'cachectl_internal.prewarm_runs(''hi_t'', ''main'', ''{[0,2)}'', %s)')) AS f (fn, template)
 CROSS JOIN (VALUES ('os'), ('shared'), ('both'), (''), ('OS'), ('none'), (' both'), (NULL)) AS t (target);

-- 7. Block runs of prewarm_runs: empty, negative, unbounded, past the end, beyond 2^32.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'runs', 'prewarm_runs', coalesce(r.runs, 'NULL'),
       format('cachectl_internal.prewarm_runs(''hi_t'', ''main'', %s)', coalesce(quote_literal(r.runs), 'NULL'))
  FROM (VALUES ('{}'), ('{[0,1)}'), ('{[-5,3)}'), ('{[-10,-1)}'), ('{[-9223372036854775808,9223372036854775807)}'),
               ('{[0,)}'), ('{(,5)}'), ('{(,)}'), ('{[30,100)}'), ('{[100,200)}'),
               ('{[4294967295,4294967297)}'), ('{[0,1),[5,6),[34,35)}'), (NULL)) AS r (runs);

-- 8. Buffer ids (shared_buffers = 128MB: 16384 buffers) and database names.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'buffer', 'evict_buffer', b.id, format('cachectl.evict_buffer(%s)', b.id)
  FROM (VALUES ('0'), ('1'), ('-1'), ('16384'), ('16385'), ('2147483647'), ('-2147483648'), ('NULL')) AS b (id);
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'database', 'evict_database', d.label, format('cachectl.evict_database(%s)', d.db)
  FROM (VALUES ('current', 'current_database()'), ('template0', '''template0'''), ('unknown', '''hi_nope'''),
               ('empty', ''''''), ('long', 'repeat(''x'', 100)'), ('null', 'NULL')) AS d (label, db);

-- 9. Relation arrays: empty, NULL, NULL element, duplicates, an unknown OID,
-- non-default bounds, two dimensions, a view among tables, 100,000 elements.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'array', f.fn, a.label, format(f.template, a.arr)
  FROM (VALUES ('evict_relations', 'cachectl.evict_relations(%s)'),
               ('evict_relations_cascade', 'cachectl.evict_relations(%s, cascade => true)'),
               ('shared_block_runs', '(SELECT count(*) FROM cachectl_internal.shared_block_runs(%s))'),
               ('snapshot', 'cachectl.snapshot(''hi_array'', %s)')) AS f (fn, template)
 CROSS JOIN (VALUES ('empty', '''{}''::regclass[]'), ('null', 'NULL::regclass[]'),
                    ('null_element', 'ARRAY[NULL::regclass]'), ('duplicates', 'ARRAY[''hi_t'', ''hi_t'', ''hi_p1'', ''hi_p'']::regclass[]'),
                    ('unknown_oid', 'ARRAY[''hi_t'', 4294967295::oid]::regclass[]'),
                    ('bounds_5_6', '''[5:6]={hi_t,hi_empty}''::regclass[]'),
                    ('two_dimensions', '''{{hi_t,hi_empty},{hi_p1,hi_t_pkey}}''::regclass[]'),
                    ('with_view', 'ARRAY[''hi_t'', ''hi_v'']::regclass[]'),
                    ('with_temp', 'ARRAY[''hi_t'', ''hi_temp'']::regclass[]'),
                    ('huge', '(SELECT array_agg(''hi_t''::regclass) FROM generate_series(1, 100000))')) AS a (label, arr);

-- 10. NULL in every other argument.
INSERT INTO hi_case (grp, fn, arg, call) VALUES
    ('null', 'os_residency_total', 'cascade', 'cachectl.os_residency_total(''hi_t'', NULL)'),
    ('null', 'shared_residency', 'cascade', 'cachectl.shared_residency(''hi_t'', NULL, NULL)'),
    ('null', 'status', 'cascade', 'cachectl.status(''hi_t'', NULL)'),
    ('null', 'evict', 'cascade', 'cachectl.evict(''hi_t'', NULL, NULL)'),
    ('null', 'evict_relations', 'cascade', 'cachectl.evict_relations(ARRAY[''hi_t'']::regclass[], NULL, NULL)'),
    ('null', 'os_drop', 'cascade', 'cachectl.os_drop(''hi_t'', NULL, NULL)'),
    ('null', 'cold', 'cascade', 'cachectl.cold(''hi_t'', NULL)'),
    ('null', 'os_prefetch', 'wait', 'cachectl.os_prefetch(''hi_t'', wait => NULL, fork => ''main'')'),
    ('null', 'os_restore', 'map', 'cachectl.os_restore(''hi_t'', NULL, fork => ''main'')'),
    ('null', 'os_restore', 'drop_others', 'cachectl.os_restore(''hi_t'', B''1'', drop_others => NULL, fork => ''main'')'),
    ('null', 'os_restore', 'wait', 'cachectl.os_restore(''hi_t'', B''1'', wait => NULL, fork => ''main'')'),
    ('null', 'prewarm', 'drop_os_copy', 'cachectl.prewarm(''hi_t'', drop_os_copy => NULL, fork => ''main'')'),
    ('null', 'prewarm_runs', 'fork', 'cachectl_internal.prewarm_runs(''hi_t'', NULL, ''{[0,1)}'')'),
    ('null', 'prewarm_runs', 'drop_os_copy', 'cachectl_internal.prewarm_runs(''hi_t'', ''main'', ''{[0,1)}'', drop_os_copy => NULL)'),
    ('null', 'os_block_runs', 'fork', 'cachectl_internal.os_block_runs(''hi_t'', NULL)'),
    ('null', 'snapshot', 'label', 'cachectl.snapshot(NULL, ARRAY[''hi_t'']::regclass[])'),
    ('null', 'snapshot', 'cascade', 'cachectl.snapshot(''hi'', ARRAY[''hi_t'']::regclass[], NULL)'),
    ('none', 'database_status', '', 'cachectl.database_status()'),
    ('none', 'database_status_view', '', 'cachectl.database_status'),
    ('none', 'cold_database', '', 'cachectl.cold_database()'),
    ('none', 'evict_all', '', 'cachectl.evict_all()'),
    ('none', 'os_engine', '', 'cachectl.os_engine()'),
    ('none', 'os_page_size', '', 'cachectl.os_page_size()'),
    ('none', 'system_identifier', '', 'cachectl_internal.system_identifier()');

-- 11. Snapshot labels: empty, long, a control character.
INSERT INTO hi_case (grp, fn, arg, call)
SELECT 'label', 'snapshot', l.label, format('cachectl.snapshot(%s, ARRAY[''hi_t'']::regclass[])', l.expr)
  FROM (VALUES ('empty', ''''''), ('long', 'repeat(''x'', 100000)'), ('control', 'E''\x01''')) AS l (label, expr);

UPDATE hi_case SET outcome = hi_outcome(call);

-- 12. Settings set to bad values, each followed by a call that must still work.
INSERT INTO hi_case (grp, fn, arg, outcome)
SELECT 'setting', s.name, s.value,
       hi_statement(format('SET %s = %s', s.name, s.value)) || ' / ' || hi_outcome('cachectl.prewarm(''hi_t'', ''shared'', fork => ''main'')')
  FROM (VALUES ('cachectl.os_engine', '''x'''), ('cachectl.os_engine', ''''''), ('cachectl.os_engine', '''AUTO'''),
               ('cachectl.os_engine', '''mincore'''), ('cachectl.prewarm_max_share', '-1'), ('cachectl.prewarm_max_share', '2'),
               ('cachectl.prewarm_max_share', '''NaN'''), ('cachectl.prewarm_max_share', '''Infinity'''),
               ('cachectl.prewarm_max_share', '0'), ('cachectl.prewarm_max_share', '''x'''),
               ('cachectl.progress', '''x'''), ('cachectl.log_actions', '''maybe'''),
               ('cachectl.no_such_setting', '1')) AS s (name, value);
RESET cachectl.os_engine;
RESET cachectl.prewarm_max_share;

-- The outcomes, per group and function: which arguments gave which outcome.
SELECT grp, fn, outcome, string_agg(arg, ', ' ORDER BY arg COLLATE "C") AS arguments
  FROM hi_case GROUP BY grp, fn, outcome ORDER BY grp, fn, outcome;

-- How many cases, and none with XX000 (an internal error) or without an outcome.
SELECT count(*) AS cases, count(*) FILTER (WHERE outcome LIKE '%XX000%' OR outcome IS NULL) AS internal_errors
  FROM hi_case;

-- A throttle so slow that the next page is due ages away waits, as asked
-- (it overflowed into no throttle at all): the timeout ends it.
SET statement_timeout = '300ms';
SELECT count(*) FROM cachectl.os_prefetch('hi_t', max_mb_per_sec => 1e-300, fork => 'main');
SELECT count(*) FROM cachectl.os_prefetch('hi_t', max_mb_per_sec => 4.9e-324, fork => 'main');
SELECT count(*) FROM cachectl.os_restore('hi_t', repeat('1', 35)::varbit, max_mb_per_sec => 1e-300, fork => 'main');
-- loading shared buffers slept one short slice per 16 blocks, whatever the
-- rate: 35 blocks at 0.1 MB/s took 0.25 s, where the rate asks for 2.5 s
SET statement_timeout = '1s';
SELECT count(*) > 0 AS evicted FROM cachectl.evict('hi_t');
SELECT count(*) FROM cachectl.prewarm('hi_t', 'shared', max_mb_per_sec => 0.1, fork => 'main');
SELECT count(*) > 0 AS evicted FROM cachectl.evict('hi_t');
SELECT * FROM cachectl_internal.prewarm_runs('hi_t', 'main', '{[0,35)}', 'shared', max_mb_per_sec => 0.1);
RESET statement_timeout;

-- Maps of the wrong length: what lies past the fork is counted, not loaded.
SELECT m.bits, r.os_blocks_loaded, r.blocks_past_end
  FROM (VALUES (0), (1), (34), (35), (36), (1000000)) AS m (bits),
       cachectl.os_restore('hi_t', repeat('1', m.bits)::varbit, fork => 'main') AS r
 ORDER BY m.bits;
SELECT os_blocks_loaded, blocks_past_end FROM cachectl.os_restore('hi_t', repeat('1', 1000)::varbit, 'fsm');
SELECT os_blocks_loaded, blocks_past_end FROM cachectl.os_restore('hi_empty', repeat('1', 1000)::varbit, fork => 'main');

-- The procedure: labels, targets, throttles, a transaction block.
SELECT count(*) FROM cachectl.prewarm('hi_t', 'both', fork => 'main');
SELECT relations FROM cachectl.snapshot('hi_label', ARRAY['hi_t']::regclass[]);
CALL cachectl.restore(NULL);
CALL cachectl.restore('hi_unknown_label');
-- the empty and the long label were taken in group 11 (hi_t had nothing
-- cached then: one row with no blocks), so they exist and load nothing
CALL cachectl.restore('') \gset hi_empty_
SELECT :hi_empty_relations_warmed AS warmed, :hi_empty_shared_blocks_loaded AS shared_loaded;
CALL cachectl.restore(repeat('x', 100000)) \gset hi_long_
SELECT :hi_long_relations_warmed AS warmed, :hi_long_shared_blocks_loaded AS shared_loaded;
CALL cachectl.restore('hi_label', 'x');
CALL cachectl.restore('hi_label', '');
CALL cachectl.restore('hi_label', NULL);
CALL cachectl.restore('hi_label', 'os', 0);
CALL cachectl.restore('hi_label', 'os', -1);
CALL cachectl.restore('hi_label', 'os', 'NaN');
CALL cachectl.restore('hi_label', 'os', 'Infinity');
CALL cachectl.restore('hi_label', 'os', '-Infinity');
CALL cachectl.restore('hi_label', 'os', 1.72e302);
CALL cachectl.restore('hi_label', 'both', 1e303);
BEGIN;
CALL cachectl.restore('hi_label');
ROLLBACK;
CALL cachectl.restore('hi_label', 'both', 1e300, 7, 7, 7, 7, 7, 7, 'ignored') \gset restored_
SELECT :restored_relations_warmed AS relations_warmed, :restored_shared_blocks_loaded AS shared_blocks_loaded,
       :'restored_matched_by' AS matched_by;
-- the server is up
SELECT 1 AS alive;

DROP TABLE hi_case, hi_rel, hi_relation_fn;
DROP FUNCTION hi_outcome(text), hi_statement(text);
DELETE FROM cachectl.snapshot;
DROP FOREIGN TABLE hi_foreign;
DROP SERVER hi_server;
DROP FOREIGN DATA WRAPPER hi_fdw;
DROP TYPE hi_composite;
DROP SEQUENCE hi_seq;
DROP TABLE hi_p, hi_p_empty, hi_unlogged, hi_empty, hi_temp;
DROP MATERIALIZED VIEW hi_mv, hi_mv_nodata;
DROP VIEW hi_v;
DROP TABLE hi_t;
DROP EXTENSION pg_cachectl;
