-- Evicting shared buffers: bad inputs with their SQLSTATEs.
CREATE EXTENSION pg_cachectl;

CREATE TABLE everr_t (id int PRIMARY KEY);
INSERT INTO everr_t SELECT g FROM generate_series(1, 1000) g;

-- a NULL in the list (to_regclass of a table not created yet) names nothing
-- and is left out (the NULL rule); a list of two dimensions (2202E); buffer
-- numbers outside the pool (22023); an unknown database (3D000); an unknown
-- fork (22023)
\set VERBOSITY sqlstate
SELECT DISTINCT relation FROM cachectl.evict_relations(ARRAY['everr_t'::regclass, to_regclass('everr_no_such_table')]);
SELECT * FROM cachectl.evict_relations(ARRAY[['everr_t'::regclass]]);
SELECT * FROM cachectl.evict_buffer(0);
SELECT * FROM cachectl.evict_buffer((SELECT setting::int + 1 FROM pg_settings WHERE name = 'shared_buffers'));
SELECT * FROM cachectl.evict_buffer(2147483647);
SELECT * FROM cachectl.evict_database('everr_no_such_database');
SELECT * FROM cachectl.evict('everr_t', 'nofork');
\set VERBOSITY default
SELECT count(*) AS nothing FROM cachectl.evict_relations(ARRAY[to_regclass('everr_no_such_table')]);
SELECT * FROM cachectl.evict_buffer(0);

-- a set holds at most a million distinct relations: 54000, checked before
-- any of them is looked up
\set VERBOSITY sqlstate
SELECT count(*) FROM cachectl.evict_relations(ARRAY(SELECT g::oid::regclass FROM generate_series(1, 1000001) g));
\set VERBOSITY default
SELECT count(*) FROM cachectl.evict_relations(ARRAY(SELECT g::oid::regclass FROM generate_series(1, 1000001) g));

DROP TABLE everr_t;
DROP EXTENSION pg_cachectl;
