#!/usr/bin/env bash
# bench/metrics.sh — what one scrape of the metrics costs (issue 18): the
# cachectl.database_summary view (per relation kind: shared, dirty, OS and
# double-cached bytes) and cachectl.top_relations(10), in a database of
# 10,000 relations with 2 GiB cached, then of 100,000 relations, on a
# throwaway cluster of its own (shared_buffers = 1280MB).
#
# State: table t of 2 GiB (262,144 blocks); its first half is loaded with
# cachectl.prewarm(target => 'both') (in shared buffers and the OS cache:
# 1 GiB cached twice), its second half with cachectl.os_prefetch (OS cache
# only): 2 GiB in the OS cache, 1 GiB in shared buffers.  The other
# relations are one-row tables s.r_N (one 8 kB block each, just written: in
# both layers), created until the database has the number of relations with
# storage asked for (its catalogs, indexes and TOAST tables included).
#
# Timed inside the server with clock_timestamp(), in one session after an
# untimed call: REPS calls each of
#   - SELECT count(*) FROM cachectl.database_summary   (the scrape; judged)
#   - SELECT count(*) FROM cachectl.top_relations(10)
#   - SELECT count(*) FROM cachectl.database_status     (one row per relation, for scale)
#   - the floor's parts: the pg_class scan and the pass over the pool with
#     the catalog (cachectl_internal.shared_block_runs(NULL): the same list and pass,
#     no OS look), util-linux fincore over every file of the database from
#     the shell (one open + mmap + mincore per file), and the kernel's floor:
#     bench/raw_file_walk.c doing only the calls the walk cannot do without
#     (open, fstat, cachestat, close) over every file, median of 3 — on a
#     machine where system calls are slow (a paravirtualized guest) this
#     floor, not the code above it, decides the goal
# Prints the premises, the medians, and PASS/MISS against the goals:
# < 100 ms for 10,000 relations, < 1 s for 100,000.  A benchmark, not a
# test: exits 0 unless something broke.
#
# Settings (environment): QUICK=1 (1,000 and 10,000 relations, 512 MiB
# table, REPS=3), REPS (default 7), COUNTS (default "10000 100000"),
# REL_BLOCKS (default 262144), SHARED_BUFFERS (default 1280MB), PG_CONFIG,
# TMPDIR.  Run as root or as postgres.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    COUNTS=${COUNTS:-"1000 10000"}
    REL_BLOCKS=${REL_BLOCKS:-65536}
    REPS=${REPS:-3}
fi
COUNTS=${COUNTS:-"10000 100000"}
REL_BLOCKS=${REL_BLOCKS:-262144}
REPS=${REPS:-7}
SHARED_BUFFERS=${SHARED_BUFFERS:-1280MB}
declare -A GOAL_MS=([1000]=100 [10000]=100 [100000]=1000)

bench_start metrics

RAW_WALK=$WORK/raw_file_walk
cc -O2 -o "$RAW_WALK" "$HERE/raw_file_walk.c" || die "cannot compile raw_file_walk.c"

cluster_start "$WORK" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
    "wal_level = minimal" "max_wal_senders = 0" "cachectl.prewarm_max_share = 1" \
    "max_locks_per_transaction = 256" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE DATABASE metrics" >/dev/null
