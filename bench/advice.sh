#!/usr/bin/env bash
# bench/advice.sh — how right and how cheap the sizing advice is (issue 39).
#
# Accuracy: pgbench at scale SCALE (default 32: about 480 MB of accounts and
# their index, 3.75 times a 128 MB pool), two loads, RUNS runs each:
#   uniform   pgbench -S;
#   zipfian   the same lookup with aid = permute(random_zipfian(1, n, 1.01))
#             (a skewed load whose hot accounts are spread over the table);
#   gaussian  (not by default) aid = random_gaussian(1, n, 2.0): the middle
#             of the table hot.
# Per run: the server at 128 MB with cachectl.track_advice on, the load
# warm for WARM_SECONDS, reset_advice(), the load for WINDOW_SECONDS, then
# the predictions for 32, 64, 256 and 512 MB.  Then for each size: the
# server restarted at that size with the advice off, the same load warm
# for WARM_SECONDS, then measured for WINDOW_SECONDS:
# blks_hit / (blks_hit + blks_read) of pg_stat_database.  The goal: an
# absolute error of at most 0.03 at every size, for both loads, every run.
#
# Cost: at 128 MB with the uniform load, pgbench -S with the advice on
# against off, ROUNDS rounds of SECONDS_PER_RUN s, alternating which goes
# first (goal on/off >= 0.98), after as many rounds of off against off (the
# noise floor); the sampler's CPU and memory as advice_status() reports
# them.  The setting is switched by a reload (it is the one sampler's).
#
# Settings (environment): QUICK=1 (scale 8 from a 32 MB pool, 1 run, short
# windows: a check that it runs, not a figure), RUNS (default 3), SCALE,
# WARM_SECONDS (default 20), WINDOW_SECONDS (default 40), ROUNDS (default
# 12), SECONDS_PER_RUN (default 5), CLIENTS (default 2), PARTS (default
# "accuracy cost memory"), LOADS (default
# "uniform zipfian"), PG_CONFIG, TMPDIR.  A benchmark, not a test.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    RUNS=${RUNS:-1} SCALE=${SCALE:-8} WARM_SECONDS=${WARM_SECONDS:-5} WINDOW_SECONDS=${WINDOW_SECONDS:-10}
    ROUNDS=${ROUNDS:-2} SECONDS_PER_RUN=${SECONDS_PER_RUN:-2} BASE_MB=${BASE_MB:-32}
fi
RUNS=${RUNS:-3}
SCALE=${SCALE:-32}
WARM_SECONDS=${WARM_SECONDS:-20}
WINDOW_SECONDS=${WINDOW_SECONDS:-40}
ROUNDS=${ROUNDS:-12}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
CLIENTS=${CLIENTS:-2}
BASE_MB=${BASE_MB:-128}
SIZES_MB=("$((BASE_MB / 4))" "$((BASE_MB / 2))" "$((BASE_MB * 2))" "$((BASE_MB * 4))")
command -v "$PG_BINDIR/pgbench" >/dev/null || die "no pgbench in $PG_BINDIR"

verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi; }

# restart_at MB TRACK — the server restarted with shared_buffers MB and
# cachectl.track_advice TRACK (the last lines of postgresql.conf win)
restart_at() {
    printf "shared_buffers = '%sMB'\ncachectl.track_advice = %s\n" "$1" "$2" |
        as_postgres tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -m fast -w restart >/dev/null
}

# load LOAD SECONDS — the load for SECONDS on CLIENTS clients; prints its TPS
load() {
    local options=(-S)
    # a custom script gets :scale only from -D (its default is 1)
    [ "$1" = uniform ] || options=(-f "$WORK/$1.sql" -D "scale=$SCALE")
    local out
    out=$(as_postgres "$PG_BINDIR/pgbench" -n "${options[@]}" -c "$CLIENTS" -j "$CLIENTS" -T "$2" \
        -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres 2>&1) || die "pgbench failed: $out"
    awk '/^tps = / { print $3; exit }' <<<"$out"
}

# the sessions of a load gone (they flush their counters as they exit)
wait_for_load_gone() {
    local i
    for i in $(seq 1 100); do
        [ "$(sql -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'")" = 0 ] && return 0
        sleep 0.1
    done
    die "pgbench's sessions did not end"
}

database_counts() { sql -c "SELECT sum(blks_hit) || ' ' || sum(blks_read) FROM pg_stat_database"; }

