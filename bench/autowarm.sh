#!/usr/bin/env bash
# bench/autowarm.sh — the autowarm worker of issue 17 against pg_prewarm's
# autoprewarm and against nothing, on throwaway clusters of its own:
#
#   failover  a primary and a streaming standby on this machine, pgbench
#             data of at least 3x shared_buffers; pgbench -S steady state on
#             the primary; then for each variant (a) plain standby, (b)
#             standby with autoprewarm, (c) standby with autowarm following,
#             a standby made from a fresh base backup, run once, stopped, its
#             relation files dropped from the OS page cache, started, given
#             the time its mechanism needs to load, the primary's steady
#             state measured again (REF_S), promoted, and pgbench -S -P 1 on
#             the new primary; (d) a standby warmed by one CALL
#             cachectl.restore('autowarm') (each chunk its own call, capped
#             by cachectl.prewarm_max_share: all that fits in the pool is
#             loaded, a fully warm control for (c)); before each promotion,
#             the share of each large relation's recorded hot buffers the
#             standby holds;
#   reboot    the primary itself, for each variant: restarted with the
#             variant's libraries, warmed by pgbench -S (its steady state),
#             stopped cleanly (autoprewarm dumps, autowarm records), its
#             files dropped from the OS cache, started, and pgbench -S -P 1
#             at once;
#   snapshot  the cost of one cachectl.snapshot() of a database with 1 and
#             4 GiB cached (QUICK: 0.25 and 1): the backend's CPU time
#             (/proc/self/schedstat), WAL bytes (pg_current_wal_lsn before
#             and after) and wall time, changed cache (the first snapshot of
#             a label: every row written) and unchanged (the second), and
#             the extrapolation to 64 GiB at the default interval (300 s);
#   patroni   a Patroni switchover and a failover (kill -9 of the leader's
#             postmaster), each with autowarm off and on, side by side:
#             bench/patroni_failover.pl (its header says how) on two
#             Patroni nodes and one etcd per variant; per-second TPS of the
#             promoted node from the moment it accepts writes, against the
#             leader's steady state just before.
#
# Goals (issue 17, "Performance"): failover (c) first 10 s >= 80 % of the
# primary's steady state, >= 3x (a), 90 % of steady state within 5 s;
# (issue 26, finding 15) (c) holds >= 80 % of the primary's hot buffers of
# each relation, and its first 5 s are >= 80 % of the steady state;
# reboot (c) reaches 90 % in at most a third of (b)'s time; a snapshot of
# 64 GiB cached every 300 s costs <= 1 % of one core; (issue 30) with
# autowarm, a Patroni switchover and failover reach 90 % within 5 s of the
# promotion.
#
# It prints the premises (machine, device, PostgreSQL version, pool and data
# size, the cache state before each measurement, the load average), the
# per-second TPS (machine-readable samples for bench/plots/autowarm.gp) and
# PASS/MISS.  A benchmark, not a test: it exits 0 unless something broke.
#
# Settings (environment): QUICK=1 (shared_buffers 128MB, scale 30, 15 s
# steady state, 20 s after promotion or start, 0.25 and 1 GiB snapshots),
# PARTS (default "failover reboot snapshot patroni"), PATRONI_VARIANTS
# (default "off on"), FAILOVER_VARIANTS (default
# "a b c d"), SHARED_BUFFERS (512MB), SCALE
# (150), CLIENTS (4), THREADS (2), STEADY_S (60), MEASURE_S (60), WARM_S
# (reboot's warm run before each restart, 30), SKIP_S (seconds left out of
# a steady-state mean, 5), REF_S (the primary's pgbench -S run just before
# each promotion, its steady state for that variant, 20), AUTOWARM_INTERVAL (the primary's recording
# interval in seconds during the failover part, 10: the default 5 min would
# make the benchmark wait), LOAD_WAIT_S (bound on the wait for a
# mechanism's load, 180), SNAP_GB ("1 4"), SNAP_REPS (7), PREWARM_MAX_SHARE
# (cachectl.prewarm_max_share on every node; unset: its default, 0.5),
# PG_CONFIG, TMPDIR.
# Run as root: the clusters run as postgres, and the files are dropped from
# the OS cache with dd iflag=nocache while a server is stopped.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    SHARED_BUFFERS=${SHARED_BUFFERS:-128MB}
    SCALE=${SCALE:-30}
    STEADY_S=${STEADY_S:-15}
    MEASURE_S=${MEASURE_S:-20}
    WARM_S=${WARM_S:-10}
    SKIP_S=${SKIP_S:-3}
    REF_S=${REF_S:-10}
    SNAP_GB=${SNAP_GB:-"0.25 1"}
    SNAP_REPS=${SNAP_REPS:-2}
fi
SHARED_BUFFERS=${SHARED_BUFFERS:-512MB}
SCALE=${SCALE:-150}
CLIENTS=${CLIENTS:-4}
THREADS=${THREADS:-2}
STEADY_S=${STEADY_S:-60}
MEASURE_S=${MEASURE_S:-60}
WARM_S=${WARM_S:-30}
SKIP_S=${SKIP_S:-5}
REF_S=${REF_S:-20}
AUTOWARM_INTERVAL=${AUTOWARM_INTERVAL:-10}
LOAD_WAIT_S=${LOAD_WAIT_S:-180}
SNAP_GB=${SNAP_GB:-"1 4"}
SNAP_REPS=${SNAP_REPS:-7}
PARTS=${PARTS:-"failover reboot snapshot patroni"}
part() { [[ " $PARTS " == *" $1 "* ]]; }

GOAL_FIRST10_SHARE=80    # failover (c): first 10 s at >= this % of steady state
GOAL_FIRST10_VS_A=3      # ... and >= this many times (a)'s
GOAL_T90_S=5             # ... and 90 % of steady state within this many seconds
GOAL_FIRST5_SHARE=80     # ... and its first 5 s at >= this % (issue 26)
GOAL_HOT_SHARE=80        # ... holding >= this % of each relation's hot buffers (issue 26)
HOT_MIN_BLOCKS=1000      # the relations whose hot share is shown: this many recorded buffers
GOAL_REBOOT_FRACTION=3   # reboot (c): time to 90 % <= (b)'s / this
GOAL_CORE_PCT=1          # snapshot of 64 GiB every 300 s: <= this % of one core
EXTRAPOLATE_GIB=64
DEFAULT_INTERVAL_S=300
GOAL_SNAPSHOT_CPU_RATIO=3   # snapshot(): >= this many times less CPU than 1.0's (issue 28)
GOAL_UNCHANGED_WAL_KB=64    # ... and an unchanged cache writes < this much WAL

[ "$(id -u)" = 0 ] || { echo "autowarm.sh: run as root (the clusters run as postgres; the OS cache is dropped with dd)" >&2; exit 1; }
command -v "$PG_BINDIR/pgbench" >/dev/null || { echo "autowarm.sh: no pgbench in $PG_BINDIR" >&2; exit 1; }

bench_start autowarm

# The standby: a second cluster of its own, stopped on exit with the primary.
SB_DIR=$WORK/standby
SB_PORT=
PGBENCH_PID=
autowarm_cleanup() {
    local rc=$?
    # errexit off: a failed step here must not skip the rest, and the
    # subshell below only hands the exit status on to bench_cleanup
    set +e
    [ -n "$PGBENCH_PID" ] && kill "$PGBENCH_PID" 2>/dev/null
    if [ -d "$SB_DIR/data" ]; then
        as_postgres "$PG_BINDIR/pg_ctl" -D "$SB_DIR/data" -m fast -w stop >/dev/null 2>&1
    fi
    (exit "$rc")
    bench_cleanup
}
trap autowarm_cleanup EXIT

