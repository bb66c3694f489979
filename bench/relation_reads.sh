#!/usr/bin/env bash
# bench/relation_reads.sh — what the per-relation read counters
# (cachectl.track_reads) cost: pgbench -S with the counters on against the
# same runs with them off, alternating, in one cluster (issue 29: goal
# on/off ≥ 0.97), and the shared memory they take.
#
# Two working sets, pgbench -S with CLIENTS clients (default 2: the
# machine's cores) for SECONDS each run, ROUNDS rounds of off and on in
# alternating order, after as many rounds of off against off (the noise
# floor: what the same comparison gives with nothing changed):
#   shared   scale 20 (~300 MB) in shared_buffers 1GB: every read a shared
#            hit, no read event (the wrapper's comparisons and the per-query
#            start and flush are all the cost);
#   os       scale 50 (~750 MB) with shared_buffers 128MB, warmed into the
#            OS page cache: most reads go to the kernel and each costs a
#            getrusage() sample and a share of the flush.
# The counters are switched per session (PGOPTIONS -c cachectl.track_reads),
# so both ways run against one server, one shared memory, one cache.
# Beside the TPS, each run's backends' CPU per transaction (the
# postmaster's reaped children's CPU time over the run): the wall clock of
# this machine drifts ±10 % from run to run, their CPU much less.
# Then both ways at the same time, a session each (CLIENTS/2 clients a
# way), ROUNDS rounds: what one way costs against the other in the very
# same seconds (floor off beside off first).
# Then, with the cluster stopped, the instructions a single-user backend
# spends per pgbench -S statement with the counters off and on (callgrind:
# a count, free of the machine's drift, of user space only).
# Prints the premises, each run's figures, the median ratios and PASS/MISS.
# A benchmark, not a test.
#
# Settings (environment): QUICK=1 (3 rounds of 1 s, scales 10 and 20, 200
# callgrind statements: a check that it all runs, not a figure), ROUNDS
# (default 36), SECONDS_PER_RUN (default 2), CLIENTS (default 2),
# SHARED_SCALE (default 20), OS_SCALE (default 50), INSTRUCTION_LOOKUPS
# (default 2000), WORKING_SETS (default "shared os"; one of them alone takes
# half the time), PG_CONFIG, TMPDIR.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    ROUNDS=${ROUNDS:-3}
    SECONDS_PER_RUN=${SECONDS_PER_RUN:-1}
    SHARED_SCALE=${SHARED_SCALE:-10}
    OS_SCALE=${OS_SCALE:-20}   # 256 MB: still twice shared_buffers
    INSTRUCTION_LOOKUPS=${INSTRUCTION_LOOKUPS:-200}
fi
# many short rounds: this machine's TPS drifts ±10 % from run to run, and
# a median of paired ratios taken seconds apart is what survives the drift;
# 12 rounds of 3 s gave 0.95-0.99 for the same build, 36 of 2 s settled it
ROUNDS=${ROUNDS:-36}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-2}
CLIENTS=${CLIENTS:-2}
SHARED_SCALE=${SHARED_SCALE:-20}
OS_SCALE=${OS_SCALE:-50}
INSTRUCTION_LOOKUPS=${INSTRUCTION_LOOKUPS:-2000}
command -v "$PG_BINDIR/pgbench" >/dev/null || die "no pgbench in $PG_BINDIR"

verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi; }

# children_cpu_ticks — CPU time of the postmaster's children that ended
# (its cutime + cstime): a run's backends exit with their pgbench, so the
# change over a run is their CPU, whatever the client or the host's
# stolen time did to the wall clock
children_cpu_ticks() {
    awk '{ print $16 + $17 }' "/proc/$(head -n1 "$CLUSTER_DIR/data/postmaster.pid")/stat"
}
TICKS_PER_SECOND=$(getconf CLK_TCK)

