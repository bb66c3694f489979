#!/usr/bin/env bash
# bench/snapshot_load.sh — CALL restore() and the autowarm worker load the
# same snapshot in the same time (issue 28: one loader, one code path), at
# the device's rate.
#
# State: a throwaway cluster with pg_cachectl preloaded (shared_buffers
# SHARED_BUFFERS, autowarm on with a one-hour interval, both loads allowed
# 0.9 of the pool: cachectl.autowarm_max_share and prewarm_max_share), table
# t of TABLE_MB MiB loaded whole into both layers, then the autowarm label
# snapshotted.  Each round, twice:
#   - the worker: the server stopped (a clean stop records the shutdown
#     snapshot: the same blocks), the data files dropped from the OS cache,
#     the server started, and the worker's start load timed by the server
#     itself (cachectl.autowarm_status.start_load_seconds);
#   - restore(): the server stopped, the files dropped from the OS cache,
#     started with cachectl.autowarm off, and CALL cachectl.restore() of the
#     same label timed (its seconds column).
# The device's own rate is read first: t's first segment with O_DIRECT.
# Prints MB/s of each load against the device's and the ratio of the two
# loads (goal: within 20 % of each other).  A benchmark, not a test: exits
# 0 unless something broke.
#
# Settings (environment): QUICK=1 (a 256 MiB table, shared_buffers 384MB),
# TABLE_MB (default 1024), SHARED_BUFFERS (default 1536MB), ROUNDS (default
# 2), PG_CONFIG, TMPDIR.  Run as root (the OS cache
# of the files is dropped with dd while the server is stopped).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    TABLE_MB=${TABLE_MB:-256}
    SHARED_BUFFERS=${SHARED_BUFFERS:-384MB}
fi
TABLE_MB=${TABLE_MB:-1024}
SHARED_BUFFERS=${SHARED_BUFFERS:-1536MB}
ROUNDS=${ROUNDS:-2}
GOAL_SAME=1.2

[ "$(id -u)" = 0 ] || die "run as root (the OS cache of the files is dropped with dd)"
bench_start snapshot_load
cluster_start "$WORK" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'pg_cachectl'" "cachectl.autowarm = on" "cachectl.autowarm_interval = 3600" \
    "cachectl.autowarm_max_share = 0.9" "cachectl.prewarm_max_share = 0.9"
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl"
build_table_t "$((TABLE_MB * 128))"
sql -c "SELECT count(*) FROM cachectl.prewarm('t', 'both')" >/dev/null
LABEL=$(sql -c "SHOW cachectl.autowarm_label")
sql -c "SELECT rows_recorded FROM cachectl.snapshot('$LABEL')" >/dev/null
read -r SNAP_SHARED SNAP_OS <<<"$(sql -c "SELECT sum(block_count) FILTER (WHERE layer = 'shared'), sum(block_count) FILTER (WHERE layer = 'os')
                                          FROM cachectl.snapshot WHERE label = '$LABEL'" | tr '|' ' ')"
T_FILE=$DATA/$(sql -c "SELECT pg_relation_filepath('t')")

# drop_files — every relation file out of the OS page cache (server stopped)
drop_files() {
    sync
    find "$DATA/base" -type f -regextype posix-extended -regex '.*/[0-9]+(_[a-z]+)?(\.[0-9]+)?$' \
        -exec dd if={} iflag=nocache count=0 status=none \;
}

restart_cold() {
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -w stop >/dev/null
    drop_files
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -w start -o "$1" >/dev/null
}

# the device: t's first segment read with O_DIRECT, the server stopped
as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -w stop >/dev/null
t0=$(now_us)
dd if="$T_FILE" of=/dev/null bs=8M iflag=direct status=none
t1=$(now_us)
DEVICE_MBS=$(calc "$(stat -c %s "$T_FILE") / 1048576 / (($t1 - $t0) / 1e6)")
as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -w start >/dev/null

say "premises: PostgreSQL $(sql -c 'SHOW server_version'), shared_buffers $SHARED_BUFFERS, t $TABLE_MB MiB,"
say "  snapshot \"$LABEL\": $SNAP_SHARED shared and $SNAP_OS OS blocks; device read $(fmt "$DEVICE_MBS") MB/s (O_DIRECT, 8 MiB)"
emit_info device_mb_per_s "$(fmt "$DEVICE_MBS")"

worker_s=() restore_s=()
for ((r = 1; r <= ROUNDS; r++)); do
    restart_cold "-c cachectl.autowarm=on"
    for _ in $(seq 1 600); do
        done_s=$(sql -c "SELECT start_load_seconds FROM cachectl.autowarm_status
                          WHERE database = current_database() AND start_load_finished IS NOT NULL")
        [ -n "$done_s" ] && break
        sleep 0.5
    done
    [ -n "$done_s" ] || die "the worker's start load did not finish"
    read -r w_shared w_os <<<"$(sql -c "SELECT start_load_shared_blocks, start_load_os_blocks FROM cachectl.autowarm_status
                                        WHERE database = current_database()" | tr '|' ' ')"
    say "  round $r, worker:    $done_s s, $w_shared shared and $w_os OS blocks"
    worker_s+=("$done_s")
    emit_sample load_seconds worker "$TABLE_MB" "$done_s" s

    restart_cold "-c cachectl.autowarm=off"
    IFS='|' read -r rs_shared rs_os rs_s <<<"$(sql -c "CALL cachectl.restore('$LABEL')" -A -F '|' -t |
        awk -F'|' '{ print $4 "|" $5 "|" $6 }')"
    say "  round $r, restore(): $rs_s s, $rs_shared shared and $rs_os OS blocks"
    restore_s+=("$rs_s")
    emit_sample load_seconds "restore()" "$TABLE_MB" "$rs_s" s
done

W=$(median_of "${worker_s[@]}")
R=$(median_of "${restore_s[@]}")
MB=$(calc "($SNAP_OS > $SNAP_SHARED ? $SNAP_OS : $SNAP_SHARED) * 8192 / 1048576")
ratio=$(calc "$W > $R ? $W / $R : $R / $W")
say "medians: worker $W s ($(fmt "$MB / $W") MB/s), restore() $R s ($(fmt "$MB / $R") MB/s); device $(fmt "$DEVICE_MBS") MB/s"
verdict=$(calc "$ratio <= $GOAL_SAME ? \"PASS\" : \"MISS\"")
say "goal: the two loads within 20 % of each other (ratio $(fmt "$ratio" 2)): $verdict"
emit_goal "restore() and the worker load the same snapshot in the same time (<= ${GOAL_SAME}x)" "worker $W s" "restore $R s" "$(fmt "$ratio" 2)" "$verdict"
emit_info load_vs_device "worker $(fmt "$MB / $W / $DEVICE_MBS" 2), restore $(fmt "$MB / $R / $DEVICE_MBS" 2) of the device's rate"