verdict() { if [ "$(calc "($1) ? 1 : 0")" = 1 ]; then echo PASS; else echo MISS; fi; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }


# psql against the standby
sbsql() {
    as_postgres "$PG_BINDIR/psql" -h "$SB_DIR/socket" -p "$SB_PORT" -U postgres -X -v ON_ERROR_STOP=1 -d postgres -At -q "$@"
}

# drop_os_cache DATA — every relation file under DATA/base out of the OS
# page cache (the server is stopped: sync, then POSIX_FADV_DONTNEED through
# dd, as test/perl/AutowarmTest.pm does); prints the MiB still cached after.
drop_os_cache() {
    local data=$1 files
    sync
    mapfile -t files < <(find "$data/base" -type f -regextype posix-extended -regex '.*/[0-9]+(_[a-z]+)?(\.[0-9]+)?$')
    for f in "${files[@]}"; do
        dd if="$f" iflag=nocache count=0 status=none
    done
    fincore -b -n -o RES "${files[@]}" 2>/dev/null | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }'
}

# run_pgbench SOCKET PORT SECONDS NAME — pgbench -S -P 1; writes
# $WORK/NAME.tps ("second tps" per line) and keeps pgbench's output in
# $WORK/NAME.log.
run_pgbench() {
    as_postgres "$PG_BINDIR/pgbench" -h "$1" -p "$2" -U postgres -n -S -c "$CLIENTS" -j "$THREADS" \
        -T "$3" -P 1 postgres >"$WORK/$4.log" 2>&1 &
    PGBENCH_PID=$!
    wait "$PGBENCH_PID" || { cat "$WORK/$4.log" >&2; die "pgbench ($4) failed"; }
    PGBENCH_PID=
    awk '/^progress:/ { gsub(",", ""); printf "%d %s\n", $2 + 0.5, $4 }' "$WORK/$4.log" >"$WORK/$4.tps"
    [ -s "$WORK/$4.tps" ] || die "pgbench ($4) printed no progress"
}
# mean_tps NAME FROM TO — mean of the per-second TPS of seconds FROM..TO
mean_tps() { awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b { s += $2; n++ } END { printf "%.1f", n ? s / n : 0 }' "$WORK/$1.tps"; }
# seconds_to NAME TPS — the first second t whose mean TPS over seconds t,
# t+1 and t+2 (fewer at the end) reached TPS; -1 if none.  Three seconds, so
# that one second's swing on this shared machine neither makes a cold start
# look warm nor a warm one cold.
seconds_to() {
    awk -v t="$2" '{ s[NR] = $1; v[NR] = $2 }
        END { for (i = 1; i <= NR; i++) { n = 0; m = 0
                  for (j = i; j <= i + 2 && j <= NR; j++) { m += v[j]; n++ }
                  if (m / n >= t) { print s[i]; exit } }
              print -1 }' "$WORK/$1.tps"
}
# emit_series NAME FIGURE SERIES — every second as a sample
emit_series() {
    local s v
    while read -r s v; do emit_sample "$2" "$3" "$s" "$v" tps; done <"$WORK/$1.tps"
}
t90_text() { if [ "$1" = -1 ]; then echo "never (in $MEASURE_S s)"; else echo "$1 s"; fi; }

# The autowarm status row of the database on a node (psql function given):
# the start load's figures ("last load" in the lines below).
aw_status() {
    "$1" -c "SELECT role, state, loads_done, snapshots_taken, coalesce(round(start_load_seconds::numeric, 3), 0),
                    coalesce(start_load_shared_blocks, 0), coalesce(start_load_os_blocks, 0), coalesce(failures, 0)
               FROM cachectl.autowarm_status WHERE database = current_database()"
}
# The cache state of the database on a node: MiB in shared buffers, in the OS cache.
cache_state() {
    "$1" -c "SELECT round(sum(shared_bytes) / 1048576.0), round(sum(os_bytes) / 1048576.0)
               FROM cachectl.database_status"
}

VARIANTS=(a b c)
read -r -a FAILOVER_VARIANTS <<<"${FAILOVER_VARIANTS:-a b c d}"
declare -A SERIES=([a]="a) nothing" [b]="b) pg_prewarm autoprewarm" [c]="c) pg_cachectl autowarm"
                   [d]="d) CALL restore()")
declare -A FAILOVER_NAME=([a]="plain standby" [b]="standby with autoprewarm" [c]="standby with autowarm following"
                          [d]="standby warmed by CALL cachectl.restore('autowarm'): all that fits, a warm control")

# hot_shares PSQLFN — for each relation with at least HOT_MIN_BLOCKS buffers
# recorded in label autowarm's shared layer (the primary's hot set, as its
# worker last recorded it), the share of them this node holds in shared
# buffers now: "name share of recorded" by size, and last the smallest share.
hot_shares() {
    "$1" -c "WITH recorded AS (
                 SELECT s.relation, s.relation_name, s.fork, s.blocks, s.block_count
                   FROM cachectl.snapshot AS s
                  WHERE s.label = 'autowarm' AND s.layer = 'shared'),
             resident AS (
                 SELECT r.relation::oid AS relation, r.fork,
                        range_agg(int8range(r.first_block, r.first_block + r.block_count)) AS runs
                   FROM cachectl_internal.shared_block_runs(NULL) AS r GROUP BY 1, 2),
             per_relation AS (
                 SELECT c.relation_name, sum(c.block_count) AS hot,
                        sum(COALESCE((SELECT sum(upper(x) - lower(x))
                                        FROM unnest(c.blocks * n.runs) AS x), 0)) AS held
                   FROM recorded AS c
                   LEFT JOIN resident AS n ON n.relation = c.relation AND n.fork = c.fork
                  GROUP BY 1 HAVING sum(c.block_count) >= $HOT_MIN_BLOCKS)
             SELECT string_agg(format('%s %s of %s', relation_name, round(held / hot, 2), hot), ', '
                               ORDER BY hot DESC),
                    round(100 * min(held / hot), 1)
               FROM per_relation"
}

# ---------------------------------------------------------------------------
# The primary: pg_cachectl preloaded, autowarm recording every
# AUTOWARM_INTERVAL seconds; variant.conf (included last) is what the
# reboot part changes.
cluster_start "$WORK/primary" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'pg_cachectl'" "cachectl.autowarm = on" \
    "cachectl.autowarm_interval = '${AUTOWARM_INTERVAL}s'" "max_worker_processes = 16" \
    "log_line_prefix = '%m [%p] '" ${PREWARM_MAX_SHARE:+"cachectl.prewarm_max_share = $PREWARM_MAX_SHARE"} \
    "include_if_exists = 'variant.conf'" >/dev/null
DATA=$CLUSTER_DIR/data
PG_VERSION=$(sql -c "SHOW server_version")
read -r DEV_SOURCE DEV_NAME <<<"$(device_of "$DATA")"
READ_AHEAD_KB=$(cat "/sys/class/block/$DEV_NAME/queue/read_ahead_kb" 2>/dev/null || echo '?')
MEM_KB=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)
NBUFFERS=$(sql -c "SELECT setting FROM pg_settings WHERE name = 'shared_buffers'")
SB_BYTES=$((NBUFFERS * 8192))

