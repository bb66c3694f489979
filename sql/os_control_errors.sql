-- OS page-cache control: bad inputs with their SQLSTATEs, NULLs, privileges.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE ctl_t (id int);
INSERT INTO ctl_t SELECT g FROM generate_series(1, 1000) g;
CREATE VIEW ctl_v AS SELECT 1 AS one;
CREATE TABLE ctl_p (id int) PARTITION BY RANGE (id);
CREATE TABLE ctl_p1 PARTITION OF ctl_p FOR VALUES FROM (0) TO (10);
CREATE TEMP TABLE ctl_temp (id int);

-- block ranges: negative, reversed, past the end (22023)
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => -1);
SELECT * FROM cachectl.os_prefetch('ctl_t', last_block => -5);
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 3, last_block => 2);
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 1000000);
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 0, last_block => 1000000);
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 4294967296);
SELECT * FROM cachectl.os_prefetch('ctl_t', 'vm', first_block => 0);
-- a block range on a partitioned table (42809)
SELECT * FROM cachectl.os_prefetch('ctl_p', first_block => 0);
-- throttles: zero, negative, NaN, infinity (22023)
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 0);
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => -1);
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 'NaN');
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 'Infinity');
SELECT * FROM cachectl.os_restore('ctl_t', B'1', max_mb_per_sec => '-Infinity');
-- forks (22023)
SELECT * FROM cachectl.os_drop('ctl_t', 'heap');
SELECT * FROM cachectl.os_prefetch('ctl_t', '');
SELECT cachectl.os_map('ctl_t', 'toast');
SELECT * FROM cachectl.os_restore('ctl_t', B'1', 'nope');
-- relations without storage (42809), partitioned for a per-fork map (42809),
-- unknown OIDs (42P01), temporary relations for actions (0A000)
SELECT * FROM cachectl.os_drop('ctl_v');
SELECT cachectl.os_map('ctl_v');
SELECT cachectl.os_map('ctl_p');
SELECT * FROM cachectl.os_restore('ctl_p', B'1');
SELECT cachectl.os_map(4294967295::oid::regclass);
SELECT * FROM cachectl.os_drop(4294967295::oid::regclass);
SELECT * FROM cachectl.os_restore(4294967295::oid::regclass, B'1');
SELECT * FROM cachectl.os_drop('ctl_temp');
SELECT * FROM cachectl.os_prefetch('ctl_temp');
SELECT * FROM cachectl.os_restore('ctl_temp', B'1');
-- absurd widths (22023)
SELECT cachectl.os_draw(B'1', 0);
SELECT cachectl.os_draw(B'1', -3);
SELECT cachectl.os_draw(B'1', 10001);

-- NULLs: no row, except where NULL means "every fork" or "no limit"
SELECT count(*) FROM cachectl.os_drop(NULL);
SELECT count(*) FROM cachectl.os_drop('ctl_t', cascade => NULL);
SELECT count(*) FROM cachectl.os_prefetch(NULL);
SELECT count(*) FROM cachectl.os_prefetch('ctl_t', wait => NULL);
SELECT count(*) AS every_fork FROM cachectl.os_prefetch('ctl_t', fork => NULL, max_mb_per_sec => NULL);
SELECT cachectl.os_map(NULL) IS NULL AS map_null, cachectl.os_map('ctl_t', NULL) IS NULL AS fork_null;
SELECT cachectl.os_restore(NULL, B'1') IS NULL AS rel_null,
       cachectl.os_restore('ctl_t', NULL) IS NULL AS map_null,
       cachectl.os_restore('ctl_t', B'1', NULL) IS NULL AS fork_null,
       cachectl.os_restore('ctl_t', B'1', drop_others => NULL) IS NULL AS drop_null;
SELECT cachectl.os_draw(NULL) IS NULL AS draw_null, cachectl.os_draw(B'1', NULL) IS NULL AS width_null;

-- Privileges: os_map and os_draw are reports, the others actions.
CREATE ROLE regress_ctl_nobody;
CREATE ROLE regress_ctl_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_ctl_operator;
GRANT USAGE ON SCHEMA cachectl TO regress_ctl_operator;
GRANT EXECUTE ON FUNCTION cachectl.os_drop(regclass, text, boolean),
                          cachectl.os_prefetch(regclass, text, int8, int8, float8, boolean),
                          cachectl.os_restore(regclass, varbit, text, boolean, float8, boolean)
    TO regress_ctl_operator;

SET ROLE regress_ctl_nobody;
SELECT cachectl.os_map('ctl_t');
SELECT cachectl.os_draw(B'1');
SELECT * FROM cachectl.os_drop('ctl_t');
SELECT * FROM cachectl.os_prefetch('ctl_t');
SELECT * FROM cachectl.os_restore('ctl_t', B'1');
RESET ROLE;

-- pg_read_all_stats may draw and map, but needs SELECT on the table to map it
SET ROLE regress_ctl_stats;
SELECT cachectl.os_draw(B'1', 1) IS NOT NULL AS can_draw;
SELECT cachectl.os_map('ctl_t');
SELECT * FROM cachectl.os_drop('ctl_t');
RESET ROLE;
GRANT SELECT ON ctl_t TO regress_ctl_stats;
SET ROLE regress_ctl_stats;
SELECT length(cachectl.os_map('ctl_t')) > 0 AS can_map;
RESET ROLE;

-- an operator granted the actions still needs SELECT on the table
SET ROLE regress_ctl_operator;
SELECT count(*) FROM cachectl.os_drop('ctl_t');
SELECT count(*) FROM cachectl.os_prefetch('ctl_t');
SELECT (cachectl.os_restore('ctl_t', B'1')).os_blocks_loaded;
RESET ROLE;
GRANT SELECT ON ctl_t TO regress_ctl_operator;
SET ROLE regress_ctl_operator;
SELECT relation, fork, os_pages_after FROM cachectl.os_drop('ctl_t', 'main');
SELECT relation, fork, os_pages_pending FROM cachectl.os_prefetch('ctl_t');
SELECT os_blocks_loaded FROM cachectl.os_restore('ctl_t', B'1');
RESET ROLE;

\set VERBOSITY default
-- the messages, once, in full
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 3, last_block => 2);
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 1000000);
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 0);
SELECT cachectl.os_map('ctl_p');
SELECT cachectl.os_draw(B'1', 0);

DROP OWNED BY regress_ctl_operator;
DROP OWNED BY regress_ctl_stats;
DROP ROLE regress_ctl_nobody, regress_ctl_stats, regress_ctl_operator;
DROP TABLE ctl_temp;
DROP TABLE ctl_p;
DROP VIEW ctl_v;
DROP TABLE ctl_t;
DROP EXTENSION pg_cachectl;
