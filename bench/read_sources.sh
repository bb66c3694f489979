#!/usr/bin/env bash
# bench/read_sources.sh — where reads came from (issue 29): accuracy of
# cachectl.explain_reads() against pg_stat_kcache (the anchor: device bytes
# per statement from getrusage), in three constructed states of a table t,
# and what measuring costs against EXPLAIN (ANALYZE, BUFFERS).
#
# State: t of about 1 GB (QUICK: 256 MB), id and a 200-byte pad, with an
# index on id; shared_buffers 256MB, so a seq scan reads t through a ring
# and asks the kernel for each block; no parallel workers.
#   cold      cachectl.cold('t', true): neither layer
#   os only   evicted from shared buffers, then os_prefetch(wait): the OS cache alone
#   shared    the index in shared buffers (prewarm), for the lookups
# Accuracy, per state: the query's device bytes (explain_reads' Query row)
# against pg_stat_kcache's exec_reads of the same top-level statement: goal
# within 1 %; after cold, page-cache hits at most 1 % of the reads; with
# the OS cache only, 0 device bytes.
# Cost, median of REPS timed runs in one session, each right after an
# untimed one, in the same cluster, alternating:
#   - a seq scan of t served by the page cache (one sample per block read:
#     the worst case for sampling), and 10,000 index lookups in shared
#     buffers (no read: no sample), each through EXPLAIN (ANALYZE, BUFFERS)
#     and through explain_reads(): goal explain_reads ≤ 1.10× EXPLAIN.
#     EXPLAIN runs with TIMING OFF: explain_reads() keeps no per-node clock,
#     so that is the same work but for the read sampling.
# Prints the premises, the figures and PASS/MISS.  A benchmark, not a test.
#
# Settings (environment): QUICK=1, REPS (default 7), ROWS, PG_CONFIG, TMPDIR.
# Needs postgresql-15-pg-stat-kcache for the anchor (scripts/install_deps.sh
# bench); without it the accuracy is printed without the anchor.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    ROWS=${ROWS:-1000000}
    REPS=${REPS:-3}
fi
ROWS=${ROWS:-4000000}
REPS=${REPS:-7}

bench_start read_sources
preload=pg_stat_statements
KCACHE=0
if [ -f "$("$PG_CONFIG" --sharedir)/extension/pg_stat_kcache.control" ]; then
    preload=pg_stat_statements,pg_stat_kcache
    KCACHE=1
fi
cluster_start "$WORK" "shared_buffers = 256MB" "shared_preload_libraries = '$preload'" \
    "max_parallel_workers_per_gather = 0" "track_io_timing = on" "max_wal_size = 4GB" >/dev/null
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
[ "$KCACHE" = 1 ] && sql -c "CREATE EXTENSION pg_stat_kcache" >/dev/null

