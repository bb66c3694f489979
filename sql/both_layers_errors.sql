-- Both layers: bad inputs with their SQLSTATEs, NULLs, privileges.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE lyr_t (id int);
INSERT INTO lyr_t SELECT g FROM generate_series(1, 1000) g;
CREATE VIEW lyr_v AS SELECT 1 AS one;
CREATE TABLE lyr_p (id int) PARTITION BY RANGE (id);
CREATE TABLE lyr_p1 PARTITION OF lyr_p FOR VALUES FROM (0) TO (10);
CREATE TEMP TABLE lyr_temp (id int);

-- targets (22023), forks (22023), ranges (22023), throttles (22023)
SELECT * FROM cachectl.prewarm('lyr_t', 'disk', fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', '', fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', fork => 'heap');
SELECT * FROM cachectl.prewarm('lyr_t', first_block => -1, fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', first_block => 4, last_block => 3, fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', first_block => 100000, fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', last_block => 4294967296, fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', max_mb_per_sec => 0, fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', max_mb_per_sec => 'NaN', fork => 'main');
SELECT * FROM cachectl.prewarm('lyr_t', max_mb_per_sec => '-Infinity', fork => 'main');
SELECT * FROM cachectl_internal.prewarm_runs('lyr_t', 'main', '{[0,1)}', 'nowhere');
-- absurd widths (22023)
SELECT cachectl.draw('lyr_t', 0);
SELECT cachectl.draw('lyr_t', 10001);
-- relations: without storage (42809), partitioned where one fork is drawn (42809),
-- unknown (42P01), temporary for actions (0A000)
SELECT * FROM cachectl.status('lyr_v');
SELECT * FROM cachectl.cold('lyr_v');
SELECT cachectl.draw('lyr_p');
SELECT * FROM cachectl.prewarm('lyr_p', first_block => 0, fork => 'main');
SELECT * FROM cachectl.status(4294967295::oid::regclass);
SELECT * FROM cachectl.cold(4294967295::oid::regclass);
SELECT * FROM cachectl.cold('lyr_temp');
SELECT * FROM cachectl.prewarm('lyr_temp', fork => 'main');
-- a partitioned table stands for its partitions
SELECT relation, fork FROM cachectl.status('lyr_p') WHERE fork = 'main';
SELECT relation, shared_blocks_left, os_pages_left FROM cachectl.cold('lyr_p') WHERE fork = 'main';

-- NULLs (the rule of os_control_errors): the relation NULL, no row; a
-- NULL where the default is not NULL, 22004
SELECT count(*) FROM cachectl.status(NULL);
SELECT count(*) FROM cachectl.status('lyr_t', NULL);
SELECT count(*) FROM cachectl.cold(NULL);
SELECT count(*) FROM cachectl.cold('lyr_t', NULL);
SELECT count(*) FROM cachectl.prewarm(NULL);
SELECT count(*) FROM cachectl.prewarm('lyr_t', NULL);
SELECT count(*) FROM cachectl.prewarm('lyr_t', drop_os_copy => NULL);
SELECT cachectl.draw(NULL) IS NULL AS draw_null;
SELECT cachectl.draw('lyr_t', NULL);
-- fork NULL (the default): every fork that exists; a range needs one fork
SELECT fork FROM cachectl.prewarm('lyr_t', 'os') ORDER BY fork;
SELECT fork FROM cachectl.prewarm('lyr_t', 'os', fork => NULL) ORDER BY fork;
SELECT count(*) FROM cachectl.prewarm('lyr_t', first_block => 0);

-- Privileges: status, draw and database_status are reports; cold, prewarm actions.
CREATE ROLE regress_lyr_nobody;
CREATE ROLE regress_lyr_stats IN ROLE pg_read_all_stats;
SET ROLE regress_lyr_nobody;
SELECT count(*) FROM cachectl.status('lyr_t');
SELECT count(*) FROM cachectl.database_status;
SELECT cachectl.draw('lyr_t');
SELECT count(*) FROM cachectl.cold('lyr_t');
SELECT count(*) FROM cachectl.prewarm('lyr_t', fork => 'main');
SELECT * FROM cachectl.cold_database();
RESET ROLE;
-- pg_read_all_stats reports on every relation (status, draw, database_status),
-- SELECT or not; an action still needs SELECT
SET ROLE regress_lyr_stats;
SELECT count(*) FROM cachectl.status('lyr_t');
SELECT cachectl.draw('lyr_t');
SELECT count(*) FILTER (WHERE relation = 'lyr_t'::regclass) AS lyr_t_rows FROM cachectl.database_status;
SELECT count(*) FROM cachectl.cold('lyr_t');
RESET ROLE;
GRANT SELECT ON lyr_t TO regress_lyr_stats;
SET ROLE regress_lyr_stats;
SELECT count(*) AS status_rows FROM cachectl.status('lyr_t');
SELECT count(*) FILTER (WHERE relation = 'lyr_t'::regclass) AS lyr_t_rows FROM cachectl.database_status;
RESET ROLE;

\set VERBOSITY default
SELECT * FROM cachectl.prewarm('lyr_t', 'disk', fork => 'main');
SELECT cachectl.draw('lyr_p');

DROP OWNED BY regress_lyr_stats;
DROP ROLE regress_lyr_nobody, regress_lyr_stats;
DROP TABLE lyr_temp;
DROP TABLE lyr_p;
DROP VIEW lyr_v;
DROP TABLE lyr_t;
DROP EXTENSION pg_cachectl;
