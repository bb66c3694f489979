-- Relation sets: partitions stand for a partitioned table; cascade adds
-- TOAST table, TOAST index and indexes.
CREATE EXTENSION pg_cachectl;

CREATE TABLE sets_t (id int PRIMARY KEY, doc text, note text);
CREATE INDEX sets_t_note ON sets_t (note);
INSERT INTO sets_t SELECT g, repeat('d', 10), 'n' || g FROM generate_series(1, 100) g;

-- names that do not depend on OIDs: TOAST relations are named after them
CREATE FUNCTION sets_label(rel regclass) RETURNS text LANGUAGE sql AS $$
    SELECT CASE
        WHEN c.relnamespace = 'pg_toast'::regnamespace AND c.relkind = 't' THEN 'toast table of ' || o.relname
        WHEN c.relnamespace = 'pg_toast'::regnamespace AND c.relkind = 'i' THEN 'toast index of ' || o.relname
        ELSE c.relname END
    FROM pg_class c
    LEFT JOIN pg_class o ON o.reltoastrelid = CASE c.relkind
        WHEN 't' THEN c.oid
        WHEN 'i' THEN (SELECT indrelid FROM pg_index WHERE indexrelid = c.oid) END
    WHERE c.oid = rel
$$;

-- without cascade: exactly the table
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_t');
-- with cascade: table, TOAST table, TOAST index, both indexes
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_t', cascade => true) ORDER BY 1;
-- cascade from an index adds nothing
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_t_note', cascade => true);

-- a partitioned table stands for its leaf partitions, recursively
CREATE TABLE sets_p (id int, region text) PARTITION BY LIST (region);
CREATE TABLE sets_p_east PARTITION OF sets_p FOR VALUES IN ('east');
CREATE TABLE sets_p_west PARTITION OF sets_p FOR VALUES IN ('west') PARTITION BY RANGE (id);
CREATE TABLE sets_p_west_low PARTITION OF sets_p_west FOR VALUES FROM (0) TO (1000);
CREATE TABLE sets_p_west_high PARTITION OF sets_p_west FOR VALUES FROM (1000) TO (MAXVALUE);
CREATE INDEX sets_p_id ON sets_p (id);
INSERT INTO sets_p SELECT g, CASE WHEN g % 2 = 0 THEN 'east' ELSE 'west' END FROM generate_series(1, 2000) g;

SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_p') ORDER BY 1;
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_p_west') ORDER BY 1;
-- with cascade, the leaves' index partitions (the partitioned indexes have no storage)
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_p', cascade => true) ORDER BY 1;
-- a partitioned index stands for its leaf index partitions
SELECT sets_label(relation) FROM cachectl.os_residency_total('sets_p_id') ORDER BY 1;
-- os_residency over a partitioned table: the leaves' files, main forks only here
SELECT count(*) AS main_rows, count(DISTINCT path) AS distinct_files
FROM cachectl.os_residency('sets_p', 'main');

-- a partitioned table without partitions is an empty set
CREATE TABLE sets_lonely (id int) PARTITION BY RANGE (id);
SELECT count(*) FROM cachectl.os_residency_total('sets_lonely', cascade => true);

-- the totals of a set add up to the sum of its members' rows
SELECT sum(size_bytes) = (SELECT sum(pg_relation_size(relid, f))
                          FROM pg_partition_tree('sets_p') t,
                               unnest(ARRAY['main', 'fsm', 'vm', 'init']) f
                          WHERE t.isleaf) AS sizes_add_up
FROM cachectl.os_residency_total('sets_p');

DROP FUNCTION sets_label(regclass);
DROP TABLE sets_t, sets_p, sets_lonely;
DROP EXTENSION pg_cachectl;