say "pg_cachectl autowarm benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
say "  machine        : Linux $(machine_summary), OS page $(getconf PAGESIZE) bytes"
say "  data directory : $(filesystem_of "$DATA") on $DEV_SOURCE (device $DEV_NAME: read_ahead_kb=$READ_AHEAD_KB)"
say "  PostgreSQL     : $(sql -c "SELECT version()" | cut -d, -f1)"
say "  shared buffers : $SHARED_BUFFERS on every node; cachectl.prewarm_max_share ${PREWARM_MAX_SHARE:+(PREWARM_MAX_SHARE) }$(sql -c "SHOW cachectl.prewarm_max_share")${PREWARM_MAX_SHARE:- (the default)}"
say "  pgbench        : -S (read-only, uniform keys), $CLIENTS clients, $THREADS threads, -P 1, on the same 2-CPU machine as the servers"
say "  load average   : $(loadavg) at the start (the machine is shared with other work: the TPS move with it)"
emit_info postgresql "$PG_VERSION"
emit_info shared_buffers "$SHARED_BUFFERS"

if part failover || part reboot; then
    say ""
    say "pgbench -i -s $SCALE on the primary"
    t0=$(now_us)
    (as_postgres "$PG_BINDIR/pgbench" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres -i -q -s "$SCALE" postgres \
        >"$WORK/init.log" 2>&1) &
    wait $! || { cat "$WORK/init.log" >&2; die "pgbench -i failed"; }
    sql -c "CREATE EXTENSION pg_cachectl" -c "CHECKPOINT"
    DB_BYTES=$(sql -c "SELECT pg_database_size('postgres')")
    DB_MIB=$(fmt "$DB_BYTES / 1048576" 0)
    say "  data: $DB_MIB MiB (pg_database_size), $(fmt "$DB_BYTES / $SB_BYTES") x shared_buffers, built in $(fmt "($(now_us) - $t0) / 1e6") s"
    [ "$(calc "$DB_BYTES >= 3 * $SB_BYTES")" = 1 ] || say "  NOTE: the data is less than 3x shared_buffers"
    [ "$(calc "$DB_BYTES <= $MEM_KB * 1024 / 3")" = 1 ] || say "  NOTE: the data is more than a third of memory"
    emit_info data_size "$DB_MIB MiB (pgbench scale $SCALE)"
fi

# ---------------------------------------------------------------------------
# failover
# standby_create VARIANT — a standby from a fresh base backup, configured
# for the variant, started, caught up.
standby_create() {
    local v=$1 lsn
    rm -rf "$SB_DIR"
    mkdir -p "$SB_DIR/socket"
    chown -R postgres: "$SB_DIR"
    as_postgres "$PG_BINDIR/pg_basebackup" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres \
        -D "$SB_DIR/data" -R -X stream -c fast >"$SB_DIR/basebackup.log" 2>&1 ||
        { cat "$SB_DIR/basebackup.log" >&2; die "pg_basebackup failed"; }
    rm -f "$SB_DIR/data/autoprewarm.blocks" "$SB_DIR/data/variant.conf"
    SB_PORT=$(free_port)
    {
        echo "port = $SB_PORT"
        echo "unix_socket_directories = '$SB_DIR/socket'"
        echo "hot_standby = on"
        # what a standby made for this variant runs; the primary's recording
        # interval of this benchmark is not the standby's
        echo "cachectl.autowarm_interval = '5min'"
        case $v in
            a) echo "shared_preload_libraries = ''"; echo "cachectl.autowarm = off" ;;
            b) echo "shared_preload_libraries = 'pg_prewarm'"; echo "cachectl.autowarm = off"
               echo "pg_prewarm.autoprewarm = on"; echo "pg_prewarm.autoprewarm_interval = '${AUTOWARM_INTERVAL}s'" ;;
            c) echo "shared_preload_libraries = 'pg_cachectl'"; echo "cachectl.autowarm = on"
               echo "cachectl.autowarm_follow = on" ;;
            d) echo "shared_preload_libraries = ''"; echo "cachectl.autowarm = off" ;;
        esac
    } | as_postgres tee -a "$SB_DIR/data/postgresql.conf" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$SB_DIR/data" -l "$SB_DIR/server.log" -w start >/dev/null ||
        { cat "$SB_DIR/server.log" >&2; die "the standby did not start"; }
    lsn=$(sql -c "SELECT pg_current_wal_lsn()")
    for _ in $(seq 1 600); do
        [ "$(sbsql -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")" = t ] && return 0
        sleep 0.1
    done
    die "the standby did not catch up with $lsn"
}
standby_stop() { as_postgres "$PG_BINDIR/pg_ctl" -D "$SB_DIR/data" -m fast -w stop >/dev/null; }
standby_start() {
    as_postgres "$PG_BINDIR/pg_ctl" -D "$SB_DIR/data" -l "$SB_DIR/server.log" -w start >/dev/null ||
        { cat "$SB_DIR/server.log" >&2; die "the standby did not start"; }
}