# shellcheck disable=SC2317  # called through sql's name
mql() { cluster_psql -d metrics -At -q "$@"; }
mql -c "CREATE EXTENSION pg_cachectl" -c "CREATE SCHEMA s"
mql <<'SQL'
CREATE FUNCTION bench_once(query text, OUT ms float8, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE query INTO result;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
-- reps timed calls after an untimed one: the median in ms, and the last result
CREATE FUNCTION bench_median(query text, reps int, OUT ms float8, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
    times float8[] := '{}';
    one record;
BEGIN
    EXECUTE query INTO result;
    FOR i IN 1..reps LOOP
        one := bench_once(query);
        times := times || one.ms;
        result := one.result;
    END LOOP;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO ms FROM unnest(times) x;
END $$;
SQL

say "metrics: one scrape of cachectl.database_summary and top_relations"
say "  machine: $(machine_summary); PostgreSQL $(sql -c 'SHOW server_version'), shared_buffers $SHARED_BUFFERS"
say "  data directory $DATA on $(filesystem_of "$DATA"); OS engine $(mql -c 'SELECT cachectl.os_engine()'), OS page $(getconf PAGESIZE) bytes"
say "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
emit_info premises "shared_buffers=$SHARED_BUFFERS t=$REL_BLOCKS blocks reps=$REPS engine=$(mql -c 'SELECT cachectl.os_engine()')"

# table t, in the metrics database
t0=$(now_us)
(mql -v rows=$((REL_BLOCKS * 2)) <<'SQL'
CREATE TABLE t (id int, pad text);
ALTER TABLE t ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO t SELECT g, repeat('x', 4040) FROM generate_series(1, :rows) g;
CHECKPOINT;
SQL
) &
wait $!
say "  table t: $(mql -c "SELECT pg_size_pretty(pg_relation_size('t'))") built in $(calc "sprintf(\"%.1f\", ($(now_us) - $t0) / 1e6)") s"

make_cache_state() {
    local half=$((REL_BLOCKS / 2))
    mql -c "SELECT count(*) FROM cachectl.cold('t')" >/dev/null
    mql -c "SELECT count(*) FROM cachectl.prewarm('t', 'both', first_block => 0, last_block => $((half - 1)), fork => 'main')" >/dev/null
    mql -c "SELECT count(*) FROM cachectl.os_prefetch('t', first_block => $half, last_block => $((REL_BLOCKS - 1)), fork => 'main')" >/dev/null
}

relations_with_storage() {
    mql -c "SELECT count(*) FROM pg_class WHERE relkind IN ('r', 'i', 't', 'm', 'S') AND NOT relisshared AND relpersistence <> 't'"
}

NEXT=1
declare -A SUMMARY_MS=()
for n in $COUNTS; do
    have=$(relations_with_storage)
    todo=$((n - have))
    if [ "$todo" -gt 0 ]; then
        t0=$(now_us)
        (mql -v first="$NEXT" -v last=$((NEXT + todo - 1)) <<<"$(small_tables_sql)"
        ) &
        wait $!
        NEXT=$((NEXT + todo))
        say "  created $todo one-row tables in $(calc "sprintf(\"%.1f\", ($(now_us) - $t0) / 1e6)") s"
    fi
    make_cache_state
    rels=$(relations_with_storage)
    files=$(find "$DATA/base/$(mql -c "SELECT oid FROM pg_database WHERE datname = 'metrics'")" -type f -name '[1-9]*' | wc -l)

    IFS='|' read -r sum_ms sum_result top_ms top_rows status_ms list_ms pass_ms <<<"$(mql <<SQL | tail -n1
SELECT ms AS sum_ms, result AS sum_result FROM bench_median(\$q\$SELECT string_agg(concat_ws(':', kind, shared_bytes, shared_dirty_bytes, os_bytes, both_bytes), ' ') FROM cachectl.database_summary\$q\$, $REPS) \gset
SELECT ms AS top_ms, result AS top_rows FROM bench_median(\$q\$SELECT count(*)::text FROM cachectl.top_relations(10)\$q\$, $REPS) \gset
SELECT ms AS status_ms FROM bench_median(\$q\$SELECT count(*)::text FROM cachectl.database_status\$q\$, $REPS) \gset
SELECT ms AS list_ms FROM bench_median(\$q\$SELECT count(*)::text FROM pg_class\$q\$, $REPS) \gset
SELECT ms AS pass_ms FROM bench_median(\$q\$SELECT count(*)::text FROM cachectl_internal.shared_block_runs(NULL)\$q\$, $REPS) \gset
SELECT :'sum_ms', :'sum_result', :'top_ms', :'top_rows', :'status_ms', :'list_ms', :'pass_ms';
SQL
)"
    # the kernel's share: one open + mmap + mincore per file of the database
    dbdir=$DATA/base/$(mql -c "SELECT oid FROM pg_database WHERE datname = 'metrics'")
    t0=$(now_us)
    (cd "$dbdir" && find . -maxdepth 1 -type f -name '[1-9]*' -print0 | xargs -0 fincore -n -o RES >/dev/null)
    fincore_ms=$(calc "($(now_us) - $t0) / 1000")
    raw_runs=()
    for _ in 1 2 3; do
        raw_runs+=("$("$RAW_WALK" "$dbdir" | awk '{ print $4 }')")
    done
    raw_ms=$(median_of "${raw_runs[@]}")
    SUMMARY_MS[$n]=$sum_ms

    say ""
    say "  $rels relations with storage ($files files) in database metrics; t: half in both layers, half OS only"
    say "    summary (kind:shared:dirty:os:double bytes): $sum_result"
    say "    SELECT count(*) FROM cachectl.database_summary   median $(num "$sum_ms" 1) ms"
    say "    SELECT count(*) FROM cachectl.top_relations(10)   median $(num "$top_ms" 1) ms ($top_rows rows)"
    say "    SELECT count(*) FROM cachectl.database_status     median $(num "$status_ms" 1) ms (one row per relation, for scale)"
    say "    floor parts: pg_class scan $(num "$list_ms" 1) ms; catalog list + pool pass (shared_block_runs(NULL)) $(num "$pass_ms" 1) ms;"
    say "                 fincore over the $files files (shell, fork+exec included) $(num "$fincore_ms" 0) ms"
    say "    kernel floor: open + fstat + cachestat + close per file (raw_file_walk.c) $(num "$raw_ms" 1) ms;"
    say "                 database_summary = $(num "$sum_ms / $raw_ms" 2) x the floor"
    emit_sample database_summary "count(*) of the view" "$rels" "$sum_ms" ms
    emit_sample top_relations "count(*) of top_relations(10)" "$rels" "$top_ms" ms
    emit_sample database_status_for_scale "count(*) of database_status" "$rels" "$status_ms" ms
    emit_sample metrics_floor "catalog list + pool pass" "$rels" "$pass_ms" ms
    emit_sample metrics_floor "fincore over the files" "$rels" "$fincore_ms" ms
    emit_sample metrics_floor "open+fstat+cachestat+close per file" "$rels" "$raw_ms" ms
    goal=${GOAL_MS[$n]:-1000}
    verdict=MISS
    [ "$(calc "($sum_ms < $goal) ? 1 : 0")" = 1 ] && verdict=PASS
    say "    goal: < $goal ms: $verdict (the kernel floor alone: $(num "$raw_ms" 0) ms)"
    emit_goal "database_summary, $n relations, < $goal ms" "$sum_ms" "$goal" "$(calc "$goal / $sum_ms")" "$verdict"
done
say ""
say "  load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
