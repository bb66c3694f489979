#!/usr/bin/env bash
# demo.sh — `make demo`: install what is missing, build, install, start a
# throwaway cluster and walk through PostgreSQL's double buffering with
# pg_cachectl.  KEEP=1 leaves the cluster running and says how to reach it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
source scripts/cluster.sh

bash scripts/install_deps.sh demo
make -s
make -s install >/dev/null

demo_dir=$(mktemp -d /tmp/cachectl-demo.XXXXXX)
chmod 755 "$demo_dir"
finish() {
    if [ "${KEEP:-0}" = 1 ]; then
        echo
        echo "The cluster keeps running.  Connect with:"
        echo "  runuser -u postgres -- psql -h $CLUSTER_SOCKET -p $CLUSTER_PORT"
        echo "Stop it with:"
        echo "  runuser -u postgres -- $PG_BINDIR/pg_ctl -D $demo_dir/data stop && rm -rf $demo_dir"
    else
        cluster_stop
        rm -rf "$demo_dir"
        echo
        echo "(cluster stopped and removed; run 'make demo KEEP=1' to keep it)"
    fi
}
trap finish EXIT
cluster_start "$demo_dir" "shared_buffers = 256MB"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
sql() { cluster_psql -q -c "$1"; }
echo_sql() { printf '\033[2m%s\033[0m\n' "$1"; cluster_psql -q -c "$1"; }

sql "CREATE EXTENSION pg_cachectl; CREATE EXTENSION pg_prewarm;"
sql "CREATE VIEW both_layers AS
     SELECT s.relation, pg_size_pretty(sum(s.shared_blocks) * current_setting('block_size')::int) AS in_shared_buffers,
            sum(s.shared_dirty_blocks) AS shared_dirty_blocks,
            (SELECT pg_size_pretty(o.os_bytes) FROM cachectl.os_residency_total(s.relation) o) AS in_os_cache
     FROM pg_class c, cachectl.shared_residency(c.oid) s
     WHERE c.relname IN ('orders', 'orders_placed_at')
     GROUP BY s.relation ORDER BY s.relation;"

say "A sample table of a few hundred MB"
echo_sql "CREATE TABLE orders AS
            SELECT g AS id, now() - g * interval '1 second' AS placed_at, md5(g::text) AS customer,
                   repeat('x', 120) AS notes
            FROM generate_series(1, 1800000) g;
          CREATE INDEX orders_placed_at ON orders (placed_at);
          CHECKPOINT;"
echo_sql "SELECT pg_size_pretty(pg_relation_size('orders')) AS table_size,
                 pg_size_pretty(pg_relation_size('orders_placed_at')) AS index_size,
                 cachectl.os_engine() AS engine, cachectl.os_page_size() AS os_page_size;"

say "Just written, the table sits in the kernel's page cache (written at checkpoint) ..."
echo_sql "SELECT relation, pg_size_pretty(size_bytes) AS size, pg_size_pretty(os_bytes) AS in_os_cache,
                 os_dirty_pages, os_writeback_pages
          FROM cachectl.os_residency_total('orders', cascade => true);"
say "... while shared buffers hold only what the writes left there (bulk writes use a small ring)"
echo_sql "SELECT relation, fork, size_blocks, shared_blocks, shared_dirty_blocks, shared_pinned_blocks, round(usage_count_avg::numeric, 2) AS usage_count_avg
          FROM cachectl.shared_residency('orders', cascade => true);"

say "Per fork and 1 GiB segment file:"
echo_sql "SELECT fork, segment, path, pg_size_pretty(size_bytes) AS size, size_pages, os_pages, os_dirty_pages
          FROM cachectl.os_residency('orders');"

say "Drop the table and its index from the OS cache (dirty pages are written back first, then dropped)"
echo_sql "SELECT relation, fork, pg_size_pretty(os_bytes_before) AS cached_before, os_dirty_pages_before,
                 pg_size_pretty(os_bytes_after) AS cached_after
          FROM cachectl.os_drop('orders', cascade => true);"