# wait_autowarm PSQLFN — until the status shows loads_done >= 1 and state
# STATE (following on a standby, idle on a primary); the seconds waited, or
# -1 past LOAD_WAIT_S.
wait_autowarm() {
    local t0 row
    t0=$(now_us)
    while [ "$(calc "($(now_us) - $t0) / 1e6 < $LOAD_WAIT_S")" = 1 ]; do
        row=$("$1" -c "SELECT count(*) FROM cachectl.autowarm_status
                        WHERE database = current_database() AND loads_done >= 1 AND state = '$2'" 2>/dev/null || echo 0)
        if [ "$row" = 1 ]; then fmt "($(now_us) - $t0) / 1e6" 2; return 0; fi
        sleep 0.1
    done
    echo -1
}
# wait_autoprewarm LOG — until autoprewarm logged the end of its load and no
# autoprewarm worker is left (bounded); the seconds waited, or -1.
wait_autoprewarm() {
    local log=$1 psqlfn=$2 t0
    t0=$(now_us)
    while [ "$(calc "($(now_us) - $t0) / 1e6 < $LOAD_WAIT_S")" = 1 ]; do
        if grep -q 'autoprewarm successfully prewarmed' "$log" &&
            [ "$("$psqlfn" -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autoprewarm worker'")" = 0 ]; then
            fmt "($(now_us) - $t0) / 1e6" 2
            return 0
        fi
        sleep 0.1
    done
    echo -1
}

declare -A F_FIRST10=() F_SHARE=() F_SHARE_MIN=() F_REF=() F_REF5=() F_T90=() F_FIRST5=() F_SHARE5=() F_HOT=() F_HOT_MIN=()
declare -A R_FIRST10=() R_SHARE=() R_T90=() R_STEADY=()
if part failover; then
    say ""
    say "failover: pgbench -S steady state on the primary, $STEADY_S s (a standby streaming, idle)"
    standby_create a
    run_pgbench "$CLUSTER_SOCKET" "$CLUSTER_PORT" "$STEADY_S" steady
    STEADY=$(mean_tps steady "$((SKIP_S + 1))" "$STEADY_S")
    STEADY_END=$(sql -c "SELECT now()")
    read -r P_SHARED P_OS <<<"$(cache_state sql | tr '|' ' ')"
    say "  steady state: $(fmt "$STEADY" 0) tps (mean of seconds $((SKIP_S + 1))-$STEADY_S); primary's cache: $P_SHARED MiB in shared buffers, $P_OS MiB in the OS cache"
    emit_info failover_steady_tps "$(fmt "$STEADY" 0)"
    # the primary's worker records on its timer: one snapshot after the workload
    for _ in $(seq 1 $((AUTOWARM_INTERVAL * 30))); do
        [ "$(sql -c "SELECT count(*) FROM cachectl.autowarm_status
                      WHERE database = current_database() AND last_snapshot_at > '$STEADY_END'")" = 1 ] && break
        sleep 0.1
    done
    IFS='|' read -r _ _ _ SNAPS _ <<<"$(aw_status sql)"
    say "  primary's autowarm: $SNAPS snapshots taken, the last at $(sql -c "SELECT last_snapshot_at::time(0) FROM cachectl.autowarm_status WHERE database = current_database()") (after the workload ended at ${STEADY_END:11:8})"
    say "  $(sql -c "SELECT format('snapshot rows of label autowarm: %s shared blocks, %s OS blocks', sum(block_count) FILTER (WHERE layer = 'shared'), sum(block_count) FILTER (WHERE layer = 'os')) FROM cachectl.snapshot WHERE label = 'autowarm'")"
    standby_stop

    for v in "${FAILOVER_VARIANTS[@]}"; do
        say ""
        say "failover ${SERIES[$v]%%)*}) ${FAILOVER_NAME[$v]} (load average $(loadavg))"
        # (a) is the standby of the steady state, stopped; (b) and (c) run
        # once with their mechanism before they are made cold (autoprewarm
        # dumps its file at a clean shutdown)
        if [ "$v" != a ]; then
            standby_create "$v"
            standby_stop
        fi
        if [ "$v" = b ]; then
            say "  the standby's autoprewarm.blocks (dumped at its clean shutdown): $(head -n1 "$SB_DIR/data/autoprewarm.blocks" 2>/dev/null | tr -d '<>' || echo 'no file,') blocks"
        fi
        left=$(drop_os_cache "$SB_DIR/data")
        say "  made cold: stopped, sync, its files under base/ dropped from the OS cache ($left MiB left cached), started"
        t0=$(now_us)
        standby_start
        say "  started in $(fmt "($(now_us) - $t0) / 1e6" 2) s (pg_ctl -w: accepting read-only connections)"
        case $v in
            b)
                if [ -s "$SB_DIR/data/autoprewarm.blocks" ]; then
                    waited=$(wait_autoprewarm "$SB_DIR/server.log" sbsql)
                    say "  autoprewarm: $(grep -o 'autoprewarm successfully prewarmed.*' "$SB_DIR/server.log" | tail -n1 || echo 'no end logged') (waited $waited s)"
                fi
                ;;
            c)
                waited=$(wait_autowarm sbsql following)
                IFS='|' read -r role state loads _ lsec lshared los fails <<<"$(aw_status sbsql)"
                say "  autowarm: role $role, state $state, loads_done $loads, last load $lshared shared + $los OS blocks in $lsec s, failures $fails (waited $waited s)"
                [ "$waited" = -1 ] && say "  NOTE: the load did not end within $LOAD_WAIT_S s"
                ;;
            d)
                t0=$(now_us)
                restored=$(sbsql -c "CALL cachectl.restore('autowarm')" | tr '\n' ' ')
                say "  CALL cachectl.restore('autowarm') in $(fmt "($(now_us) - $t0) / 1e6" 2) s: $restored"
                ;;
        esac
        IFS='|' read -r hot_text hot_min <<<"$(hot_shares sbsql)"
        F_HOT[$v]=$hot_text F_HOT_MIN[$v]=${hot_min:-0}
        say "  held of the primary's recorded hot buffers (relations of >= $HOT_MIN_BLOCKS): ${F_HOT[$v]}; the smallest share ${F_HOT_MIN[$v]}%"
        # the primary's steady state again, just before this promotion: the
        # machine's load drifts over minutes, and the shares are judged on it
        run_pgbench "$CLUSTER_SOCKET" "$CLUSTER_PORT" "$REF_S" "ref_$v"
        F_REF[$v]=$(mean_tps "ref_$v" "$((SKIP_S + 1))" "$REF_S")
        # the same run's first 5 s: what a warm server that was never
        # promoted does while pgbench starts — the ceiling of "first 5 s"
        F_REF5[$v]=$(mean_tps "ref_$v" 1 5)
        read -r s_shared s_os <<<"$(cache_state sbsql | tr '|' ' ')"
        say "  primary's steady state just before the promotion: $(fmt "${F_REF[$v]}" 0) tps (pgbench -S $REF_S s, seconds $((SKIP_S + 1))-$REF_S; the first minute's: $(fmt "$STEADY" 0))"
        say "  the primary's own first 5 s of that run: $(fmt "${F_REF5[$v]}" 0) tps = $(fmt "100 * ${F_REF5[$v]} / ${F_REF[$v]}")% of its steady state (a warm server never promoted: the ceiling of the first-5-s measure here)"
        say "  cache before promotion: $s_shared MiB in shared buffers, $s_os MiB in the OS cache (the primary's: $P_SHARED and $P_OS)"
        promote_line=$(wc -l <"$SB_DIR/server.log")
        as_postgres "$PG_BINDIR/pg_ctl" -D "$SB_DIR/data" -w promote >/dev/null
        run_pgbench "$SB_DIR/socket" "$SB_PORT" "$MEASURE_S" "failover_$v"
        F_FIRST10[$v]=$(mean_tps "failover_$v" 1 10)
        F_FIRST5[$v]=$(mean_tps "failover_$v" 1 5)
        F_SHARE5[$v]=$(calc "100 * ${F_FIRST5[$v]} / ${F_REF[$v]}")
        F_SHARE[$v]=$(calc "100 * ${F_FIRST10[$v]} / ${F_REF[$v]}")
        F_SHARE_MIN[$v]=$(calc "100 * ${F_FIRST10[$v]} / $STEADY")
        F_T90[$v]=$(seconds_to "failover_$v" "$(calc "0.9 * ${F_REF[$v]}")")
        tail_tps=$(mean_tps "failover_$v" "$((MEASURE_S - 9))" "$MEASURE_S")
        say "  promoted; pgbench -S -P 1 -T $MEASURE_S on it: first 5 s $(fmt "${F_FIRST5[$v]}" 0) tps = $(fmt "${F_SHARE5[$v]}")%, first 10 s $(fmt "${F_FIRST10[$v]}" 0) tps = $(fmt "${F_SHARE[$v]}")% of the steady state just before ($(fmt "${F_SHARE_MIN[$v]}")% of the first minute's); 90% after $(t90_text "${F_T90[$v]}"); last 10 s $(fmt "$tail_tps" 0) tps"
        say "  per second: $(awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $2 }' "$WORK/failover_$v.tps")"
        # what the new primary logged meanwhile: the promotion and its checkpoint
        tail -n +"$((promote_line + 1))" "$SB_DIR/server.log" |
            grep -E 'received promote request|archive recovery complete|database system is ready|checkpoint (starting|complete)' |
            sed 's/^/  new primary: /' | while IFS= read -r line; do say "$line"; done
        if [ "$v" = c ]; then
            IFS='|' read -r role state _ _ _ _ _ _ <<<"$(aw_status sbsql)"
            say "  after promotion the worker is: role $role, state $state"
        fi
        emit_series "failover_$v" failover_tps "${SERIES[$v]}"
        emit_sample first10_share "${SERIES[$v]}" failover "${F_SHARE[$v]}" '%'
        emit_sample seconds_to_90 "${SERIES[$v]}" failover "${F_T90[$v]}" s
        standby_stop
        rm -rf "$SB_DIR"
    done
    for ((s = 1; s <= MEASURE_S; s++)); do emit_sample failover_tps "primary steady state" "$s" "$STEADY" tps; done
