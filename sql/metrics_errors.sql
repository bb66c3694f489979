-- Metrics for scraping: bad inputs with their SQLSTATEs.
CREATE EXTENSION pg_cachectl;

-- top_relations' n lies in 1..1000 (22023); NULL is 22004 (its default is 10)
\set VERBOSITY sqlstate
SELECT * FROM cachectl.top_relations(0);
SELECT * FROM cachectl.top_relations(1001);
SELECT * FROM cachectl.top_relations(-1);
\set VERBOSITY default
SELECT * FROM cachectl.top_relations(0);
SELECT count(*) FROM cachectl.top_relations(NULL);

DROP EXTENSION pg_cachectl;
