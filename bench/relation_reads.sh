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
# Prints the premises, the TPS of each run, the median ratio and PASS/MISS.
# A benchmark, not a test.
#
# Settings (environment): QUICK=1 (7 rounds of 3 s), ROUNDS (default 12),
# SECONDS_PER_RUN (default 3), CLIENTS (default 2), PG_CONFIG, TMPDIR.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    ROUNDS=${ROUNDS:-7}
    SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
fi
# many short rounds: this machine's TPS drifts ±10 % from run to run, and
# a median of paired ratios taken seconds apart is what survives the drift
ROUNDS=${ROUNDS:-12}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
CLIENTS=${CLIENTS:-2}
command -v "$PG_BINDIR/pgbench" >/dev/null || die "no pgbench in $PG_BINDIR"

verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi; }

# tps TRACK — one pgbench -S run with the counters TRACK (on/off); prints its TPS
tps() {
    as_postgres env PGOPTIONS="-c cachectl.track_reads=$1" \
        "$PG_BINDIR/pgbench" -n -S -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" \
        -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres postgres 2>&1 |
        awk '/^tps = / { print $3; exit }'
}

# pair FIRST SECOND — one round: a run each way, in the order given (the
# order alternates from round to round, so a drift of the machine's speed
# favours neither); prints "TPS_FIRST TPS_SECOND"
pair() { echo "$(tps "$1") $(tps "$2")"; }

# measure NAME A B — ROUNDS rounds of A against B, the order alternating;
# prints each round and the median of B/A; sets RATIO
measure() {
    local name=$1 a_way=$2 b_way=$3 a_runs=() b_runs=() ratios=() a b
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then read -r a b <<<"$(pair "$a_way" "$b_way")"
        else read -r b a <<<"$(pair "$b_way" "$a_way")"; fi
        a_runs+=("$a") b_runs+=("$b") ratios+=("$(calc "$b / $a")")
        say "    round $round: $a_way $(fmt "$a" 0) TPS, $b_way $(fmt "$b" 0) TPS ($(fmt "$b / $a" 3)×)"
    done
    RATIO=$(median_of "${ratios[@]}")
    local a_median b_median
    a_median=$(median_of "${a_runs[@]}") b_median=$(median_of "${b_runs[@]}")
    say "  $name: median TPS $(fmt "$a_median" 0) and $(fmt "$b_median" 0) ($(fmt "$b_median / $a_median" 3)×); median of the rounds' ratios $(fmt "$RATIO" 3)×"
}

bench_start relation_reads
say "relation_reads: the cost of cachectl.track_reads on pgbench -S (on/off, alternating, one cluster)"
say "  machine: $(machine_summary)"

for working_set in shared os; do
    if [ "$working_set" = shared ]; then
        pool=1GB scale=20
    else
        pool=128MB scale=50
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
    tps off >/dev/null   # warms the caches and the connections' paths
    say "  $working_set: PostgreSQL $(sql -c 'SHOW server_version'), shared_buffers $pool, pgbench scale $scale ($(sql -c "SELECT pg_size_pretty(pg_relation_size('pgbench_accounts'))") accounts), $CLIENTS clients, $ROUNDS rounds of ${SECONDS_PER_RUN} s"
    emit_info "premises_$working_set" "shared_buffers=$pool scale=$scale clients=$CLIENTS rounds=$ROUNDS seconds=$SECONDS_PER_RUN"
    # the noise floor first: the same runs both ways, counters off
    measure "$working_set, off against off (noise floor)" off off
    emit_info "noise_floor_$working_set" "$(fmt "$RATIO" 3)"
    measure "$working_set, on against off" off on
    say "  $working_set: on/off $(fmt "$RATIO" 3)× (goal ≥ 0.97): $(verdict "$RATIO >= 0.97")"
    emit_goal "pgbench_S_$working_set" "$(fmt "$RATIO" 3)"
    say "    counted with it on: $(sql -c "SELECT 'pgbench_accounts shared hits ' || shared_hit_blocks || ', reads ' || read_blocks || ' (page cache ' || os_hit_blocks || ', device ' || device_read_blocks || ', unsplit ' || unsplit_read_blocks || ')' FROM cachectl.relation_reads WHERE relation = 'pgbench_accounts'")"
    cluster_stop
done