t0=$(now_us)
sql -v rows="$ROWS" >/dev/null <<'SQL'
CREATE TABLE t AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, :rows) AS g;
CREATE INDEX t_id ON t (id);
VACUUM ANALYZE t;
CHECKPOINT;
SQL
BLOCKS=$(sql -c "SELECT pg_relation_size('t') / 8192")
say "read_sources: where reads came from, explain_reads() against pg_stat_kcache, and its cost"
say "  machine: $(machine_summary); PostgreSQL $(sql -c 'SHOW server_version'), shared_buffers 256MB, no parallel workers"
say "  table t: $(sql -c "SELECT pg_size_pretty(pg_relation_size('t'))") ($BLOCKS blocks), index $(sql -c "SELECT pg_size_pretty(pg_relation_size('t_id'))"), built in $(fmt "($(now_us) - $t0) / 1e6") s"
say "  anchor: $([ "$KCACHE" = 1 ] && echo "pg_stat_kcache $(sql -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_stat_kcache'")" || echo 'none (pg_stat_kcache not installed)')"
emit_info premises "rows=$ROWS blocks=$BLOCKS shared_buffers=256MB reps=$REPS kcache=$KCACHE"

SCAN="SELECT count(pad) FROM t"
# the Query row of explain_reads: read, page-cache hits, device blocks, device bytes
measure_state() {
    local name=$1 setup=$2
    sql -c "$setup" >/dev/null
    [ "$KCACHE" = 1 ] && sql -c "SELECT pg_stat_kcache_reset(), pg_stat_statements_reset()" >/dev/null
    local row kcache=""
    row=$(sql -c "SELECT read_blocks, os_hit_blocks, device_read_blocks, device_read_bytes
                    FROM cachectl.explain_reads('$SCAN') WHERE node_type = 'Query'")
    IFS='|' read -r read os_hits device_blocks device_bytes <<<"$row"
    if [ "$KCACHE" = 1 ]; then
        kcache=$(sql -c "SELECT coalesce(sum(exec_reads), 0) FROM pg_stat_kcache_detail
                          WHERE top AND query LIKE '%cachectl.explain_reads%'")
    fi
    say "  $name: $read blocks read, $os_hits page-cache hits, $device_blocks device blocks, $device_bytes device bytes${kcache:+; pg_stat_kcache $kcache bytes}"
    emit_sample state_blocks "blocks read" "$name" "$read" blocks
    emit_sample state_blocks "page-cache hits" "$name" "$os_hits" blocks
    emit_sample state_blocks "device blocks" "$name" "$device_blocks" blocks
    emit_sample state_device_mb "explain_reads" "$name" "$(calc "$device_bytes / 1e6")" MB
    if [ -n "$kcache" ]; then emit_sample state_device_mb "pg_stat_kcache" "$name" "$(calc "$kcache / 1e6")" MB; fi
    STATE_READ=$read STATE_OS=$os_hits STATE_BYTES=$device_bytes STATE_KCACHE=$kcache
}

verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi; }

measure_state cold "SELECT count(*) FROM cachectl.cold('t', true)"
cold_share=$(calc "$STATE_OS / ($STATE_READ > 0 ? $STATE_READ : 1)")
say "    page-cache hits $(fmt "100 * $cold_share" 2) % of the reads (goal ≤ 1 %): $(verdict "$cold_share <= 0.01")"
emit_goal "cold: page-cache hits <= 1% of the reads" "$STATE_OS of $STATE_READ" - "$(fmt "100 * $cold_share" 2)%" "$(verdict "$cold_share <= 0.01")"
if [ "$KCACHE" = 1 ]; then
    diff=$(calc "($STATE_BYTES - $STATE_KCACHE) / ($STATE_KCACHE > 0 ? $STATE_KCACHE : 1)")
    say "    device bytes / pg_stat_kcache's = $(fmt "1 + $diff" 4) (goal within 1 %): $(verdict "$diff <= 0.01 && $diff >= -0.01")"
    emit_goal "cold: device bytes within 1% of pg_stat_kcache's (ratio = ours / anchor)" "$STATE_BYTES B" \
        "pg_stat_kcache $STATE_KCACHE B" "$(fmt "1 + $diff" 4)" "$(verdict "$diff <= 0.01 && $diff >= -0.01")"
fi
measure_state os_only "SELECT count(*) FROM cachectl.evict('t'); SELECT count(*) FROM cachectl.os_prefetch('t', wait => true)"
say "    device bytes $STATE_BYTES (goal 0): $(verdict "$STATE_BYTES == 0"); page-cache hits $STATE_OS of $STATE_READ"
emit_goal "OS cache only: 0 device bytes" "$STATE_BYTES B" "${STATE_KCACHE:+pg_stat_kcache $STATE_KCACHE B}" - \
    "$(verdict "$STATE_BYTES == 0")"
[ "$KCACHE" = 1 ] && say "    pg_stat_kcache: $STATE_KCACHE bytes"

# cost: median ms of REPS runs, alternating the two ways, in one session
sql >/dev/null <<'SQL'
CREATE FUNCTION bench_ms(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r record;
BEGIN
    FOR r IN EXECUTE query LOOP END LOOP;       -- untimed, warms the session
    t0 := clock_timestamp();
    FOR r IN EXECUTE query LOOP END LOOP;
    RETURN 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
SQL
LOOKUPS="SELECT sum(length(t.pad)) FROM generate_series(1, 10000) AS g JOIN t ON t.id = g * 7"
sql -c "SELECT count(*) FROM cachectl.prewarm('t_id', 'shared')" >/dev/null
# cost NAME COLUMN QUERY SETUP — REPS runs of QUERY each way after SETUP;
# every run a sample in the report's column COLUMN, the medians the goal
cost() {
    local name=$1 column=$2 query=$3 setup=$4
    local q=${query//\'/\'\'}
    local explain_ms reads_ms runs run
    read -r explain_ms reads_ms runs <<<"$(sql <<SQL | tail -n1
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
SET client_min_messages = warning;
$setup
WITH runs AS (
    SELECT bench_ms('EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $q') AS explain_ms,
           bench_ms('SELECT * FROM cachectl.explain_reads(''$q'')') AS reads_ms
      FROM generate_series(1, $REPS))
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY explain_ms) || ' ' ||
       percentile_cont(0.5) WITHIN GROUP (ORDER BY reads_ms) || ' ' ||
       string_agg(explain_ms || ':' || reads_ms, ',') FROM runs;
SQL
)"
    local ratio
    ratio=$(calc "$reads_ms / $explain_ms")
    say "  cost, $name: EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $(fmt "$explain_ms" 2) ms, explain_reads $(fmt "$reads_ms" 2) ms: $(fmt "$ratio" 3)× (goal ≤ 1.10): $(verdict "$ratio <= 1.10")"
    emit_goal "explain_reads() <= 1.10x EXPLAIN (ANALYZE, BUFFERS, TIMING OFF), $name (ratio = ours / anchor)" \
        "$(fmt "$reads_ms" 2) ms" "EXPLAIN $(fmt "$explain_ms" 2) ms" "$(fmt "$ratio" 3)" "$(verdict "$ratio <= 1.10")"
    for run in ${runs//,/ }; do
        emit_sample cost "explain_reads()" "$column" "${run#*:}" ms
        emit_sample cost "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF)" "$column" "${run%%:*}" ms
    done
}
cost "seq scan from the page cache ($BLOCKS reads)" "seq scan, page cache" "$SCAN" "SELECT count(*) FROM cachectl.evict('t');"
cost "10,000 index lookups in shared buffers" "10,000 lookups, shared" "$LOOKUPS" "SELECT count(*) FROM cachectl.prewarm('t', 'shared');"