echo_sql "SELECT relation, pg_size_pretty(os_bytes) AS in_os_cache FROM cachectl.os_residency_total('orders', cascade => true);"

say "Load 200 MB into shared buffers with pg_prewarm: the kernel caches the same pages on the way"
echo_sql "SELECT pg_prewarm('orders', 'buffer', 'main', 0, 25599) AS shared_blocks_loaded;"
echo_sql "SELECT * FROM both_layers;"
echo "The OS cache was empty before: what it holds now came in with the buffers, so those"
echo "pages are cached twice, once in shared buffers and once in the page cache."

say "Which blocks of the table the page cache holds now: a block map (one bit per block), saved and drawn"
echo_sql "CREATE TABLE cache_snapshot AS SELECT now() AS taken_at, cachectl.os_map('orders', fork => 'main') AS map;
          SELECT length(map) AS blocks, length(replace(map::text, '0', '')) AS cached_blocks FROM cache_snapshot;"
echo_sql "SELECT cachectl.os_draw(map, 64) AS orders_in_os_cache FROM cache_snapshot;"

say "Evict the table and its index from shared buffers (dirty buffers are written first, pinned ones skipped)"
echo_sql "UPDATE orders SET notes = 'changed' WHERE id % 1000 = 0;"
echo_sql "SELECT * FROM both_layers;"
echo_sql "SELECT * FROM cachectl.evict('orders', cascade => true);"
echo_sql "SELECT * FROM both_layers;"
echo_sql "SELECT count(*) AS changed_rows_survive FROM orders WHERE notes = 'changed';"
echo "Shared buffers are empty for the table; the kernel still caches its pages."

say "Drop the table from the OS cache again, then prefetch all of it (os_prefetch returns once the reads are done)"
echo_sql "SELECT relation, fork, pg_size_pretty(os_bytes_before) AS cached_before, pg_size_pretty(os_bytes_after) AS cached_after
          FROM cachectl.os_drop('orders');"
echo_sql "SELECT relation, fork, blocks_requested, pg_size_pretty(os_bytes_after) AS cached_after,
                 os_pages_pending, seconds
          FROM cachectl.os_prefetch('orders', fork => 'main');"
echo_sql "SELECT cachectl.os_draw(cachectl.os_map('orders', fork => 'main'), 64) AS orders_in_os_cache;"

say "Put the page cache back as the snapshot had it: only what pg_prewarm brought in (a prewarm job would do this before the morning peak)"
echo_sql "SELECT relation, fork, os_blocks_loaded, blocks_past_end, os_pages_pending, seconds
          FROM cachectl.os_restore('orders', (SELECT map FROM cache_snapshot), drop_others => true, fork => 'main');"
echo_sql "SELECT length(replace(map::text, '0', '')) AS cached_blocks_in_snapshot,
                 length(replace(cachectl.os_map('orders', fork => 'main')::text, '0', '')) AS cached_blocks_now,
                 cachectl.os_draw(cachectl.os_map('orders', fork => 'main'), 64) AS orders_in_os_cache
          FROM cache_snapshot;"
echo "(The UPDATE added blocks at the end since the snapshot; the map restores the blocks it knew.)"

say "The engines agree (cachestat counts in the kernel; mincore maps the file and asks page by page)"
echo_sql "SELECT cachectl.os_engine() AS engine, os_pages FROM cachectl.os_residency('orders', 'main') WHERE segment = 0
          UNION ALL
          SELECT 'mincore', os_pages FROM (SELECT set_config('cachectl.os_engine', 'mincore', false)) s,
                 cachectl.os_residency('orders', 'main') WHERE segment = 0;"

say "Part 2 — both layers at once, on a 10-million-row table"
echo_sql "CREATE TABLE events AS
            SELECT g AS id, g % 1000 AS account, now() - g * interval '1 ms' AS at, md5(g::text) AS payload
            FROM generate_series(1, 10000000) g;"
