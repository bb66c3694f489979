-- The extension's API: functions, result columns, settings, default grants.

-- The schema belongs to the extension.  A role with CREATE on the database
-- that makes a cachectl schema first (to plant functions a superuser would
-- then call) makes CREATE EXTENSION fail instead of owning its schema.
CREATE ROLE regress_cachectl_squatter;
DO $$ BEGIN
    EXECUTE format('GRANT CREATE ON DATABASE %I TO regress_cachectl_squatter', current_database());
END $$;
SET ROLE regress_cachectl_squatter;
CREATE SCHEMA cachectl;
CREATE FUNCTION cachectl.evict(rel text) RETURNS text LANGUAGE sql AS $$ SELECT 'planted' $$;
RESET ROLE;
\set VERBOSITY sqlstate
CREATE EXTENSION pg_cachectl;
\set VERBOSITY default
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'pg_cachectl';
DROP SCHEMA cachectl CASCADE;
DO $$ BEGIN
    EXECUTE format('REVOKE CREATE ON DATABASE %I FROM regress_cachectl_squatter', current_database());
END $$;
DROP ROLE regress_cachectl_squatter;

CREATE EXTENSION pg_cachectl;
-- the extension made the schema and owns it as a member
SELECT nspowner = (SELECT extowner FROM pg_extension WHERE extname = 'pg_cachectl') AS same_owner,
       EXISTS (SELECT FROM pg_depend
               WHERE classid = 'pg_namespace'::regclass AND objid = n.oid
                 AND refclassid = 'pg_extension'::regclass AND deptype = 'e') AS extension_member
FROM pg_namespace n WHERE nspname = 'cachectl';

SELECT p.proname,
       pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result
FROM pg_proc p
WHERE p.pronamespace = 'cachectl'::regnamespace
ORDER BY p.proname;

-- Every shared-buffer function says what it does, its unit, who may call it.
SELECT p.proname, obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p
WHERE p.pronamespace = 'cachectl'::regnamespace
  AND p.proname IN ('shared_residency', 'evict', 'evict_relations', 'evict_database', 'evict_all', 'evict_buffer')
ORDER BY p.proname;

-- Nothing runs for PUBLIC but what snapshots' policy and internals read as
-- the querying role, catalog facts only: relation_guard_of,
-- snapshot_relations (the schema's USAGE is the gate) and system_identifier;
-- reporting is granted to pg_read_all_stats.
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
-- the schema went with it
SELECT count(*) AS leftover_schemas FROM pg_namespace WHERE nspname = 'cachectl';
