-- The extension's API: functions, result columns, settings, default grants.
CREATE EXTENSION pg_cachectl;

SELECT p.proname,
       pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result
FROM pg_proc p
WHERE p.pronamespace = 'cachectl'::regnamespace
ORDER BY p.proname;

-- Nothing runs for PUBLIC; reporting is granted to pg_read_all_stats.
SELECT p.proname,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_can_run,
       has_function_privilege('pg_read_all_stats', p.oid, 'EXECUTE') AS stats_role_can_run
FROM pg_proc p
WHERE p.pronamespace = 'cachectl'::regnamespace
ORDER BY p.proname;
SELECT has_schema_privilege('public', 'cachectl', 'USAGE') AS public_usage,
       has_schema_privilege('pg_read_all_stats', 'cachectl', 'USAGE') AS stats_role_usage;

-- Every function explains itself in \df+ (one sentence: what, unit, who).
SELECT p.proname AS without_comment
FROM pg_proc p
WHERE p.pronamespace = 'cachectl'::regnamespace AND obj_description(p.oid, 'pg_proc') IS NULL
ORDER BY p.proname;

-- The settings, with their defaults.
SHOW cachectl.progress;
SHOW cachectl.log_actions;

-- The engine setting and what it resolves to.
SHOW cachectl.os_engine;
SELECT cachectl.os_engine() IN ('cachestat', 'mincore') AS engine_known;
SET cachectl.os_engine = mincore;
SELECT cachectl.os_engine();
RESET cachectl.os_engine;

-- The page size is a power of two of at least 4 kB.
SELECT cachectl.os_page_size() >= 4096 AS at_least_4k,
       cachectl.os_page_size() & (cachectl.os_page_size() - 1) = 0 AS power_of_two;

DROP EXTENSION pg_cachectl;
SELECT count(*) AS leftover_functions FROM pg_proc WHERE proname LIKE 'os\_%' AND pronamespace::regnamespace::text = 'cachectl';