sql "VACUUM ANALYZE events;"
echo_sql "SELECT pg_size_pretty(pg_relation_size('events')) AS table_size, current_setting('shared_buffers') AS shared_buffers;"

say "Where its blocks are: shared buffers, the OS page cache, both (cached twice), neither"
echo_sql "SELECT fork, size_blocks, shared_blocks, os_blocks, both_blocks, neither_blocks,
                 pg_size_pretty(both_bytes) AS cached_twice
          FROM cachectl.status('events') WHERE fork = 'main';"

say "Make it truly cold in one call: evicted from shared buffers, written back and dropped from the OS cache"
echo_sql "SELECT * FROM cachectl.cold('events');"

say "A count(*) cold, then warm"
echo_sql "SELECT count(*), round(extract(epoch FROM clock_timestamp() - now())::numeric, 2) AS seconds_cold FROM events;"
echo_sql "SELECT count(*), round(extract(epoch FROM clock_timestamp() - now())::numeric, 2) AS seconds_warm FROM events;"

say "The sequential scan read through a small ring of shared buffers: the kernel kept the whole table, PostgreSQL almost none of it"
echo_sql "SELECT fork, size_blocks, shared_blocks, os_blocks, both_blocks FROM cachectl.status('events') WHERE fork = 'main';"
echo_sql "SELECT cachectl.draw('events', 64);"

say "prewarm into shared buffers (an OS prefetch runs ahead of the reads); the OS keeps a copy: cached twice"
echo_sql "SET cachectl.prewarm_max_share = 0.9;
          SELECT relation, fork, blocks_requested, shared_blocks_loaded, seconds FROM cachectl.prewarm('events', 'shared', fork => 'main');"
echo_sql "SELECT cachectl.draw('events', 64);"

say "Evict from shared buffers: the OS copy stays"
echo_sql "SELECT * FROM cachectl.evict('events');"
echo_sql "SELECT cachectl.draw('events', 64);"

say "Warm shared buffers without caching twice: drop_os_copy writes back and drops what was loaded from the OS cache"
echo_sql "SELECT count(*) FROM cachectl.cold('events');"
echo_sql "SET cachectl.prewarm_max_share = 0.9;
          SELECT relation, fork, shared_blocks_loaded, seconds FROM cachectl.prewarm('events', 'shared', drop_os_copy => true, fork => 'main');"
echo_sql "SELECT fork, shared_blocks, os_blocks, both_blocks FROM cachectl.status('events') WHERE fork = 'main';"
echo_sql "SELECT cachectl.draw('events', 64);"

say "Snapshot both layers (a cron job would do this in the evening), make everything cold, restore (before the morning peak)"
echo_sql "SELECT * FROM cachectl.snapshot('morning', ARRAY['events'::regclass]);"
echo_sql "SELECT count(*) FROM cachectl.cold('events');"
echo_sql "CALL cachectl.restore('morning');"
echo_sql "SELECT fork, shared_blocks, os_blocks, both_blocks FROM cachectl.status('events') WHERE fork = 'main';"

say "Where each read came from: the same count(*) cold (the device), with only the OS copy (the page cache), in shared buffers"
echo_sql "CREATE TABLE ledger AS SELECT g AS id, md5(g::text) AS entry FROM generate_series(1, 1500000) AS g;
          SELECT pg_size_pretty(pg_relation_size('ledger')) AS ledger_size;"
