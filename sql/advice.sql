-- The sizing advice's SQL surface: the functions and views, the settings and
-- who may change them, the argument errors (checked before anything else,
-- so a server without the library preloaded shows them), the error such a
-- server gives, and the privileges.  What the curve predicts is measured
-- by test/t/091_advice_accuracy.pl on a server that preloads the library.
CREATE EXTENSION pg_cachectl;

-- the views' columns and their types
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
 WHERE c.relnamespace = 'cachectl'::regnamespace
   AND c.relname IN ('shared_buffers_advice', 'advice_status') AND a.attnum > 0
 ORDER BY c.relname, a.attnum;

-- the settings: track_advice reloadable; advice_sample_blocks, fixed at
-- server start, exists only where the library is preloaded
LOAD 'pg_cachectl';
SELECT name, setting, unit, context, vartype, min_val, max_val
  FROM pg_settings WHERE name IN ('cachectl.track_advice', 'cachectl.advice_sample_blocks')
 ORDER BY name;

-- bad sizes: 22004 for a null, 22023 for 0, negative, below 16 buffers,
-- above 2^40, or a two-dimensional array
\set VERBOSITY sqlstate
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[NULL]::bigint[]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[134217728, NULL]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[0]::bigint[]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[-8192]::bigint[]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[8192]::bigint[]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[1099511627777]::bigint[]);
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[[134217728], [268435456]]::bigint[]);
-- bad n: 22004 for null, 22023 outside 1..1000
SELECT * FROM cachectl.relation_advice(NULL);
SELECT * FROM cachectl.relation_advice(0);
SELECT * FROM cachectl.relation_advice(1001);
\set VERBOSITY default
-- the messages say what is wrong and what is allowed
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[-1]::bigint[]);

-- good arguments without shared memory: 55000 with the way out
SELECT * FROM cachectl.shared_buffers_advice();
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM cachectl.shared_buffers_advice(ARRAY[1099511627776]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM cachectl.relation_advice(1000);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM cachectl.advice_status();
\echo :LAST_ERROR_SQLSTATE
SELECT cachectl.reset_advice();
\echo :LAST_ERROR_SQLSTATE

-- privileges: pg_monitor reads, nobody else by default; only a superuser
-- resets or turns it on
CREATE ROLE regress_adv_plain;
SELECT f AS function,
       has_function_privilege('pg_monitor', f, 'EXECUTE') AS monitor,
       has_function_privilege('regress_adv_plain', f, 'EXECUTE') AS plain
  FROM unnest(ARRAY['cachectl.shared_buffers_advice(bigint[])', 'cachectl.relation_advice(integer)',
                    'cachectl.advice_status()', 'cachectl.reset_advice()']) AS f;
SELECT v AS view,
       has_table_privilege('pg_monitor', v, 'SELECT') AS monitor,
       has_table_privilege('regress_adv_plain', v, 'SELECT') AS plain
  FROM unnest(ARRAY['cachectl.shared_buffers_advice', 'cachectl.advice_status']) AS v;
SET ROLE regress_adv_plain;
\set VERBOSITY sqlstate
SELECT * FROM cachectl.shared_buffers_advice();
SELECT cachectl.reset_advice();
SET cachectl.track_advice = on;
\set VERBOSITY default
RESET ROLE;

-- the role sets: reader reads the reports, cluster_operator also resets
SELECT privilege, object FROM cachectl_internal.role_set_objects('reader')
 WHERE object LIKE '%advice%' ORDER BY object;
SELECT privilege, object FROM cachectl_internal.role_set_objects('cluster_operator')
 WHERE object LIKE '%advice%' ORDER BY object;

DROP ROLE regress_adv_plain;
DROP EXTENSION pg_cachectl;