bench_start advice
say "advice: the sizing advice's predictions against real runs, and its cost"
say "  machine: $(machine_summary)"
cat >"$WORK/zipfian.sql" <<'EOF'
\set naccounts 100000 * :scale
\set aid permute(random_zipfian(1, :naccounts, 1.01), :naccounts)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
EOF
cat >"$WORK/gaussian.sql" <<'EOF'
\set naccounts 100000 * :scale
\set aid random_gaussian(1, :naccounts, 2.0)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
EOF
chmod 644 "$WORK/zipfian.sql" "$WORK/gaussian.sql"

cluster_start "$WORK/cluster" "shared_buffers = ${BASE_MB}MB" "shared_preload_libraries = 'pg_cachectl'" \
    "cachectl.track_advice = on" "cachectl.track_reads = on" "max_wal_size = 4GB" "track_counts = on" >/dev/null
sql -c "CREATE EXTENSION pg_cachectl" >/dev/null
as_postgres "$PG_BINDIR/pgbench" -i -q -s "$SCALE" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres \
    >/dev/null 2>&1 || die "pgbench -i failed"
sql -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
# the data set in the page cache: the runs differ in shared_buffers only
sql -c "SELECT count(*) FROM cachectl.os_prefetch('pgbench_accounts')" \
    -c "SELECT count(*) FROM cachectl.os_prefetch('pgbench_accounts_pkey')" >/dev/null
data_mb=$(sql -c "SELECT (pg_total_relation_size('pgbench_accounts') / 1048576)::int")
say "  PostgreSQL $(sql -c 'SHOW server_version'), pgbench scale $SCALE: pgbench_accounts and its index $data_mb MB ($(fmt "$data_mb / $BASE_MB" 2) times the ${BASE_MB} MB pool); $CLIENTS clients; warm ${WARM_SECONDS} s, windows of ${WINDOW_SECONDS} s; $RUNS runs per load"
emit_info premises "scale=$SCALE data_mb=$data_mb base_mb=$BASE_MB clients=$CLIENTS warm=$WARM_SECONDS window=$WINDOW_SECONDS runs=$RUNS"