# run TRACK — one pgbench -S run with the counters TRACK (on/off); prints
# its TPS and its backends' CPU microseconds per transaction
run() {
    local before out transactions
    before=$(children_cpu_ticks)
    out=$(as_postgres env PGOPTIONS="-c cachectl.track_reads=$1" \
        "$PG_BINDIR/pgbench" -n -S -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" \
        -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres 2>&1)
    sleep 0.5   # the backends exit and are reaped
    transactions=$(awk '/actually processed/ { print $NF; exit }' <<<"$out")
    echo "$(awk '/^tps = / { print $3; exit }' <<<"$out") $(calc "($(children_cpu_ticks) - $before) * 1e6 / $TICKS_PER_SECOND / $transactions")"
}

# measure NAME A B SERIES — ROUNDS rounds of A against B, the order
# alternating from round to round (a drift of the machine's speed favours
# neither); prints each round, the medians and the median of B/A, by TPS and
# by the backends' CPU per transaction, and emits each round's two ratios as
# SERIES of the working set; sets RATIO (TPS) and CPU_RATIO
measure() {
    local name=$1 a_way=$2 b_way=$3 series=$4 ratios=() cpu_ratios=() a_cpu_runs=() b_cpu_runs=()
    local a b a_cpu b_cpu
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then
            read -r a a_cpu <<<"$(run "$a_way")"
            read -r b b_cpu <<<"$(run "$b_way")"
        else
            read -r b b_cpu <<<"$(run "$b_way")"
            read -r a a_cpu <<<"$(run "$a_way")"
        fi
        ratios+=("$(calc "$b / $a")") cpu_ratios+=("$(calc "$a_cpu / $b_cpu")")
        a_cpu_runs+=("$a_cpu") b_cpu_runs+=("$b_cpu")
        emit_sample tps_ratio "$series, alternating" "$working_set" "${ratios[-1]}" ×
        emit_sample cpu_ratio "$series" "$working_set" "${cpu_ratios[-1]}" ×
        say "    round $round: $a_way $(fmt "$a" 0) TPS ($(fmt "$a_cpu" 1) µs CPU/tx), $b_way $(fmt "$b" 0) TPS ($(fmt "$b_cpu" 1) µs CPU/tx)"
    done
    RATIO=$(median_of "${ratios[@]}")
    CPU_RATIO=$(median_of "${cpu_ratios[@]}")
    say "  $name: median of the rounds' TPS ratios $(fmt "$RATIO" 3)×; backends' CPU per transaction $(fmt "$(median_of "${a_cpu_runs[@]}")" 1) and $(fmt "$(median_of "${b_cpu_runs[@]}")" 1) µs, median ratio (as throughput) $(fmt "$CPU_RATIO" 3)×"
}

# run_pair A B — two pgbench -S runs at the same time, half the clients
# each, one with the counters A and one with B (both on the same CPUs in
# the same seconds: the machine's drift moves both alike); prints the two
# TPS, A's first
run_pair() {
    local half=$((CLIENTS / 2 > 0 ? CLIENTS / 2 : 1)) way pids=() i
    for way in "$1" "$2"; do
        as_postgres env PGOPTIONS="-c cachectl.track_reads=$way" \
            "$PG_BINDIR/pgbench" -n -S -c "$half" -j "$half" -T "$SECONDS_PER_RUN" \
            -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres >"$WORK/pair.${#pids[@]}" 2>&1 &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || die "pgbench failed: $(cat "$WORK"/pair.*)"; done
    echo "$(awk '/^tps = / { print $3; exit }' "$WORK/pair.0") $(awk '/^tps = / { print $3; exit }' "$WORK/pair.1")"
}

# measure_pair NAME A B SERIES — ROUNDS rounds of A and B at the same time,
# which one starts first alternating; prints each round and the median of
# the rounds' B/A TPS ratios, and emits each ratio as SERIES of the working
# set; sets RATIO
measure_pair() {
    local name=$1 a_way=$2 b_way=$3 series=$4 ratios=() a b
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then
            read -r a b <<<"$(run_pair "$a_way" "$b_way")"
        else
            read -r b a <<<"$(run_pair "$b_way" "$a_way")"
        fi
        ratios+=("$(calc "$b / $a")")
        emit_sample tps_ratio "$series, at the same time" "$working_set" "${ratios[-1]}" ×
        say "    round $round: $a_way $(fmt "$a" 0) TPS, $b_way $(fmt "$b" 0) TPS at the same time"
    done
    RATIO=$(median_of "${ratios[@]}")
    say "  $name: median of the rounds' TPS ratios $(fmt "$RATIO" 3)×"
}

# lookups_sql FIRST COUNT DISTINCT ROWS — COUNT pgbench -S lookups (the
# statement pgbench -S sends), from lookup FIRST on, over DISTINCT accounts
# spread over ROWS (DISTINCT 0: every lookup a new account)
lookups_sql() {
    awk -v first="$1" -v count="$2" -v distinct="$3" -v rows="$4" 'BEGIN {
        for (i = first; i < first + count; i++) {
            k = distinct > 0 ? i % distinct : i
            printf "SELECT abalance FROM pgbench_accounts WHERE aid = %d;\n", (k * 7919) % rows + 1
        }
    }'
}

