#!/usr/bin/env bash
# chaos.sh — random faults across a three-node Patroni cluster under write
# load, and a checker at the end (issue 40; `make chaos`).  bench/chaos.pl
# does the work on test/perl/ChaosRun.pm; this script gives it a work
# folder, a log folder it keeps, a seed, and as root a size-limited tmpfs
# for node3's data directory (the disk-full fault; left out with a note
# where it cannot be mounted).
#
#   CHAOS_MINUTES   how long faults are injected (30)
#   CHAOS_SEED      the schedule's seed (default: from the clock; printed,
#                   so that a run can be replayed)
#   CHAOS_FAULTS    kinds to inject in this order instead of random ones
#                   (leader_kill leader_stop worker_kill call_kill tmpfs_full
#                   switchover_loading replica_restart database_ddl)
#   CHAOS_LOG_DIR   where the logs go (default: a new folder under /tmp)
#   CHAOS_TMPFS_MB  the tmpfs's size (1024)
#   CHAOS_DCS       Patroni's etcd API: etcd (v2, the default) or etcd3, whose
#                   client in Patroni 3.0.2 lets a leader that wakes from a
#                   freeze take the leader key back (bench/README.md)
#
# Exits 1 when a goal is missed (bench/README.md, "chaos.sh").
set -euo pipefail
# shellcheck source=bench_common.sh
. "$(dirname "$0")/bench_common.sh"
BENCH_NAME=chaos

command -v /usr/bin/patroni >/dev/null && command -v /usr/bin/etcd >/dev/null ||
    die "needs Patroni and etcd (apt-get install patroni etcd-server python3-etcd)"

CHAOS_MINUTES=${CHAOS_MINUTES:-30}
CHAOS_SEED=${CHAOS_SEED:-$(date +%s)}
CHAOS_LOG_DIR=${CHAOS_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/cachectl-chaos-logs.$(date +%Y%m%d-%H%M%S).XXXX")}
mkdir -p "$CHAOS_LOG_DIR"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cachectl-chaos.XXXXXX")
chmod 755 "$WORK" "$CHAOS_LOG_DIR"
tmpfs=""
tmpfs_note=""

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$tmpfs" ]; then
        umount "$tmpfs" 2>/dev/null || umount -l "$tmpfs" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# node3's data directory on a tmpfs of its own, which the disk-full fault
# fills: needs root and mount
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$WORK/tmpfs"
    if mount -t tmpfs -o "size=${CHAOS_TMPFS_MB:-1024}m,mode=0700,uid=$(id -u postgres),gid=$(id -g postgres)" \
        cachectl-chaos "$WORK/tmpfs" 2>"$WORK/mount.err"; then
        tmpfs=$WORK/tmpfs
    else
        tmpfs_note="mount of a tmpfs failed: $(cat "$WORK/mount.err")"
    fi
    chown -R postgres: "$WORK" "$CHAOS_LOG_DIR"
else
    tmpfs_note="not root: no tmpfs can be mounted"
fi

say "chaos: PostgreSQL $("$PG_CONFIG" --version | awk '{ print $2 }'), Patroni $(/usr/bin/python3 /usr/bin/patroni --version 2>/dev/null | awk '{ print $2 }'), $(machine_summary)"
run=(env CHAOS_WORK="$WORK" CHAOS_LOG_DIR="$CHAOS_LOG_DIR" CHAOS_MINUTES="$CHAOS_MINUTES" CHAOS_SEED="$CHAOS_SEED"
    CHAOS_FAULTS="${CHAOS_FAULTS:-}" CHAOS_DCS="${CHAOS_DCS:-etcd}" CHAOS_TMPFS="$tmpfs" CHAOS_TMPFS_NOTE="$tmpfs_note" PATH="$PG_BINDIR:$PATH"
    perl -I "$ROOT/test/perl" -I "$PG_PGXS_DIR/../../src/test/perl" "$ROOT/bench/chaos.pl")
status=0
if [ "$(id -u)" = 0 ]; then
    (cd "$WORK" && runuser -u postgres -- "${run[@]}") || status=$?
else
    (cd "$WORK" && "${run[@]}") || status=$?
fi
say "chaos: logs kept in $CHAOS_LOG_DIR"
exit "$status"