fi

# ---------------------------------------------------------------------------
# reboot
# variant_conf VARIANT — the primary's libraries for the variant (restart needed)
variant_conf() {
    case $1 in
        a) printf '%s\n' "shared_preload_libraries = ''" "cachectl.autowarm = off" ;;
        b) printf '%s\n' "shared_preload_libraries = 'pg_prewarm'" "cachectl.autowarm = off" \
               "pg_prewarm.autoprewarm = on" "pg_prewarm.autoprewarm_interval = '5min'" ;;
        c) printf '%s\n' "shared_preload_libraries = 'pg_cachectl'" "cachectl.autowarm = on" \
               "cachectl.autowarm_interval = '5min'" ;;
    esac | as_postgres tee "$DATA/variant.conf" >/dev/null
}
primary_stop() { as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; }
primary_start() {
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -w start >/dev/null ||
        { cat "$CLUSTER_DIR/server.log" >&2; die "the server did not start"; }
}
if part reboot; then
    for v in "${VARIANTS[@]}"; do
        say ""
        say "reboot ${SERIES[$v]} (load average $(loadavg))"
        variant_conf "$v"
        primary_stop
        rm -f "$DATA/autoprewarm.blocks"
        primary_start
        run_pgbench "$CLUSTER_SOCKET" "$CLUSTER_PORT" "$WARM_S" "warm_$v"
        R_STEADY[$v]=$(mean_tps "warm_$v" "$((SKIP_S + 1))" "$WARM_S")
        read -r s_shared s_os <<<"$(cache_state sql | tr '|' ' ')"
        say "  restarted with the variant's libraries, warmed: pgbench -S $WARM_S s, steady state $(fmt "${R_STEADY[$v]}" 0) tps (seconds $((SKIP_S + 1))-$WARM_S); cache $s_shared MiB shared, $s_os MiB OS"
        log_lines=$(wc -l <"$CLUSTER_DIR/server.log")
        primary_stop
        case $v in
            b) say "  clean stop: autoprewarm.blocks holds $(head -n1 "$DATA/autoprewarm.blocks" 2>/dev/null | tr -d '<>' || echo 'no') blocks" ;;
            c) say "  clean stop: $(tail -n +"$((log_lines + 1))" "$CLUSTER_DIR/server.log" | grep -o 'recorded cache snapshot.*' | tail -n1 || echo 'no shutdown snapshot logged')" ;;
        esac
        left=$(drop_os_cache "$DATA")
        say "  made cold: sync, its files under base/ dropped from the OS cache ($left MiB left cached)"
        t0=$(now_us)
        primary_start
        say "  started in $(fmt "($(now_us) - $t0) / 1e6" 2) s; pgbench -S -P 1 -T $MEASURE_S at once"
        run_pgbench "$CLUSTER_SOCKET" "$CLUSTER_PORT" "$MEASURE_S" "reboot_$v"
        R_FIRST10[$v]=$(mean_tps "reboot_$v" 1 10)
        R_SHARE[$v]=$(calc "100 * ${R_FIRST10[$v]} / ${R_STEADY[$v]}")
        R_T90[$v]=$(seconds_to "reboot_$v" "$(calc "0.9 * ${R_STEADY[$v]}")")
        say "  first 10 s $(fmt "${R_FIRST10[$v]}" 0) tps = $(fmt "${R_SHARE[$v]}")% of its steady state; 90% after $(t90_text "${R_T90[$v]}")"
        say "  per second: $(awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $2 }' "$WORK/reboot_$v.tps")"
        case $v in
            b) say "  autoprewarm: $(grep -o 'autoprewarm successfully prewarmed.*' "$CLUSTER_DIR/server.log" | tail -n1 || echo 'no end logged')" ;;
            c) IFS='|' read -r role state loads _ lsec lshared los fails <<<"$(aw_status sql)"
               say "  autowarm: role $role, state $state, loads_done $loads, last load $lshared shared + $los OS blocks in $lsec s, failures $fails" ;;
        esac
        emit_series "reboot_$v" reboot_tps "${SERIES[$v]}"
        emit_sample first10_share "${SERIES[$v]}" reboot "${R_SHARE[$v]}" '%'
        emit_sample seconds_to_90 "${SERIES[$v]}" reboot "${R_T90[$v]}" s
    done
    R_STEADY_MEDIAN=$(median_of "${R_STEADY[@]}")
    for ((s = 1; s <= MEASURE_S; s++)); do emit_sample reboot_tps "steady state (median of the warm runs)" "$s" "$R_STEADY_MEDIAN" tps; done
fi
if part failover || part reboot; then
    cluster_stop
    rm -rf "$CLUSTER_DIR"
fi

# ---------------------------------------------------------------------------
# snapshot cost
declare -A SNAP_CPU_C=() SNAP_CPU_U=() SNAP_WAL_C=() SNAP_WAL_U=() SNAP_MS_C=() SNAP_MS_U=()
declare -A OLD_CPU_C=() OLD_CPU_U=() OLD_WAL_U=() PAIR_RATIO_C=() PAIR_RATIO_U=()
if part snapshot; then
    say ""
    say "snapshot cost: a cluster of its own (shared_buffers = $SHARED_BUFFERS, wal_level = minimal for building t)"
    cluster_start "$WORK/snap" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
        "wal_level = minimal" "max_wal_senders = 0" "cachectl.prewarm_max_share = 1" >/dev/null
    DATA=$CLUSTER_DIR/data
    sql -c "CREATE EXTENSION pg_cachectl"
    # shellcheck disable=SC2016  # SQL, dollar-quoted
    sql -c 'CREATE FUNCTION bench_cpu_ns() RETURNS int8 LANGUAGE sql AS $$
                SELECT split_part(pg_read_file($f$/proc/self/schedstat$f$), $s$ $s$, 1)::int8 $$'
    # 1.0's snapshot() (PL/pgSQL), from its released install script, under
    # another name: the same run measures it against today's (issue 28)
    sql -c "CREATE SCHEMA cachectl_bench"
    sed -n '/^CREATE FUNCTION cachectl.snapshot(/,/^\$snapshot\$;/p' "$ROOT/sql/pg_cachectl--1.0.sql" |
        sed -e 's/^CREATE FUNCTION cachectl.snapshot(/CREATE FUNCTION cachectl_bench.snapshot_1_0(/' \
            -e 's/\bsnapshot\.\(label\|cascade\)\b/snapshot_1_0.\1/g' >"$WORK/snapshot_1_0.sql"
    [ -s "$WORK/snapshot_1_0.sql" ] || die "could not read 1.0's snapshot() from sql/pg_cachectl--1.0.sql"
    sql -f "$WORK/snapshot_1_0.sql" >/dev/null
    SNAP_COMPRESSION=$(sql -c "SELECT CASE a.attcompression WHEN 'l' THEN 'lz4' ELSE 'pglz' END
                                 FROM pg_attribute AS a WHERE a.attrelid = 'cachectl.snapshot'::regclass AND a.attname = 'blocks'")
    say "  the runs compressed with $SNAP_COMPRESSION (1.1's table), pglz for 1.0's function (its table as shipped)"
    for gb in $SNAP_GB; do
        blocks=$(calc "int($gb * 131072)")
        sql -c "DROP TABLE IF EXISTS t" -c "DELETE FROM cachectl.snapshot" -c "CHECKPOINT"
        build_table_t "$blocks"
        # half the pool: single blocks of t at random (a fragmented shared layer)
        sql -c "SELECT setseed(0.17)" -c "SELECT * FROM cachectl_internal.prewarm_runs('t', 'main',
                  (SELECT range_agg(int8range(b, b + 1)) FROM (SELECT DISTINCT (random() * ($T_BLOCKS - 1))::int8 AS b
                     FROM generate_series(1, $((NBUFFERS / 2)))) s), 'shared')" >/dev/null
        read -r c_shared c_os c_size <<<"$(sql -c "SELECT round(sum(shared_bytes) / 1048576.0), round(sum(os_bytes) / 1048576.0),
                                                  round(sum(size_bytes) / 1048576.0) FROM cachectl.database_status" | tr '|' ' ')"
        say "  $gb GiB: t of $T_BLOCKS blocks built in $(fmt "$T_BUILD_S") s; cached: $c_os MiB in the OS cache (of $c_size MiB of relations), $c_shared MiB in shared buffers (random single blocks of t)"
        emit_info "snapshot_state_${gb}GiB" "OS $c_os MiB, shared $c_shared MiB, relations $c_size MiB"
        cpu_c=() cpu_u=() wal_c=() wal_u=() ms_c=() ms_u=()
        old_cpu_c=() old_cpu_u=() old_wal_u=()
        for ((r = 1; r <= SNAP_REPS; r++)); do
          for impl in today 1.0; do
            fn=cachectl.snapshot
            [ "$impl" = 1.0 ] && fn=cachectl_bench.snapshot_1_0
            # each as shipped: 1.0's table compressed the runs with pglz, 1.1's with lz4 where it can
            sql -c "ALTER TABLE cachectl.snapshot ALTER COLUMN blocks SET COMPRESSION $([ "$impl" = 1.0 ] && echo pglz || echo "$SNAP_COMPRESSION"),
                                                  ALTER COLUMN hot_blocks SET COMPRESSION $([ "$impl" = 1.0 ] && echo pglz || echo "$SNAP_COMPRESSION")"
            for kind in changed unchanged; do
                IFS='|' read -r ns wal ms rows written <<<"$(sql -v label="cost_${impl}_${gb}_$r" -v fn="$fn" <<'SQL' | tail -n1
