#!/usr/bin/env bash
# bench/run_all.sh — run every benchmark script once, each on throwaway
# clusters of its own, collect their machine-readable result lines into
# bench/results/results.tsv (their human output into bench/results/logs/),
# describe the machine, then write bench/results/REPORT.md and the plots
# with bench/report.sh.  `make bench` runs it.
#
# Every script repeats each measurement RUNS times (default 3; QUICK=1: 1
# and smaller sizes: 18-20 minutes here on 2 CPUs shared with other work,
# 11.5 of them autowarm.sh's failovers, reboots and Patroni clusters, which
# QUICK shortens but cannot make small); the report shows medians.  A
# script that fails is recorded in the report and the others still run; the
# exit status is then 1.
#
# Settings (environment): QUICK, RUNS, PG_CONFIG (pg_cachectl must be
# installed for it: make bench does), TMPDIR (the clusters' data
# directories: about 9 GB free for the full run), BENCH_OUT (default
# bench/results), BENCH_ONLY (a space-separated subset of the scripts).
# Run as root: the clusters run as postgres, and both_layers.sh drops the
# cluster's files from the OS cache between restarts.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then RUNS=${RUNS:-1}; else RUNS=${RUNS:-3}; fi
OUT=${BENCH_OUT:-$HERE/results}
export PG_CONFIG=${PG_CONFIG:-pg_config} QUICK TMPDIR=${TMPDIR:-/tmp}
SCRIPTS=(os_residency evict evict_sweep os_prefetch both_layers metrics autowarm snapshot_poll snapshot_load
    read_sources relation_reads advice)
[ -n "${BENCH_ONLY:-}" ] && read -r -a SCRIPTS <<<"$BENCH_ONLY"

# settings_for NAME — sets settings, the environment NAME.sh runs with (QUICK
# reaches every script too); fails for a name with no script.
settings_for() {
    case $1 in
        os_residency) settings=(ROUNDS="$RUNS") ;;
        evict) settings=(REPS="$RUNS" MANY_REPS="$RUNS") ;;
        evict_sweep) settings=(ROUNDS="$RUNS") ;;
        os_prefetch) settings=(REPS="$RUNS") ;;
        both_layers) settings=(LOAD_REPS="$RUNS") ;;
        metrics) settings=(REPS="$((RUNS * 2 + 1))") ;;
        autowarm) settings=(SNAP_REPS="$RUNS") ;;   # failover and reboot: once each (a minute per variant)
        snapshot_poll) settings=(REPS="$([ "$QUICK" = 1 ] && echo 200 || echo 2000)") ;;   # 1.0's poll: 32 ms each
        snapshot_load) settings=(ROUNDS="$RUNS") ;;
        read_sources) settings=(REPS="$((RUNS * 2 + 1))") ;;
        # its rounds are many short pgbench runs, not repetitions of one
        # measurement: its own defaults (36 rounds of 2 s; QUICK: 3 of 1 s)
        relation_reads) settings=() ;;
        advice) settings=(RUNS="$RUNS") ;;   # each run: five sizes, two loads
        *) return 1 ;;
    esac
}
# every name is checked before the first script runs: a misspelt
# BENCH_ONLY fails now, not after the others have taken their minutes
for name in "${SCRIPTS[@]}"; do
    settings_for "$name" || { echo "run_all: no benchmark named $name" >&2; exit 1; }
done

[ "$(id -u)" = 0 ] || { echo "run_all.sh: run as root (the clusters run as postgres)" >&2; exit 1; }
[ -f "$("$PG_CONFIG" --sharedir)/extension/pg_cachectl.control" ] || {
    echo "run_all.sh: pg_cachectl is not installed for $PG_CONFIG: make PG_CONFIG=$PG_CONFIG install" >&2
    exit 1
}

mkdir -p "$OUT/logs"
rm -f "$OUT/results.tsv" "$OUT"/logs/*.log
export BENCH_TSV=$OUT/results.tsv
: >"$BENCH_TSV"
# machine KEY VALUE — a premise of the whole run
machine() { printf 'info\trun_all\t%s\t%s\n' "$1" "$2" >>"$BENCH_TSV"; }
now_s() { date +%s.%N; }
WALL_START=$(now_s)

# The block device under TMPDIR (where the data directories are), and its
# queue limits: a partition's are those of its disk.
SOURCE=$(findmnt -n -o SOURCE --target "$TMPDIR" | head -n1)
DEV=$(basename "$(readlink -f "$SOURCE" 2>/dev/null || echo "$SOURCE")")
if [ ! -d "/sys/class/block/$DEV/queue" ]; then
    DEV=$(lsblk -n -o PKNAME "/dev/$DEV" 2>/dev/null | head -n1)
fi
machine date "$(date -u '+%Y-%m-%d %H:%M UTC')"
machine mode "$([ "$QUICK" = 1 ] && echo QUICK || echo full)"
machine runs "$RUNS"
machine commit "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
machine cpus "$(nproc) ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo))"
machine memory "$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
machine kernel "Linux $(uname -r) ($(uname -m)), OS page $(getconf PAGESIZE) bytes"
machine filesystem "$(findmnt -n -o FSTYPE --target "$TMPDIR") on $SOURCE (data directories under $TMPDIR)"
machine device "$DEV: read_ahead_kb=$(cat "/sys/class/block/$DEV/queue/read_ahead_kb" 2>/dev/null || echo '?'), max_sectors_kb=$(cat "/sys/class/block/$DEV/queue/max_sectors_kb" 2>/dev/null || echo '?')"
machine postgresql "$("$PG_CONFIG" --version) ($PG_CONFIG)"
machine load_start "$(cut -d' ' -f1-3 /proc/loadavg)"

# The device's sequential read bandwidth without the page cache: a 1 GiB
# file written and synced, then read with O_DIRECT in 8 MiB requests.
PROBE_FILE=$(mktemp "$TMPDIR/cachectl-ddprobe.XXXXXX")
trap 'rm -f "$PROBE_FILE"' EXIT
dd if=/dev/zero of="$PROBE_FILE" bs=8M count=128 conv=fsync status=none
t0=$(now_s)
dd if="$PROBE_FILE" of=/dev/null bs=8M iflag=direct status=none
t1=$(now_s)
rm -f "$PROBE_FILE"
machine dd_direct "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f MB/s (1 GiB, bs=8M, iflag=direct, %.3f s)", 1073741824 / 1e6 / (b - a), b - a }')"
echo "run_all: $([ "$QUICK" = 1 ] && echo QUICK || echo full) run, $RUNS run(s) per measurement, results in $OUT"

failed=0
for name in "${SCRIPTS[@]}"; do
    settings_for "$name"
    echo "run_all: $name (${settings[*]:-its own settings}), log in $OUT/logs/$name.log"
    t0=$(now_s)
    rc=0
    env "${settings[@]}" bash "$HERE/$name.sh" >"$OUT/logs/$name.log" 2>&1 || rc=$?
    t1=$(now_s)
    seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
    printf 'info\trun_all\tscript\t%s %s %s\n' "$name" "$rc" "$seconds" >>"$BENCH_TSV"
    echo "run_all: $name exited $rc after $seconds s"
    [ "$rc" = 0 ] || failed=1
done

machine load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
machine wall_seconds "$(awk -v a="$WALL_START" -v b="$(now_s)" 'BEGIN { printf "%.0f", b - a }')"
bash "$HERE/report.sh" "$OUT"
exit "$failed"
