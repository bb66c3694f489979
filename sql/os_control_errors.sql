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
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => -1, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', last_block => -5, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 3, last_block => 2, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 1000000, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 0, last_block => 1000000, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 4294967296, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', 'vm', first_block => 0);
-- a block range on a partitioned table (42809)
SELECT * FROM cachectl.os_prefetch('ctl_p', first_block => 0, fork => 'main');
-- throttles: zero, negative, NaN, infinity (22023)
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 0, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => -1, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 'NaN', fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 'Infinity', fork => 'main');
SELECT * FROM cachectl.os_restore('ctl_t', B'1', max_mb_per_sec => '-Infinity', fork => 'main');
-- forks (22023)
SELECT * FROM cachectl.os_drop('ctl_t', 'heap');
SELECT * FROM cachectl.os_prefetch('ctl_t', '');
SELECT cachectl.os_map('ctl_t', 'toast');
SELECT * FROM cachectl.os_restore('ctl_t', B'1', 'nope');
-- relations without storage (42809), partitioned for a per-fork map (42809),
-- unknown OIDs (42P01), temporary relations for actions (0A000)
SELECT * FROM cachectl.os_drop('ctl_v');
SELECT cachectl.os_map('ctl_v', fork => 'main');
SELECT cachectl.os_map('ctl_p', fork => 'main');
SELECT * FROM cachectl.os_restore('ctl_p', B'1', fork => 'main');
SELECT cachectl.os_map(4294967295::oid::regclass, fork => 'main');
SELECT * FROM cachectl.os_drop(4294967295::oid::regclass);
SELECT * FROM cachectl.os_restore(4294967295::oid::regclass, B'1', fork => 'main');
SELECT * FROM cachectl.os_drop('ctl_temp');
SELECT * FROM cachectl.os_prefetch('ctl_temp', fork => 'main');
SELECT * FROM cachectl.os_restore('ctl_temp', B'1', fork => 'main');
-- absurd widths (22023)
SELECT cachectl.os_draw(B'1', 0);
SELECT cachectl.os_draw(B'1', -3);
SELECT cachectl.os_draw(B'1', 10001);

-- NULLs, the one rule: the subject (relation, map) NULL asks about nothing
-- (no row, a NULL result); NULL where the default is NULL means the default
-- (fork: every fork, max_mb_per_sec: no limit); any other NULL is 22004,
-- and so is a NULL fork where the call works on one fork (a map, a range)
SELECT count(*) FROM cachectl.os_drop(NULL);
SELECT count(*) FROM cachectl.os_drop('ctl_t', cascade => NULL);
SELECT count(*) FROM cachectl.os_prefetch(NULL);
SELECT count(*) FROM cachectl.os_prefetch('ctl_t', wait => NULL);
SELECT count(*) AS every_fork FROM cachectl.os_prefetch('ctl_t', fork => NULL, max_mb_per_sec => NULL);
SELECT count(*) FROM cachectl.os_prefetch('ctl_t', first_block => 0);
SELECT cachectl.os_map(NULL, 'main') IS NULL AS map_null;
SELECT cachectl.os_map('ctl_t');
SELECT cachectl.os_map('ctl_t', NULL);
SELECT cachectl.os_restore(NULL, B'1', 'main') IS NULL AS rel_null,
       cachectl.os_restore('ctl_t', NULL, 'main') IS NULL AS map_null;
SELECT cachectl.os_restore('ctl_t', B'1');
SELECT cachectl.os_restore('ctl_t', B'1', 'main', drop_others => NULL);
SELECT cachectl.os_restore('ctl_t', B'1', 'main', wait => NULL);
SELECT cachectl.os_draw(NULL) IS NULL AS draw_null;
SELECT cachectl.os_draw(B'1', NULL);
\set VERBOSITY default
SELECT cachectl.os_map('ctl_t');
SELECT count(*) FROM cachectl.os_drop('ctl_t', cascade => NULL);
\set VERBOSITY sqlstate

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
SELECT cachectl.os_map('ctl_t', fork => 'main');
SELECT cachectl.os_draw(B'1');
SELECT * FROM cachectl.os_drop('ctl_t');
SELECT * FROM cachectl.os_prefetch('ctl_t', fork => 'main');
SELECT * FROM cachectl.os_restore('ctl_t', B'1', fork => 'main');
RESET ROLE;

-- pg_read_all_stats may draw and map any table (a report), SELECT or not
SET ROLE regress_ctl_stats;
SELECT cachectl.os_draw(B'1', 1) IS NOT NULL AS can_draw;
SELECT cachectl.os_map('ctl_t', fork => 'main');
SELECT * FROM cachectl.os_drop('ctl_t');
RESET ROLE;
GRANT SELECT ON ctl_t TO regress_ctl_stats;
SET ROLE regress_ctl_stats;
SELECT length(cachectl.os_map('ctl_t', fork => 'main')) > 0 AS can_map;
RESET ROLE;

-- an operator granted the actions still needs SELECT on the table
SET ROLE regress_ctl_operator;
SELECT count(*) FROM cachectl.os_drop('ctl_t');
SELECT count(*) FROM cachectl.os_prefetch('ctl_t', fork => 'main');
SELECT (cachectl.os_restore('ctl_t', B'1', fork => 'main')).os_blocks_loaded;
RESET ROLE;
GRANT SELECT ON ctl_t TO regress_ctl_operator;
SET ROLE regress_ctl_operator;
SELECT relation, fork, os_pages_after FROM cachectl.os_drop('ctl_t', 'main');
SELECT relation, fork, os_pages_pending FROM cachectl.os_prefetch('ctl_t', fork => 'main');
SELECT os_blocks_loaded FROM cachectl.os_restore('ctl_t', B'1', fork => 'main');
RESET ROLE;

\set VERBOSITY default
-- the messages, once, in full
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 3, last_block => 2, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', first_block => 1000000, fork => 'main');
SELECT * FROM cachectl.os_prefetch('ctl_t', max_mb_per_sec => 0, fork => 'main');
SELECT cachectl.os_map('ctl_p', fork => 'main');
SELECT cachectl.os_draw(B'1', 0);

DROP OWNED BY regress_ctl_operator;
DROP OWNED BY regress_ctl_stats;
DROP ROLE regress_ctl_nobody, regress_ctl_stats, regress_ctl_operator;
DROP TABLE ctl_temp;
DROP TABLE ctl_p;
DROP VIEW ctl_v;
DROP TABLE ctl_t;
DROP EXTENSION pg_cachectl;