# callgrind_instructions TRACK QUERIES — the instructions a single-user
# backend of the stopped cluster executes for the statements in QUERIES
# (valgrind's callgrind: a count, not a time, so the machine's drift is
# not in it), cachectl.track_reads TRACK
callgrind_instructions() {
    local out
    out="$WORK/callgrind/$1.$(basename "$2")"
    as_postgres valgrind --tool=callgrind --callgrind-out-file="$out" "$PG_BINDIR/postgres" --single \
        -D "$CLUSTER_DIR/data" -c "cachectl.track_reads=$1" postgres <"$2" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out"
}

# instructions_per_lookup DISTINCT ROWS — per pgbench -S statement of a
# single-user backend (the simple protocol's parse, plan and execution, as
# pgbench -S's backends do), counters off and on: the instructions of
# WARM_LOOKUPS + INSTRUCTION_LOOKUPS lookups less those of the first
# WARM_LOOKUPS (which warm the caches), over INSTRUCTION_LOOKUPS (2,000
# after 1,000; QUICK: 200 after 100)
WARM_LOOKUPS=$((INSTRUCTION_LOOKUPS / 2))
instructions_per_lookup() {
    lookups_sql 0 "$WARM_LOOKUPS" "$1" "$2" >"$WORK/callgrind/warm.sql"
    lookups_sql 0 $((WARM_LOOKUPS + INSTRUCTION_LOOKUPS)) "$1" "$2" >"$WORK/callgrind/all.sql"
    local track off_per on_per
    for track in off on; do
        local warm all
        warm=$(callgrind_instructions "$track" "$WORK/callgrind/warm.sql")
        all=$(callgrind_instructions "$track" "$WORK/callgrind/all.sql")
        [ -n "$warm" ] && [ -n "$all" ] || die "callgrind gave no count (see $WORK/callgrind)"
        if [ "$track" = off ]; then
            off_per=$(calc "($all - $warm) / $INSTRUCTION_LOOKUPS")
        else
            on_per=$(calc "($all - $warm) / $INSTRUCTION_LOOKUPS")
        fi
    done
    echo "$off_per $on_per"
}

bench_start relation_reads
say "relation_reads: the cost of cachectl.track_reads on pgbench -S (on/off, alternating, one cluster)"
say "  machine: $(machine_summary)"