worst=0
PARTS=${PARTS:-accuracy cost memory}
[[ " $PARTS " == *" accuracy "* ]] || LOADS=none
for workload in ${LOADS:-uniform zipfian}; do
    [ "$workload" = none ] && continue
    for run in $(seq 1 "$RUNS"); do
        restart_at "$BASE_MB" on
        load "$workload" "$WARM_SECONDS" >/dev/null
        sql -c "SELECT cachectl.reset_advice()" >/dev/null
        for i in $(seq 1 100); do
            [ "$(sql -c "SELECT window_reason = 'reset_advice()' FROM cachectl.advice_status")" = t ] && break
            sleep 0.1
        done
        read -r hit0 read0 <<<"$(database_counts)"
        tps=$(load "$workload" "$WINDOW_SECONDS")
        wait_for_load_gone
        sleep 2.5   # the sampler publishes every second
        read -r hit1 read1 <<<"$(database_counts)"
        measured_base=$(calc "($hit1 - $hit0) / ($hit1 - $hit0 + $read1 - $read0)")
        sizes_sql=$(printf '%s,' "${SIZES_MB[@]}" "$BASE_MB")
        predictions=$(sql -c "SELECT string_agg((pool_bytes / 1048576)::int || '=' || coalesce(round(hit_ratio::numeric, 4)::text, 'null'), ' ' ORDER BY pool_bytes)
                                FROM cachectl.shared_buffers_advice(ARRAY(SELECT m::bigint * 1048576 FROM unnest('{${sizes_sql%,}}'::int[]) AS m))")
        predicted_base=$(tr ' ' '\n' <<<"$predictions" | awk -F= -v s="$BASE_MB" '$1 == s { print $2 }')
        say "  $workload, run $run: at ${BASE_MB} MB $(fmt "$tps" 0) TPS, window hit ratio $(num "$measured_base" 4), advice at 1x $predicted_base; predicted: $predictions"
        emit_sample one_x_error "$workload" "${BASE_MB}MB" "$(calc "$predicted_base - $measured_base")" ""
        for size in "${SIZES_MB[@]}"; do
            predicted=$(tr ' ' '\n' <<<"$predictions" | awk -F= -v s="$size" '$1 == s { print $2 }')
            restart_at "$size" off
            load "$workload" "$WARM_SECONDS" >/dev/null
            read -r hit0 read0 <<<"$(database_counts)"
            tps=$(load "$workload" "$WINDOW_SECONDS")
            wait_for_load_gone
            read -r hit1 read1 <<<"$(database_counts)"
            real=$(calc "($hit1 - $hit0) / ($hit1 - $hit0 + $read1 - $read0)")
            error=$(calc "$predicted - $real")
            abs=$(calc "($error) < 0 ? -($error) : ($error)")
            worst=$(calc "$abs > $worst ? $abs : $worst")
            say "    ${size} MB: predicted $predicted, real $(num "$real" 4) ($(fmt "$tps" 0) TPS), error $(num "$error" 4)"
            emit_sample absolute_error "$workload" "${size}MB" "$abs" ""
        done
    done
done
[ "${LOADS:-}" = none ] || say "  accuracy: the worst absolute error over every size, load and run $(num "$worst" 4) (goal ≤ 0.03): $(verdict "$worst <= 0.03")"
[ "${LOADS:-}" = none ] || emit_goal "predicted shared-buffer hit ratio at 1/4x, 1/2x, 2x, 4x of ${BASE_MB} MB against real runs, both loads, $RUNS runs: worst absolute error <= 0.03" \
    "worst $(num "$worst" 4)" "" "$(num "$worst" 4)" "$(verdict "$worst <= 0.03")"

# ---- cost ----
if [[ " $PARTS " == *" cost "* ]]; then
restart_at "$BASE_MB" on
load uniform "$WARM_SECONDS" >/dev/null
# server_cpu_ticks — CPU time of the server's processes that count here:
# the backends that ended (the postmaster's cutime + cstime: a run's
# backends exit with their pgbench) and the sampler, alive across runs
# (its utime + stime; a reload does not end it)
server_cpu_ticks() {
    local postmaster sampler ticks
    postmaster=$(head -n1 "$CLUSTER_DIR/data/postmaster.pid")
    ticks=$(awk '{ print $16 + $17 }' "/proc/$postmaster/stat")
    sampler=$(pgrep -P "$postmaster" -f 'advice sampler' | head -n1 || true)
    [ -n "$sampler" ] && ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$sampler/stat" 2>/dev/null || echo 0)))
    echo "$ticks"
}
TICKS_PER_SECOND=$(getconf CLK_TCK)
# run TRACK — one pgbench -S run with the advice TRACK (a reload switches
# it); prints its TPS and the server's CPU microseconds per transaction
run() {
    local before out transactions
    sql -c "ALTER SYSTEM SET cachectl.track_advice = $1" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5   # the sampler reads the reload on its next round
    before=$(server_cpu_ticks)
    out=$(as_postgres "$PG_BINDIR/pgbench" -n -S -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" \
        -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres 2>&1) || die "pgbench failed: $out"
    wait_for_load_gone   # its backends exit and are reaped
    transactions=$(awk '/actually processed/ { print $NF; exit }' <<<"$out")
    echo "$(awk '/^tps = / { print $3; exit }' <<<"$out") $(calc "($(server_cpu_ticks) - $before) * 1e6 / $TICKS_PER_SECOND / $transactions")"
}
# measure NAME A B — ROUNDS rounds of A against B, the order alternating;
# sets RATIO (median of the TPS ratios B/A) and CPU_RATIO (median of the
# CPU-per-transaction ratios A/B, as throughput: steadier than TPS on a VM
# whose speed moves, since stolen time and the clients do not count)
measure() {
    local name=$1 a_way=$2 b_way=$3 ratios=() cpu_ratios=() a b a_cpu b_cpu
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then
            read -r a a_cpu <<<"$(run "$a_way")"; read -r b b_cpu <<<"$(run "$b_way")"
        else
            read -r b b_cpu <<<"$(run "$b_way")"; read -r a a_cpu <<<"$(run "$a_way")"
        fi
        ratios+=("$(calc "$b / $a")") cpu_ratios+=("$(calc "$a_cpu / $b_cpu")")
        emit_sample tps_ratio "$name" "${BASE_MB}MB" "${ratios[-1]}" ×
        emit_sample cpu_ratio "$name" "${BASE_MB}MB" "${cpu_ratios[-1]}" ×
        say "    round $round: $a_way $(fmt "$a" 0) TPS ($(fmt "$a_cpu" 1) µs CPU/tx), $b_way $(fmt "$b" 0) TPS ($(fmt "$b_cpu" 1) µs CPU/tx)"
    done
    RATIO=$(median_of "${ratios[@]}")
    CPU_RATIO=$(median_of "${cpu_ratios[@]}")
    say "  $name: median of the rounds' TPS ratios $(fmt "$RATIO" 3)×; by the server's CPU per transaction (as throughput) $(fmt "$CPU_RATIO" 3)×"
}
measure "off against off (noise floor)" off off
floor=$RATIO cpu_floor=$CPU_RATIO
cpu0=$(sql -c "SELECT sampler_cpu_seconds FROM cachectl.advice_status")
measure "on against off" off on
sql -c "ALTER SYSTEM SET cachectl.track_advice = on" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1.5
read -r cpu1 memory followed rate <<<"$(sql -c "SELECT sampler_cpu_seconds || ' ' || memory_bytes || ' ' || followed_buffers || ' ' || round(sample_rate::numeric, 4) FROM cachectl.advice_status")"
say "  cost by the server's CPU per transaction: on/off $(fmt "$CPU_RATIO" 3)× as throughput (floor off/off $(fmt "$cpu_floor" 3)×)"
emit_info cpu_per_tx_ratio "on/off $(fmt "$CPU_RATIO" 3) floor $(fmt "$cpu_floor" 3)"
say "  cost: on/off $(fmt "$RATIO" 3)× (floor off/off $(fmt "$floor" 3)×; goal ≥ 0.98): $(verdict "$RATIO >= 0.98"); the sampler: rate $rate, $followed buffers followed, $(fmt "$memory / 1048576" 1) MB, $(fmt "$cpu1 - $cpu0" 2) CPU s over the $ROUNDS runs with it on: $(fmt "($cpu1 - $cpu0) * 100 / ($ROUNDS * $SECONDS_PER_RUN)" 1) % of one CPU while on (its windows restart at each reload)"
emit_goal "pgbench -S at ${BASE_MB} MB: track_advice on / off >= 0.98 (alternating runs, median of the rounds' TPS ratios)" \
    "on / off $(fmt "$RATIO" 3)" "floor: off / off $(fmt "$floor" 3)" "$(fmt "$RATIO" 3)" "$(verdict "$RATIO >= 0.98")"
emit_info sampler_memory_bytes "$memory"
fi

# ---- cost, both at once, each on a CPU of its own ----
# The alternating runs above see the VM's speed move by ±20 % from run to
# run.  Here two copies of the cluster run at the same time, each pinned
# with its clients to one CPU (taskset: the postmaster's children, the
# sampler among them, inherit it), one with the advice on and one off,
# which CPU gets which alternating: a drift of the machine hits both, and
# the sampler takes its CPU from its own cluster only.  One client each.
if [[ " $PARTS " == *" cost "* ]] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
TWIN_DIR=$WORK/twin
twin_psql() { as_postgres "$PG_BINDIR/psql" -h "$TWIN_DIR/socket" -p "$TWIN_PORT" -U postgres -X -At -q -v ON_ERROR_STOP=1 -d postgres "$@"; }
twin_stop() {
    [ -d "$TWIN_DIR/data" ] && as_postgres "$PG_BINDIR/pg_ctl" -D "$TWIN_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}
trap 'rc=$?; twin_stop; (exit $rc); bench_cleanup' EXIT
as_postgres "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null
mkdir -p "$TWIN_DIR/socket" && chown -R postgres: "$TWIN_DIR"
as_postgres cp -a "$CLUSTER_DIR/data" "$TWIN_DIR/data"
sync   # the copy written back before the runs
TWIN_PORT=$(free_port)
printf "port = %s\nunix_socket_directories = '%s'\n" "$TWIN_PORT" "$TWIN_DIR/socket" |
    as_postgres tee -a "$TWIN_DIR/data/postgresql.conf" >/dev/null
as_postgres taskset -c 0 "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null
as_postgres taskset -c 1 "$PG_BINDIR/pg_ctl" -D "$TWIN_DIR/data" -l "$TWIN_DIR/server.log" -w start >/dev/null
# pinned_pgbench CPU SOCKET PORT SECONDS OUT — one client's pgbench -S on CPU
pinned_pgbench() {
    as_postgres taskset -c "$1" "$PG_BINDIR/pgbench" -n -S -c 1 -j 1 -T "$4" -h "$2" -p "$3" -U postgres postgres >"$5" 2>&1
}
# pinned_run FIRST_TRACK TWIN_TRACK SECONDS — both at once; prints their TPS
pinned_run() {
    sql -c "ALTER SYSTEM SET cachectl.track_advice = $1" -c "SELECT pg_reload_conf()" >/dev/null
    twin_psql -c "ALTER SYSTEM SET cachectl.track_advice = $2" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
    pinned_pgbench 0 "$CLUSTER_SOCKET" "$CLUSTER_PORT" "$3" "$WORK/pinned.0" &
    local first=$!
    pinned_pgbench 1 "$TWIN_DIR/socket" "$TWIN_PORT" "$3" "$WORK/pinned.1" || die "pgbench failed: $(cat "$WORK/pinned.1")"
    wait "$first" || die "pgbench failed: $(cat "$WORK/pinned.0")"
    echo "$(awk '/^tps = / { print $3; exit }' "$WORK/pinned.0") $(awk '/^tps = / { print $3; exit }' "$WORK/pinned.1")"
}
# measure_pinned NAME A B — ROUNDS rounds of A beside B, which CPU runs B
# alternating; sets RATIO, the median of the rounds' B/A TPS ratios
measure_pinned() {
    local name=$1 a_way=$2 b_way=$3 ratios=() cpu0 cpu1 a b
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then
            read -r a b <<<"$(pinned_run "$a_way" "$b_way" "$SECONDS_PER_RUN")"
            cpu0=$a_way cpu1=$b_way
        else
            read -r b a <<<"$(pinned_run "$b_way" "$a_way" "$SECONDS_PER_RUN")"
            cpu0=$b_way cpu1=$a_way
        fi
        ratios+=("$(calc "$b / $a")")
        emit_sample tps_ratio "$name, at once, pinned" "${BASE_MB}MB" "${ratios[-1]}" ×
        say "    round $round: $a_way $(fmt "$a" 0) TPS beside $b_way $(fmt "$b" 0) TPS (CPU 0 $cpu0, CPU 1 $cpu1)"
    done
    RATIO=$(median_of "${ratios[@]}")
    say "  $name: median of the rounds' TPS ratios $(fmt "$RATIO" 3)×"
}
say "  at once, each copy and its client pinned to a CPU of its own (one client each), warm $WARM_SECONDS s:"
pinned_run off off "$WARM_SECONDS" >/dev/null
measure_pinned "off beside off, at once (noise floor)" off off
pinned_floor=$RATIO
measure_pinned "on beside off, at once" off on
say "  cost at once: on/off $(fmt "$RATIO" 3)× (floor off/off $(fmt "$pinned_floor" 3)×; goal ≥ 0.98): $(verdict "$RATIO >= 0.98")"
emit_goal "pgbench -S at ${BASE_MB} MB: track_advice on / off >= 0.98 (both at once, each pinned to a CPU, median of the rounds' TPS ratios)" \
    "on / off $(fmt "$RATIO" 3)" "floor: off / off $(fmt "$pinned_floor" 3)" "$(fmt "$RATIO" 3)" "$(verdict "$RATIO >= 0.98")"
twin_stop
rm -rf "$TWIN_DIR"
fi

# ---- memory at a 16 GB pool ----
# The shared memory of a 16 GB pool is reserved, not touched, by the start;
# the sampler's own memory is what advice_status() estimates and what the
# kernel counts as its private resident memory (RssAnon).
[[ " $PARTS " == *" memory "* ]] || exit 0
restart_at 16384 on
load uniform "$SECONDS_PER_RUN" >/dev/null
sleep 1.5
read -r memory pid followed rate <<<"$(sql -c "SELECT memory_bytes || ' ' || sampler_pid || ' ' || followed_buffers || ' ' || round(sample_rate::numeric, 5) FROM cachectl.advice_status")"
rss_kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status")
say "  memory at shared_buffers 16 GB: the sampler reports $(fmt "$memory / 1048576" 1) MB, the kernel counts $(fmt "$rss_kb / 1024" 1) MB private resident (rate $rate, $followed buffers followed; goal ≤ 64 MB): $(verdict "$memory <= 64 * 1048576 && $rss_kb <= 64 * 1024")"
emit_goal "the sampler's memory at shared_buffers 16 GB <= 64 MB" \
    "reported $(fmt "$memory / 1048576" 1) MB, RssAnon $(fmt "$rss_kb / 1024" 1) MB" "" "$(fmt "$rss_kb / 1024" 1)" \
    "$(verdict "$memory <= 64 * 1048576 && $rss_kb <= 64 * 1024")"