SELECT bench_cpu_ns() AS c0, pg_current_wal_lsn() AS l0, clock_timestamp() AS t0 \gset
BEGIN;
SELECT rows_recorded FROM :fn(:'label') \gset
SELECT pg_stat_get_xact_tuples_inserted(c) + pg_stat_get_xact_tuples_updated(c) + pg_stat_get_xact_tuples_deleted(c) AS written
  FROM (SELECT 'cachectl.snapshot'::regclass::oid) AS x (c) \gset
COMMIT;
SELECT bench_cpu_ns() - :c0, pg_current_wal_lsn() - :'l0'::pg_lsn,
       1000 * extract(epoch FROM clock_timestamp() - :'t0'::timestamptz), :'rows_recorded', :'written';
SQL
)"
                say "    $impl: $kind cache (label cost_${impl}_${gb}_$r, $([ "$kind" = changed ] && echo "first" || echo "second") snapshot): CPU $(fmt "$ns / 1e6") ms, WAL $wal bytes, wall $(fmt "$ms") ms; $rows rows recorded, $written rows written"
                if [ "$impl" = 1.0 ]; then
                    if [ "$kind" = changed ]; then old_cpu_c+=("$ns"); else old_cpu_u+=("$ns") old_wal_u+=("$wal"); fi
                    emit_sample snapshot_cpu_1_0 "$kind cache" "$gb" "$(calc "$ns / 1e6")" "ms CPU"
                    continue
                fi
                if [ "$kind" = changed ]; then cpu_c+=("$ns") wal_c+=("$wal") ms_c+=("$ms"); else cpu_u+=("$ns") wal_u+=("$wal") ms_u+=("$ms"); fi
                emit_sample snapshot_cpu "$kind cache" "$gb" "$(calc "$ns / 1e6")" "ms CPU"
                emit_sample snapshot_wal "$kind cache" "$gb" "$(calc "$wal / 1024")" kB
                emit_sample snapshot_wall "$kind cache" "$gb" "$ms" ms
            done
          done
        done
        # each rep's two functions ran seconds apart: the median of the reps'
        # ratios leaves out a rep the machine slowed for one of them
        pair_c=() pair_u=()
        for ((i = 0; i < SNAP_REPS; i++)); do
            pair_c+=("$(calc "${old_cpu_c[$i]} / ${cpu_c[$i]}")") pair_u+=("$(calc "${old_cpu_u[$i]} / ${cpu_u[$i]}")")
        done
        PAIR_RATIO_C[$gb]=$(median_of "${pair_c[@]}") PAIR_RATIO_U[$gb]=$(median_of "${pair_u[@]}")
        OLD_CPU_C[$gb]=$(median_of "${old_cpu_c[@]}") OLD_CPU_U[$gb]=$(median_of "${old_cpu_u[@]}")
        OLD_WAL_U[$gb]=$(median_of "${old_wal_u[@]}")
        SNAP_CPU_C[$gb]=$(median_of "${cpu_c[@]}") SNAP_CPU_U[$gb]=$(median_of "${cpu_u[@]}")
        SNAP_WAL_C[$gb]=$(median_of "${wal_c[@]}") SNAP_WAL_U[$gb]=$(median_of "${wal_u[@]}")
        SNAP_MS_C[$gb]=$(median_of "${ms_c[@]}") SNAP_MS_U[$gb]=$(median_of "${ms_u[@]}")
        LAST_GB=$gb LAST_OS_MIB=$c_os
    done
fi

# ---------------------------------------------------------------------------
# patroni: a Patroni switchover and failover, autowarm off and on, side by
# side (bench/patroni_failover.pl, on test/perl/PatroniTest.pm)
declare -A P_SHARE5 P_T90 P_WRITABLE
if part patroni; then
    say ""
    say "patroni: a switchover and a failover (kill -9 of the leader's postmaster) under Patroni $(/usr/bin/python3 /usr/bin/patroni --version 2>/dev/null | awk '{ print $2 }'), autowarm ${PATRONI_VARIANTS:-off on}"
    command -v /usr/bin/patroni >/dev/null && command -v /usr/bin/etcd >/dev/null ||
        die "the patroni part needs Patroni and etcd (apt-get install patroni etcd-server python3-etcd)"
    mkdir -p "$WORK/patroni" && chown postgres "$WORK/patroni"
    perl_lib="$HERE/../test/perl:$PG_PGXS_DIR/../../src/test/perl"
    while IFS= read -r line; do
        if [[ $line == EMIT$'\t'* ]]; then
            IFS=$'\t' read -r -a fields <<<"${line#EMIT$'\t'}"
            bench_emit "${fields[0]}" "$BENCH_NAME" "${fields[@]:1}"
            case ${fields[1]} in
                patroni_first5_share) P_SHARE5["${fields[2]}|${fields[3]}"]=${fields[4]} ;;
                patroni_seconds_to_90) P_T90["${fields[2]}|${fields[3]}"]=${fields[4]} ;;
                patroni_writable_after) P_WRITABLE["${fields[2]}|${fields[3]}"]=${fields[4]} ;;
            esac
        else
            say "$line"
        fi
    done < <(as_postgres env PATH="$PG_BINDIR:/usr/bin:/bin" PERL5LIB="$perl_lib" TESTDIR="$WORK/patroni" \
        BENCH_WORK="$WORK/patroni" SHARED_BUFFERS="$SHARED_BUFFERS" SCALE="$SCALE" CLIENTS="$CLIENTS" \
        THREADS="$THREADS" REF_S="$REF_S" MEASURE_S="$MEASURE_S" SKIP_S="$SKIP_S" \
        AUTOWARM_INTERVAL="$AUTOWARM_INTERVAL" LOAD_WAIT_S="$LOAD_WAIT_S" \
        PATRONI_VARIANTS="${PATRONI_VARIANTS:-off on}" perl "$HERE/patroni_failover.pl" 2>&1)
    [ -n "${P_T90[autowarm on|failover]:-}" ] || die "the patroni part ended before its last measure"