for working_set in ${WORKING_SETS:-shared os}; do
    if [ "$working_set" = shared ]; then
        pool=1GB scale=$SHARED_SCALE
    else
        pool=128MB scale=$OS_SCALE
    fi
    cluster_start "$WORK/$working_set" "shared_buffers = $pool" "shared_preload_libraries = 'pg_cachectl'" \
        "max_wal_size = 4GB" >/dev/null
    sql -c "CREATE EXTENSION pg_cachectl" >/dev/null
    as_postgres "$PG_BINDIR/pgbench" -i -q -s "$scale" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres \
        >/dev/null 2>&1
    sql -c "CHECKPOINT" -c "SELECT count(*) FROM cachectl.os_prefetch('pgbench_accounts')" \
        -c "SELECT count(*) FROM cachectl.os_prefetch('pgbench_accounts_pkey')" >/dev/null
    [ "$working_set" = shared ] &&
        sql -c "SELECT count(*) FROM cachectl.prewarm('pgbench_accounts', 'shared')" \
            -c "SELECT count(*) FROM cachectl.prewarm('pgbench_accounts_pkey', 'shared')" >/dev/null
    run off >/dev/null   # warms the caches and the connections' paths
    say "  $working_set: PostgreSQL $(sql -c 'SHOW server_version'), shared_buffers $pool, pgbench scale $scale ($(sql -c "SELECT pg_size_pretty(pg_relation_size('pgbench_accounts'))") accounts), $CLIENTS clients, $ROUNDS rounds of ${SECONDS_PER_RUN} s"
    emit_info "premises_$working_set" "shared_buffers=$pool scale=$scale clients=$CLIENTS rounds=$ROUNDS seconds=$SECONDS_PER_RUN"
    # the noise floor first: the same runs both ways, counters off
    measure "$working_set, off against off (noise floor)" off off "off / off (floor)"
    emit_info "noise_floor_$working_set" "tps=$(fmt "$RATIO" 3) cpu=$(fmt "$CPU_RATIO" 3)"
    floor=$RATIO
    measure "$working_set, on against off" off on "on / off"
    say "  $working_set: on/off $(fmt "$RATIO" 3)× by TPS, $(fmt "$CPU_RATIO" 3)× by CPU per transaction (goal ≥ 0.97): $(verdict "$RATIO >= 0.97")"
    emit_goal "pgbench -S, $working_set working set: track_reads on / off >= 0.97 (alternating runs, median of the rounds' TPS ratios)" \
        "on / off $(fmt "$RATIO" 3)" "floor: off / off $(fmt "$floor" 3)" "$(fmt "$RATIO" 3)" "$(verdict "$RATIO >= 0.97")"
    emit_info "cpu_per_tx_ratio_$working_set" "$(fmt "$CPU_RATIO" 3)"
    # the same comparison with both ways running at once (a session each
    # way): no drift between the two, so a smaller noise floor
    measure_pair "$working_set, off beside off, at the same time (noise floor)" off off "off / off (floor)"
    emit_info "pair_noise_floor_$working_set" "tps=$(fmt "$RATIO" 3)"
    floor=$RATIO
    measure_pair "$working_set, on beside off, at the same time" off on "on / off"
    say "  $working_set: on/off at the same time $(fmt "$RATIO" 3)× by TPS (goal ≥ 0.97): $(verdict "$RATIO >= 0.97")"
    emit_goal "pgbench -S, $working_set working set: track_reads on / off >= 0.97 (both at the same time, median of the rounds' TPS ratios)" \
        "on / off $(fmt "$RATIO" 3)" "floor: off / off $(fmt "$floor" 3)" "$(fmt "$RATIO" 3)" "$(verdict "$RATIO >= 0.97")"
    say "    counted with it on: $(sql -c "SELECT 'pgbench_accounts shared hits ' || shared_hit_blocks || ', reads ' || read_blocks || ' (page cache ' || os_hit_blocks || ', device ' || device_read_blocks || ', unsplit ' || unsplit_read_blocks || ')' FROM cachectl.relation_reads WHERE relation = 'pgbench_accounts'")"
    cluster_stop
    if command -v valgrind >/dev/null; then
        # shared: 500 accounts again and again (every lookup a shared hit once
        # warm); os: every lookup a new account (read from the page cache)
        distinct=500
        [ "$working_set" = os ] && distinct=0
        mkdir -p "$WORK/callgrind" && chown postgres: "$WORK/callgrind"
        read -r off_per on_per <<<"$(instructions_per_lookup "$distinct" $((scale * 100000)))"
        say "  $working_set: user-space instructions per pgbench -S statement (callgrind, a single-user backend, $INSTRUCTION_LOOKUPS statements after $WARM_LOOKUPS that warm): off $(fmt "$off_per" 0), on $(fmt "$on_per" 0): the counters add $(fmt "$on_per - $off_per" 0) ($(fmt "($on_per - $off_per) * 100 / $off_per" 1) %; the kernel's part — the socket, getrusage — is not in these counts)"
        emit_sample instructions_per_statement "counters off" "$working_set" "$off_per" instructions
        emit_sample instructions_per_statement "counters on" "$working_set" "$on_per" instructions
    else
        say "  $working_set: no valgrind: the instruction counts are left out (scripts/install_deps.sh bench installs it)"
    fi
done