# explain_reads runs the query as EXPLAIN ANALYZE would; its Query row sums the plan (no parallel workers: their reads are not counted)
reads_of_count() {
    echo_sql "SET max_parallel_workers_per_gather = 0;
          SELECT '$1' AS state, shared_hit_blocks, os_hit_blocks, device_read_blocks,
                 pg_size_pretty(device_read_bytes) AS device_bytes,
                 round(extract(epoch FROM clock_timestamp() - statement_timestamp())::numeric, 3) AS seconds
            FROM cachectl.explain_reads('SELECT count(*) FROM ledger') WHERE node_type = 'Query';"
}
sql "SELECT count(*) FROM cachectl.cold('ledger');" >/dev/null
reads_of_count cold
sql "SELECT count(*) FROM cachectl.evict('ledger');" >/dev/null
reads_of_count 'OS copy only'
sql "SELECT count(*) FROM cachectl.prewarm('ledger', 'shared');" >/dev/null
reads_of_count 'shared buffers'

say "The whole database at a glance (a view: one pass over the pool, no relation locks)"
echo_sql "SELECT relation, kind, pg_size_pretty(size_bytes) AS size, pg_size_pretty(shared_bytes) AS shared,
                 pg_size_pretty(os_bytes) AS os_cache, pg_size_pretty(both_bytes) AS cached_twice
          FROM cachectl.database_status ORDER BY size_bytes DESC LIMIT 5;"

say "Part 3 — size shared_buffers from evidence: what would another pool size give?"
# restart_with LINES... — the cluster restarted with these settings (the last line of a name wins)
restart_with() {
    printf '%s\n' "$@" | as_postgres tee -a "$demo_dir/data/postgresql.conf" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$demo_dir/data" -l "$demo_dir/server.log" -m fast -w restart >/dev/null
}
pgbench_select() {
    as_postgres "$PG_BINDIR/pgbench" -n -S -c 2 -j 2 -T "$1" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres 2>&1 |
        awk '/^tps = / { printf "(pgbench -S: %.0f transactions per second)\n", $3 }'
}
hit_ratio_sql="SELECT sum(blks_hit) AS hit, sum(blks_read) AS read FROM pg_stat_database"
echo "A 32 MB pool serving pgbench's 120 MB of accounts, the sampler on (it needs the library preloaded):"
restart_with "shared_preload_libraries = 'pg_cachectl'" "shared_buffers = 32MB" "cachectl.track_advice = on" "cachectl.track_reads = on"
as_postgres "$PG_BINDIR/pgbench" -i -q -s 8 -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres >/dev/null 2>&1
pgbench_select 15 >/dev/null   # warm
sql "SELECT cachectl.reset_advice();" >/dev/null
sleep 1
pgbench_select 30
sleep 2   # the sampler publishes every second
echo_sql "SELECT pg_size_pretty(pool_bytes) AS pool, round(hit_ratio::numeric, 4) AS hit_ratio,
                 round(read_blocks_per_second) AS reads_per_s, round(observed_seconds) AS seconds, basis
          FROM cachectl.shared_buffers_advice;"
predicted=$(cluster_psql -At -c "SELECT round(hit_ratio::numeric, 4) FROM cachectl.shared_buffers_advice WHERE size_ratio = 2")
say "Which relations a bigger pool would help most"
echo_sql "SELECT relation, kind, round(hit_ratio::numeric, 3) AS hit_ratio_at_2x,
                 round(read_blocks_saved_per_second) AS reads_saved_per_s
          FROM cachectl.relation_advice(3) WHERE size_ratio = 2;"
say "Now the real thing: restart at 64 MB (2x), the same load warm, and measure"
restart_with "shared_buffers = 64MB" "cachectl.track_advice = off"
pgbench_select 15 >/dev/null   # warm
read -r hit_before read_before <<<"$(cluster_psql -At -F ' ' -c "$hit_ratio_sql")"
pgbench_select 30
sleep 1
read -r hit_after read_before_end <<<"$(cluster_psql -At -F ' ' -c "$hit_ratio_sql")"
awk -v h="$((hit_after - hit_before))" -v r="$((read_before_end - read_before))" -v p="$predicted" 'BEGIN {
    printf "measured at 64 MB: hit ratio %.4f (blks_hit / (blks_hit + blks_read) over the 30 s); predicted at 32 MB for 2x: %s\n", h / (h + r), p }'
