-- Residency reports (os_residency and its settings): bad inputs fail with a precise SQLSTATE.
CREATE EXTENSION pg_cachectl;
\set VERBOSITY sqlstate

CREATE TABLE bad_t (id int);
CREATE VIEW bad_v AS SELECT 1 AS one;
CREATE TYPE bad_composite AS (a int);
CREATE FOREIGN DATA WRAPPER bad_fdw;
CREATE SERVER bad_server FOREIGN DATA WRAPPER bad_fdw;
CREATE FOREIGN TABLE bad_foreign (id int) SERVER bad_server;

-- an unknown fork name: 22023
SELECT * FROM cachectl.os_residency('bad_t', 'heap');
SELECT * FROM cachectl.os_residency('bad_t', '');
-- a relation OID that does not exist: 42P01
SELECT * FROM cachectl.os_residency(4294967295::oid::regclass);
SELECT * FROM cachectl.os_residency_total(4294967295::oid::regclass);
-- relations without storage: 42809
SELECT * FROM cachectl.os_residency('bad_v');
SELECT * FROM cachectl.os_residency_total('bad_v', cascade => true);
SELECT * FROM cachectl.os_residency('bad_foreign');
SELECT * FROM cachectl.os_residency('bad_composite');
-- a name that is no relation: 42P01 from regclass itself
SELECT * FROM cachectl.os_residency('no_such_relation');
-- an unknown engine: 22023
SET cachectl.os_engine = bogus;
-- the cachectl prefix is reserved: unknown cachectl.* settings are refused (42602)
SET cachectl.no_such_setting = on;

\set VERBOSITY default
-- the messages, once, in full
SELECT * FROM cachectl.os_residency('bad_v');
SELECT * FROM cachectl.os_residency('bad_t', 'heap');

DROP FOREIGN TABLE bad_foreign;
DROP SERVER bad_server;
DROP FOREIGN DATA WRAPPER bad_fdw;
DROP TYPE bad_composite;
DROP VIEW bad_v;
DROP TABLE bad_t;
DROP EXTENSION pg_cachectl;