fi

# ---------------------------------------------------------------------------
# variants left out (FAILOVER_VARIANTS) read as nothing measured
for v in a b c d; do
    : "${F_SHARE[$v]:=0}" "${F_SHARE5[$v]:=0}" "${F_SHARE_MIN[$v]:=0}" "${F_FIRST10[$v]:=0}" "${F_FIRST5[$v]:=0}"
    : "${F_REF[$v]:=0}" "${F_REF5[$v]:=0}" "${F_T90[$v]:=-1}" "${F_HOT[$v]:=-}" "${F_HOT_MIN[$v]:=0}"
done
say ""
say "summary (one run; PostgreSQL $PG_VERSION, shared_buffers $SHARED_BUFFERS, device $DEV_NAME, load average now $(loadavg))"
if part failover; then
    say "  failover, pgbench scale $SCALE ($DB_MIB MiB), primary's steady state $(fmt "$STEADY" 0) tps in the first minute; each variant against the primary's steady state just before its promotion:"
    for v in "${FAILOVER_VARIANTS[@]}"; do
        say "    $(printf '%-26s' "${SERIES[$v]}") hot buffers held: smallest share $(printf '%5.1f' "${F_HOT_MIN[$v]:-0}")% (${F_HOT[$v]})"
        say "    $(printf '%-26s' '') steady $(printf '%6.0f' "${F_REF[$v]}") tps; first 5 s $(printf '%6.1f' "${F_SHARE5[$v]}")%; first 10 s $(printf '%6.1f' "${F_SHARE[$v]}")% ($(printf '%.1f' "${F_SHARE_MIN[$v]}")% of the first minute's); 90% after $(t90_text "${F_T90[$v]}")"
    done
    # (c) against (a): their shares, each of the steady state just before it
    VS_A=$(calc "${F_SHARE[a]} > 0 ? ${F_SHARE[c]} / ${F_SHARE[a]} : 0")
    emit_goal "failover: autowarm's first 10 s >= ${GOAL_FIRST10_SHARE}% of the primary's steady state (just before)" \
        "$(fmt "${F_SHARE[c]}")% ($(fmt "${F_FIRST10[c]}" 0) tps)" "steady $(fmt "${F_REF[c]}" 0) tps" "$(fmt "${F_SHARE[c]} / 100" 2)" \
        "$(verdict "${F_SHARE[c]} >= $GOAL_FIRST10_SHARE")"
    emit_goal "failover: autowarm's first 10 s >= ${GOAL_FIRST10_VS_A}x a plain standby's (shares of steady state)" \
        "$(fmt "${F_SHARE[c]}")%" "plain $(fmt "${F_SHARE[a]}")%" "$(fmt "$VS_A" 2)" \
        "$(verdict "$VS_A >= $GOAL_FIRST10_VS_A")"
    emit_goal "failover: autowarm at 90% of steady state within ${GOAL_T90_S} s" \
        "$(t90_text "${F_T90[c]}")" "autoprewarm $(t90_text "${F_T90[b]}"), plain $(t90_text "${F_T90[a]}")" '-' \
        "$(verdict "${F_T90[c]} >= 0 && ${F_T90[c]} <= $GOAL_T90_S")"
    emit_goal "failover: autowarm holds >= ${GOAL_HOT_SHARE}% of the primary's hot buffers of each relation" \
        "smallest $(fmt "${F_HOT_MIN[c]:-0}")%" "restore() smallest $(fmt "${F_HOT_MIN[d]:-0}")%" '-' \
        "$(verdict "${F_HOT_MIN[c]:-0} >= $GOAL_HOT_SHARE")"
    emit_goal "failover: autowarm's first 5 s >= ${GOAL_FIRST5_SHARE}% of the primary's steady state (just before)" \
        "$(fmt "${F_SHARE5[c]}")% ($(fmt "${F_FIRST5[c]}" 0) tps)" "restore() $(fmt "${F_SHARE5[d]}")%, plain $(fmt "${F_SHARE5[a]}")%" \
        "$(fmt "${F_SHARE5[c]} / 100" 2)" "$(verdict "${F_SHARE5[c]} >= $GOAL_FIRST5_SHARE")"
    # the limit of that measure: a warm primary's own first 5 s, same run
    CEIL5=$(calc "${F_REF[c]} > 0 ? 100 * ${F_REF5[c]} / ${F_REF[c]} : 0")
    emit_goal "failover: autowarm's first 5 s >= ${GOAL_FIRST5_SHARE}% of the warm primary's own first 5 s (the measure's ceiling)" \
        "$(fmt "${F_FIRST5[c]}" 0) tps" "primary's first 5 s $(fmt "${F_REF5[c]}" 0) tps ($(fmt "$CEIL5")% of its steady state)" \
        "$(fmt "${F_REF5[c]} > 0 ? ${F_FIRST5[c]} / ${F_REF5[c]} : 0" 2)" \
        "$(verdict "${F_REF5[c]} > 0 && 100 * ${F_FIRST5[c]} / ${F_REF5[c]} >= $GOAL_FIRST5_SHARE")"
    say "    goals: (c) holds >= ${GOAL_HOT_SHARE}% of each relation's hot buffers: $(verdict "${F_HOT_MIN[c]:-0} >= $GOAL_HOT_SHARE"); first 5 s >= ${GOAL_FIRST5_SHARE}%: $(verdict "${F_SHARE5[c]} >= $GOAL_FIRST5_SHARE")"
    say "    goals: (c) first 10 s >= ${GOAL_FIRST10_SHARE}%: $(verdict "${F_SHARE[c]} >= $GOAL_FIRST10_SHARE"); >= ${GOAL_FIRST10_VS_A}x (a) ($(fmt "$VS_A" 2)x): $(verdict "$VS_A >= $GOAL_FIRST10_VS_A"); 90% within ${GOAL_T90_S} s: $(verdict "${F_T90[c]} >= 0 && ${F_T90[c]} <= $GOAL_T90_S")"
fi
if part reboot; then
    say "  reboot, the same data, each variant against its own warm steady state:"
    for v in "${VARIANTS[@]}"; do
        say "    $(printf '%-26s' "${SERIES[$v]}") steady $(printf '%6.0f' "${R_STEADY[$v]}") tps; first 10 s $(printf '%6.1f' "${R_SHARE[$v]}")%; 90% after $(t90_text "${R_T90[$v]}")"
    done
    # (b) never reaching 90 % counts as the whole measured window
    b_t90=${R_T90[b]}
    [ "$b_t90" = -1 ] && b_t90=$MEASURE_S
    reboot_ok="${R_T90[c]} >= 0 && ${R_T90[c]} * $GOAL_REBOOT_FRACTION <= $b_t90"
    emit_goal "reboot: autowarm at 90% of steady state in <= 1/${GOAL_REBOOT_FRACTION} of autoprewarm's time" \
        "$(t90_text "${R_T90[c]}")" "autoprewarm $(t90_text "${R_T90[b]}")" \
        "$([ "${R_T90[c]}" -gt 0 ] 2>/dev/null && fmt "$b_t90 / ${R_T90[c]}" 2 || echo '-')" "$(verdict "$reboot_ok")"
    say "    goal: (c) time to 90% <= (b)'s / ${GOAL_REBOOT_FRACTION}$([ "${R_T90[b]}" = -1 ] && echo " ((b) never: counted as $MEASURE_S s)"): $(verdict "$reboot_ok")"
