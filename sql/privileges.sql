-- Reporting needs EXECUTE (pg_read_all_stats has it); a member of
-- pg_read_all_stats (pg_monitor) reports on every relation, any other role
-- needs SELECT on the table, or on the table an index or TOAST relation
-- belongs to.  Actions need SELECT whoever calls them.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE priv_t (id int PRIMARY KEY, doc text);
INSERT INTO priv_t SELECT g, 'x' FROM generate_series(1, 10) g;
CREATE TABLE priv_p (id int) PARTITION BY RANGE (id);
CREATE TABLE priv_p_1 PARTITION OF priv_p FOR VALUES FROM (0) TO (100);

CREATE ROLE regress_cachectl_nobody;
CREATE ROLE regress_cachectl_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_cachectl_reader IN ROLE pg_read_all_stats;
CREATE ROLE regress_cachectl_granted;
GRANT SELECT ON priv_t, priv_p TO regress_cachectl_reader;
-- an operator granted directly, without pg_read_all_stats
GRANT USAGE ON SCHEMA cachectl TO regress_cachectl_granted;
GRANT EXECUTE ON FUNCTION cachectl.os_residency(regclass, text) TO regress_cachectl_granted;
GRANT SELECT ON priv_t TO regress_cachectl_granted;

-- neither EXECUTE nor USAGE: 42501
SET ROLE regress_cachectl_nobody;
SELECT count(*) FROM cachectl.os_residency('priv_t');
SELECT cachectl.os_engine();
-- the cluster-wide actions, least of all
SELECT cachectl.evict_all();
SELECT cachectl.evict_database();
SELECT cachectl.evict_buffer(1);
RESET ROLE;

-- pg_read_all_stats without SELECT on the table: residency is metadata, as
-- pg_buffercache shows it; the table, its index and TOAST alike
SET ROLE regress_cachectl_stats;
SELECT count(*) FROM cachectl.os_residency('priv_t');
SELECT count(*) FROM cachectl.os_residency_total('priv_t_pkey');
\set VERBOSITY default
SELECT count(*) FROM cachectl.os_residency_total('priv_t_pkey');
\set VERBOSITY sqlstate
RESET ROLE;
SELECT reltoastrelid AS priv_toast FROM pg_class WHERE oid = 'priv_t'::regclass \gset
SET ROLE regress_cachectl_stats;
SELECT count(*) FROM cachectl.os_residency(:priv_toast);
SELECT count(*) FROM cachectl.os_residency_total('priv_p');
SELECT cachectl.os_engine() IN ('cachestat', 'mincore') AS engine_visible;
RESET ROLE;

-- with SELECT on the table: the table, its index and TOAST, its partitions
SET ROLE regress_cachectl_reader;
SELECT count(*) > 0 AS table_ok FROM cachectl.os_residency('priv_t');
SELECT count(*) > 0 AS index_ok FROM cachectl.os_residency('priv_t_pkey');
SELECT count(*) > 0 AS toast_ok FROM cachectl.os_residency(:priv_toast);
SELECT count(*) AS with_cascade FROM cachectl.os_residency_total('priv_t', cascade => true);
SELECT count(*) AS partitions FROM cachectl.os_residency_total('priv_p');
-- a partition is a table of its own: no SELECT was granted on it
SELECT count(*) FROM cachectl.os_residency('priv_p_1');
RESET ROLE;

-- a direct grant works without pg_read_all_stats, for that function only
SET ROLE regress_cachectl_granted;
SELECT count(*) > 0 AS granted_ok FROM cachectl.os_residency('priv_t');
SELECT count(*) FROM cachectl.os_residency_total('priv_t');
RESET ROLE;

-- shared_residency follows the reporting rule
SET ROLE regress_cachectl_stats;
SELECT count(*) FROM cachectl.shared_residency('priv_t');
RESET ROLE;
SET ROLE regress_cachectl_reader;
SELECT fork, shared_blocks >= 0 AS reported FROM cachectl.shared_residency('priv_t', 'main');
RESET ROLE;

-- actions are superuser-only by default, even for pg_read_all_stats ...
SET ROLE regress_cachectl_reader;
SELECT * FROM cachectl.evict('priv_t');
SELECT * FROM cachectl.evict_relations(ARRAY['priv_t'::regclass]);
SELECT * FROM cachectl.evict_buffer(1);
SELECT * FROM cachectl.evict_database();
SELECT * FROM cachectl.evict_all();
RESET ROLE;
-- cachectl.prewarm_max_share keeps a prewarm from replacing the pool: a role
-- granted prewarm must not raise it for its own calls (42501)
SET ROLE regress_cachectl_granted;
SET cachectl.prewarm_max_share = 1;
SHOW cachectl.prewarm_max_share;
RESET ROLE;
-- ... and an operator role gets them by GRANT: no superuser check in C
CREATE ROLE regress_cachectl_operator;
GRANT USAGE ON SCHEMA cachectl TO regress_cachectl_operator;
GRANT EXECUTE ON FUNCTION cachectl.evict(regclass, text, boolean),
                          cachectl.evict_relations(regclass[], text, boolean),
                          cachectl.evict_buffer(int4),
                          cachectl.evict_database(name),
                          cachectl.evict_all() TO regress_cachectl_operator;
SET ROLE regress_cachectl_operator;
-- an action on a relation needs SELECT on it, as a report does: its counts
-- tell residency and dirty state (42501, for its index too)
SELECT relation, fork FROM cachectl.evict('priv_t', 'main');
SELECT relation, fork FROM cachectl.evict('priv_t_pkey');
SELECT relation, fork FROM cachectl.evict_relations(ARRAY['priv_t'::regclass], 'main');
\set VERBOSITY default
SELECT relation, fork FROM cachectl.evict('priv_t_pkey');
\set VERBOSITY sqlstate
-- the cluster-wide actions need their EXECUTE grant alone
SELECT count(*) FROM cachectl.evict_buffer(1);
SELECT count(*) FROM cachectl.evict_database();
SELECT count(*) FROM cachectl.evict_all();
-- and reporting still needs its own grants
SELECT count(*) FROM cachectl.shared_residency('priv_t');
RESET ROLE;
GRANT SELECT ON priv_t TO regress_cachectl_operator;
SET ROLE regress_cachectl_operator;
SELECT relation, fork FROM cachectl.evict('priv_t', 'main');
SELECT relation, fork FROM cachectl.evict_relations(ARRAY['priv_t'::regclass], 'main');
SELECT relation, fork FROM cachectl.evict('priv_t_pkey');
RESET ROLE;
REVOKE SELECT ON priv_t FROM regress_cachectl_operator;
REVOKE ALL ON SCHEMA cachectl FROM regress_cachectl_operator;
REVOKE ALL ON FUNCTION cachectl.evict(regclass, text, boolean),
                       cachectl.evict_relations(regclass[], text, boolean),
                       cachectl.evict_buffer(int4),
                       cachectl.evict_database(name),
                       cachectl.evict_all() FROM regress_cachectl_operator;
DROP ROLE regress_cachectl_operator;

REVOKE ALL ON SCHEMA cachectl FROM regress_cachectl_granted;
REVOKE ALL ON FUNCTION cachectl.os_residency(regclass, text) FROM regress_cachectl_granted;
DROP TABLE priv_t, priv_p;
DROP ROLE regress_cachectl_nobody, regress_cachectl_stats, regress_cachectl_reader, regress_cachectl_granted;
DROP EXTENSION pg_cachectl;