fi
if part snapshot; then
    say "  snapshot cost (medians of $SNAP_REPS; the whole database; t fully in the OS cache, half the pool random single blocks of t):"
    for gb in $SNAP_GB; do
        say "    $gb GiB cached: changed $(fmt "${SNAP_CPU_C[$gb]} / 1e6") ms CPU, $(fmt "${SNAP_WAL_C[$gb]} / 1024") kB WAL, $(fmt "${SNAP_MS_C[$gb]}") ms; unchanged $(fmt "${SNAP_CPU_U[$gb]} / 1e6") ms CPU, $(fmt "${SNAP_WAL_U[$gb]} / 1024") kB WAL, $(fmt "${SNAP_MS_U[$gb]}") ms"
        ratio_c=${PAIR_RATIO_C[$gb]} ratio_u=${PAIR_RATIO_U[$gb]}
        say "      1.0's snapshot(), same run: changed $(fmt "${OLD_CPU_C[$gb]} / 1e6") ms CPU (ratio of the medians $(fmt "${OLD_CPU_C[$gb]} / ${SNAP_CPU_C[$gb]}" 2)x, median of the reps' ratios $(fmt "$ratio_c" 2)x), unchanged $(fmt "${OLD_CPU_U[$gb]} / 1e6") ms CPU ($(fmt "${OLD_CPU_U[$gb]} / ${SNAP_CPU_U[$gb]}" 2)x, $(fmt "$ratio_u" 2)x), unchanged WAL $(fmt "${OLD_WAL_U[$gb]} / 1024") kB"
        emit_goal "snapshot of $gb GiB cached: >= ${GOAL_SNAPSHOT_CPU_RATIO}x less CPU than 1.0's (changed cache)" \
            "$(fmt "${SNAP_CPU_C[$gb]} / 1e6") ms" "1.0 $(fmt "${OLD_CPU_C[$gb]} / 1e6") ms" "$(fmt "$ratio_c" 2)" "$(verdict "$ratio_c >= $GOAL_SNAPSHOT_CPU_RATIO")"
        emit_goal "snapshot of $gb GiB cached: >= ${GOAL_SNAPSHOT_CPU_RATIO}x less CPU than 1.0's (unchanged cache)" \
            "$(fmt "${SNAP_CPU_U[$gb]} / 1e6") ms" "1.0 $(fmt "${OLD_CPU_U[$gb]} / 1e6") ms" "$(fmt "$ratio_u" 2)" "$(verdict "$ratio_u >= $GOAL_SNAPSHOT_CPU_RATIO")"
        emit_goal "snapshot of $gb GiB cached, unchanged: < ${GOAL_UNCHANGED_WAL_KB} kB of WAL" \
            "$(fmt "${SNAP_WAL_U[$gb]} / 1024") kB" "1.0 $(fmt "${OLD_WAL_U[$gb]} / 1024") kB" '-' "$(verdict "${SNAP_WAL_U[$gb]} < $GOAL_UNCHANGED_WAL_KB * 1024")"
    done
    # per GiB from the largest size, fixed costs included (the pool pass)
    per_gib_c=$(calc "${SNAP_CPU_C[$LAST_GB]} / 1e9 / ($LAST_OS_MIB / 1024)")
    per_gib_u=$(calc "${SNAP_CPU_U[$LAST_GB]} / 1e9 / ($LAST_OS_MIB / 1024)")
    core_c=$(calc "100 * $per_gib_c * $EXTRAPOLATE_GIB / $DEFAULT_INTERVAL_S")
    core_u=$(calc "100 * $per_gib_u * $EXTRAPOLATE_GIB / $DEFAULT_INTERVAL_S")
    say "    per GiB cached (at $LAST_GB GiB, $LAST_OS_MIB MiB measured in the OS cache, fixed costs included): changed $(fmt "$per_gib_c * 1000" 2) ms CPU, unchanged $(fmt "$per_gib_u * 1000" 2) ms CPU"
    # the marginal cost per GiB, between the smallest and the largest size
    read -r first_gb _ <<<"$SNAP_GB"
    if [ "$first_gb" != "$LAST_GB" ]; then
        slope=$(calc "(${SNAP_CPU_C[$LAST_GB]} - ${SNAP_CPU_C[$first_gb]}) / 1e6 / ($LAST_GB - $first_gb)")
        say "    marginal, $first_gb -> $LAST_GB GiB: changed $(fmt "$slope" 2) ms CPU per GiB (the rest is fixed: the pass over the pool, the catalogs)"
        emit_info snapshot_marginal_per_gib "changed $(fmt "$slope" 2) ms CPU/GiB between $first_gb and $LAST_GB GiB"
    fi
    say "    extrapolated to $EXTRAPOLATE_GIB GiB every $DEFAULT_INTERVAL_S s: changed $(fmt "$core_c" 3)% of one core, unchanged $(fmt "$core_u" 3)%: $(verdict "$core_c <= $GOAL_CORE_PCT")"
    emit_info snapshot_per_gib "changed $(fmt "$per_gib_c * 1000" 2) ms CPU/GiB, unchanged $(fmt "$per_gib_u * 1000" 2) ms CPU/GiB (at $LAST_GB GiB)"
    emit_goal "snapshot of ${EXTRAPOLATE_GIB} GiB cached every ${DEFAULT_INTERVAL_S} s <= ${GOAL_CORE_PCT}% of one core (changed cache, from $LAST_GB GiB)" \
        "$(fmt "$core_c" 3)% ($(fmt "$per_gib_c * 1000" 2) ms/GiB)" "unchanged $(fmt "$core_u" 3)%" '-' "$(verdict "$core_c <= $GOAL_CORE_PCT")"
fi
if part patroni; then
    say "  patroni, pgbench scale $SCALE, $CLIENTS clients; each event against the leader's steady state just before it:"
    for v in ${PATRONI_VARIANTS:-off on}; do
        for e in switchover failover; do
            say "    $(printf '%-26s' "$e, autowarm $v") writable after $(printf '%4s' "${P_WRITABLE[autowarm $v|$e]:--}") s; first 5 s $(printf '%6s' "${P_SHARE5[autowarm $v|$e]:--}")%; 90% after $(t90_text "${P_T90[autowarm $v|$e]:--1}")"
        done
    done
    for e in switchover failover; do
        t90=${P_T90[autowarm on|$e]:--1}
        emit_goal "Patroni $e: autowarm at 90% of steady state within ${GOAL_T90_S} s of the promotion" \
            "$(t90_text "$t90")" "autowarm off $(t90_text "${P_T90[autowarm off|$e]:--1}")" '-' \
            "$(verdict "$t90 >= 0 && $t90 <= $GOAL_T90_S")"
    done
fi
say "  the machine is shared with other work: the TPS and CPU figures move with its load"
