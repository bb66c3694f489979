#!/usr/bin/env bash
# bench/os_residency.sh — how fast cachectl.os_residency() reports OS
# page-cache residency, side by side with pgfincore, util-linux fincore and
# vmtouch, on a throwaway cluster of its own:
#
#   1. for each size of SIZES_GB (1, 2, 4 and 8 GiB), a real relation of
#      that size (UNLOGGED, wide rows, no TOAST), built afresh:
#      a. fully in the OS page cache as PostgreSQL wrote it (small folios);
#      b. dropped from the OS page cache;
#      c. fully cached again, read back from disk with cat (large folios);
#   2. for each size of SPARSE_GB (64 GiB to 1 TiB), a relation made of that
#      many sparse 1 GiB segments (no disk used).
#
# Every measurement is taken ROUNDS times; the tables show medians, and every
# sample is also emitted as a machine-readable line (bench_common.sh).
#
# Times of SQL functions are taken inside the server (a DO block looping over
# the query and reading clock_timestamp()), so psql's round trip is not in
# them.  Times of the command-line tools are wall-clock times of the whole
# process, taken by this shell.
#
# It prints a table and two goals with PASS/MISS.  It is a benchmark, not a
# test: it exits 0 unless something broke.
#
# Settings (environment): QUICK=1 (0.5 and 1 GiB, 64 and 256 GiB sparse, one
# round), SIZES_GB (sizes of the real relation in GiB, default "1 2 4 8"),
# SPARSE_GB (sizes of the sparse relation in GiB, default "64 128 256 512
# 1024"), ROUNDS (samples of every measurement, default 3), REPS (calls timed
# per SQL sample, default 20), TOOL_REPS (runs timed per command-line tool
# sample, default 5), PG_CONFIG.  Run as root (the cluster runs as postgres)
# or as the postgres user.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    SIZES_GB=${SIZES_GB:-"0.5 1"}
    SPARSE_GB=${SPARSE_GB:-"64 256"}
    ROUNDS=${ROUNDS:-1}
    REPS=${REPS:-10}
    TOOL_REPS=${TOOL_REPS:-2}
fi
SIZES_GB=${SIZES_GB:-"1 2 4 8"}
SPARSE_GB=${SPARSE_GB:-"64 128 256 512 1024"}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-20}
TOOL_REPS=${TOOL_REPS:-5}
GOAL_RATIO=50     # cachestat at least this many times faster than pgfincore
GOAL_SIZE_GB=2    # ... on the fully cached relation of this size (or the nearest measured)
GOAL_BIG_MS=50    # one call on the 1 TiB relation under this many ms

bench_start os_residency


# time_sql ENGINE REPS WARMUP QUERY
# Runs QUERY (a scalar bigint query) REPS times in one backend, after one
# untimed WARMUP query (empty: none), with cachectl.os_engine set to ENGINE.
# Prints "ms_per_call|last_value|engine_in_use".
time_sql() {
    local engine=$1 reps=$2 warmup=$3 query=$4 warm_stmt=''
    [ -n "$warmup" ] && warm_stmt="PERFORM ($warmup);"
    sql <<SQL
SET cachectl.os_engine = '$engine';
DO \$bench\$
DECLARE
    t0 timestamptz;
    t1 timestamptz;
    v  bigint;
BEGIN
    $warm_stmt
    t0 := clock_timestamp();
    FOR i IN 1..$reps LOOP
        v := ($query);
    END LOOP;
    t1 := clock_timestamp();
    PERFORM set_config('bench.ms', (extract(epoch FROM t1 - t0) * 1000 / $reps)::text, false);
    PERFORM set_config('bench.value', coalesce(v::text, 'NULL'), false);
END
\$bench\$;
SELECT current_setting('bench.ms') || '|' || current_setting('bench.value')
       || '|' || cachectl.os_engine();
SQL
}

# Samples, by "case|tool|engine": ms per call, space-separated; and the rows
# of the final table in the order first measured.
declare -A S_MS=() S_PAGES=() S_CALLS=()
ROW_KEYS=()
# add_row CASE TOOL ENGINE CALLS MS PAGES FIGURE X — a sample, kept for the
# table and emitted (FIGURE, X: the plot it belongs to and its abscissa)
add_row() {
    local key="$1|$2|$3"
    [ -n "${S_MS[$key]+set}" ] || ROW_KEYS+=("$key")
    S_MS[$key]+=" $5" S_PAGES[$key]=$6 S_CALLS[$key]=$4
    emit_sample "$7" "$(series_name "$2" "$3")" "$8" "$5" ms
}
# The name of a tool in the plots: the engine for ours, the tool otherwise.
series_name() {
    case $1 in
        cachectl.os_residency) echo "os_residency ($2)" ;;
        *' (process)') echo "${1% (process)}" ;;
        *) echo "$1" ;;
    esac
}

# The figure and abscissa of the samples being taken (set by each case).
FIGURE='' X=''

# measure_sql CASE TOOL ENGINE REPS WARMUP QUERY — time_sql, then add a row.
measure_sql() {
    local case=$1 tool=$2 engine=$3 reps=$4 warmup=$5 query=$6 out ms value used
    out=$(time_sql "$engine" "$reps" "$warmup" "$query")
    IFS='|' read -r ms value used <<<"$out"
    if [ "$engine" != auto ] && [ "$used" != "$engine" ]; then
        die "asked for engine $engine, the session used $used"
    fi
    case $tool in
        pgfincore) used='mincore (its own)' ;;
    esac
    add_row "$case" "$tool" "$used" "$reps" "$ms" "$value" "$FIGURE" "$X"
    printf '  %-28s %-18s %4s call(s) %12.3f ms/call  %s pages\n' "$tool" "$used" "$reps" "$ms" "$value"
}

# Cached pages by util-linux fincore over FILES.
fincore_pages() { fincore -b -n -r -o PAGES "$@" | awk '{ s += $1 } END { print s + 0 }'; }
# Resident pages by vmtouch over FILES.
vmtouch_pages() {
    vmtouch "$@" | awk '/Resident Pages:/ { split($3, a, "/"); print a[1] }'
}

# measure_tool CASE TOOL RUNS FILES... — wall-clock time of RUNS runs.
measure_tool() {
    local case=$1 tool=$2 runs=$3 t0 t1 pages ms i
    shift 3
    t0=$(now_us)
    for ((i = 0; i < runs; i++)); do
        case $tool in
            fincore) pages=$(fincore_pages "$@") ;;
            vmtouch) pages=$(vmtouch_pages "$@") ;;
        esac
    done
    t1=$(now_us)
    ms=$(calc "($t1 - $t0) / 1000 / $runs")
    add_row "$case" "$tool (process)" "mincore (its own)" "$runs" "$ms" "$pages" "$FIGURE" "$X"
    printf '  %-28s %-18s %4s call(s) %12.3f ms/call  %s pages\n' "$tool (process)" "mincore" "$runs" "$ms" "$pages"
}

# counts_line LABEL — cached OS pages of t's main fork, by every tool.
counts_line() {
    local label=$1 cs mc pf fc vt os dirty agree
    IFS='|' read -r os cs dirty <<<"$(sql -c "SET cachectl.os_engine = cachestat" \
        -c "SELECT sum(size_pages), sum(os_pages), sum(os_dirty_pages) FROM cachectl.os_residency('t', 'main')")"
    mc=$(sql -c "SET cachectl.os_engine = mincore" \
        -c "SELECT sum(os_pages) FROM cachectl.os_residency('t', 'main')")
    pf=$(sql -c "SELECT sum(pages_mem) FROM pgfincore('t', 'main', false)")
    fc=$(fincore_pages "${T_FILES[@]}")
    vt=$(vmtouch_pages "${T_FILES[@]}")
    if [ "$cs" = "$mc" ] && [ "$mc" = "$pf" ] && [ "$pf" = "$fc" ] && [ "$fc" = "$vt" ]; then
        agree='all agree'
    else
        agree='DISAGREE'
    fi
    say "  $label, main fork, OS pages: size_pages=$os cachestat=$cs mincore=$mc pgfincore=$pf fincore=$fc vmtouch=$vt ($agree; cachestat dirty=$dirty)"
    LAST_CACHED=$cs LAST_OS_PAGES=$os
}

command -v fincore >/dev/null || die "util-linux fincore is not installed"
command -v vmtouch >/dev/null || die "vmtouch is not installed"

# ---------------------------------------------------------------------------
cluster_start "$WORK" "max_wal_size = 4GB" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pgfincore"

PAGE_SIZE=$(getconf PAGESIZE)
ENGINE_AUTO=$(sql -c "SELECT cachectl.os_engine()")
PG_VERSION_STR=$(sql -c "SHOW server_version")
FS_TYPE=$(filesystem_of "$DATA")

say "pg_cachectl OS-residency benchmark"
say "  kernel           : $(machine_summary)"
say "  PostgreSQL       : $PG_VERSION_STR, data directory on $FS_TYPE"
say "  OS page size     : $PAGE_SIZE bytes (pgfincore's pgsysconf(): $(sql -c "SELECT os_page_size FROM pgsysconf()"))"
say "  engine (auto)    : cachectl.os_engine() = $ENGINE_AUTO"
say "  timings          : SQL inside the server, $REPS calls averaged (1 call on the sparse relations);"
say "                     command-line tools: whole process, wall clock; $ROUNDS sample(s) each, medians"
say "  sizes            : dense $SIZES_GB GiB; sparse $SPARSE_GB GiB"
emit_info shared_buffers "$(sql -c "SHOW shared_buffers")"
emit_info postgresql "$PG_VERSION_STR"

# ---------------------------------------------------------------------------
# 1. Real relations, one size at a time, each built afresh (so every page of
# it is as PostgreSQL wrote it) and dropped afterwards.  Two ~4 KB rows per
# 8 KB block, STORAGE PLAIN so nothing is compressed or moved to TOAST: the
# heap is exactly as big as asked, with no all-zero page.
#
# The time cachestat(2) takes grows with the number of folios it walks, not
# with the bytes: pages PostgreSQL wrote 8 KB at a time sit in small folios,
# pages read back from disk by readahead (cat, a sequential scan) in large
# ones.  So the fully cached relation is measured in both states.
Q_OURS="SELECT sum(os_pages) FROM cachectl.os_residency('t')"
Q_PGF="SELECT sum(pages_mem) FROM pgfincore('t', 'main', false)"
measure_case() {
    local case=$1 round
    for ((round = 1; round <= ROUNDS; round++)); do
        [ "$ROUNDS" -gt 1 ] && say "  round $round"
        measure_sql "$case" 'cachectl.os_residency' cachestat "$REPS" "$Q_OURS" "$Q_OURS"
        measure_sql "$case" 'cachectl.os_residency' mincore "$REPS" "$Q_OURS" "$Q_OURS"
        measure_sql "$case" 'pgfincore' auto "$REPS" "$Q_PGF" "$Q_PGF"
        measure_tool "$case" fincore "$TOOL_REPS" "${T_FILES[@]}"
        measure_tool "$case" vmtouch "$TOOL_REPS" "${T_FILES[@]}"
    done
}

# The size the 50x goal is judged on: GOAL_SIZE_GB, or the nearest measured.
# shellcheck disable=SC2086  # a space-separated list
GOAL_AT=$(printf '%s\n' $SIZES_GB | awk -v g="$GOAL_SIZE_GB" '
    { d = ($1 > g) ? $1 - g : g - $1; if (NR == 1 || d < best) { best = d; at = $1 } } END { print at }')
part=0
for size in $SIZES_GB; do
    part=$((part + 1))
    BLOCKS=$(calc "int($size * 131072 + 0.5)")
    ROWS=$((BLOCKS * 2))
    say ""
    say "1.$part. $size GiB: creating UNLOGGED table t, $ROWS rows of ~4 KB, $BLOCKS blocks"
    t0=$(now_us)
    (sql <<SQL
DROP TABLE IF EXISTS t;
CREATE UNLOGGED TABLE t (id int, pad text);
ALTER TABLE t ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO t SELECT g, repeat('x', 4040) FROM generate_series(1, $ROWS) g;
SQL
    ) &
    wait $!   # in the background, so that a signal stops the run at once
    t1=$(now_us)
    CREATE_S=$(calc "($t1 - $t0) / 1000000")
    # A normal checkpoint does not write unlogged relations; a shutdown
    # checkpoint does.  Restarting also empties shared buffers.
    t0=$(now_us)
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -m fast -w restart >/dev/null
    t1=$(now_us)
    RESTART_S=$(calc "($t1 - $t0) / 1000000")

    find_t_files
    T_SIZE=$(sql -c "SELECT pg_relation_size('t')")
    T_TOTAL=$(sql -c "SELECT pg_size_pretty(pg_table_size('t'))")
    say "  created in ${CREATE_S} s (+ ${RESTART_S} s restart to write it out)"
    say "  relation size    : t = $T_SIZE bytes ($(calc "$T_SIZE / 1e9") GB, $(calc "$T_SIZE / 1073741824") GiB) main fork, ${#T_FILES[@]} segment files; all forks + TOAST: $T_TOTAL"
    [ "$T_SIZE" = $((BLOCKS * 8192)) ] || die "relation t is $T_SIZE bytes, expected $((BLOCKS * 8192))"
    sync "${T_FILES[@]}"
    X=$size

    say ""
    say "  a. fully cached, as PostgreSQL wrote it (8 KB writes: small folios)"
    counts_line "before"
    [ "$LAST_CACHED" = "$LAST_OS_PAGES" ] || say "  NOTE: not every page is cached ($LAST_CACHED of $LAST_OS_PAGES)"
    FIGURE=residency_written
    measure_case "$size GiB written"

    say ""
    say "  b. fully dropped: sync, then pgfadvise_dontneed('t')"
    sync "${T_FILES[@]}"
    sql -c "SELECT count(*) FROM pgfadvise_dontneed('t')" >/dev/null
    counts_line "after dontneed"
    [ "$LAST_CACHED" -le $((LAST_OS_PAGES / 1000)) ] ||
        say "  NOTE: $LAST_CACHED pages still cached after dontneed"
    FIGURE=residency_dropped
    measure_case "$size GiB dropped"

    say ""
    say "  c. fully cached, read back from disk with cat (readahead: large folios)"
    t0=$(now_us)
    cat "${T_FILES[@]}" >/dev/null
    t1=$(now_us)
    say "  cat of the cold segment files took $(calc "($t1 - $t0) / 1000000") s"
    counts_line "after cat"
    [ "$LAST_CACHED" = "$LAST_OS_PAGES" ] || say "  NOTE: not every page is cached ($LAST_CACHED of $LAST_OS_PAGES)"
    FIGURE=residency_readback
    measure_case "$size GiB read back"
    counts_line "after the timings"
    sql -c "DROP TABLE t" -c "CHECKPOINT"
done

# ---------------------------------------------------------------------------
# 2. Sparse relations: a one-row table whose first segment and more segment
# files are extended to 1 GiB with truncate (no disk used).  One call of each
# tool per sample: the largest take seconds.
part=0
FIGURE=residency_sparse
sql -c "CREATE TABLE big (id int)" -c "INSERT INTO big VALUES (1)" -c "CHECKPOINT"
B_PATH=$DATA/$(sql -c "SELECT pg_relation_filepath('big')")
B_FILES=("$B_PATH")
Q_OURS_BIG="SELECT sum(os_pages) FROM cachectl.os_residency('big')"
W_OURS="SELECT sum(os_pages) FROM cachectl.os_residency('pg_class')"
for segments in $SPARSE_GB; do
    part=$((part + 1))
    say ""
    say "2.$part. $segments GiB: table big, first segment and $((segments - 1)) more extended to 1 GiB with truncate (sparse)"
    for ((seg = ${#B_FILES[@]}; seg < segments; seg++)); do
        B_FILES+=("$B_PATH.$seg")
    done
    as_postgres truncate -s 1G "${B_FILES[@]}"
    B_SIZE=$(sql -c "SELECT pg_relation_size('big')")
    [ "$B_SIZE" = $((segments * 1073741824)) ] ||
        die "pg_relation_size('big') is $B_SIZE, expected $((segments * 1073741824))"
    say "  relation size    : big = $B_SIZE bytes ($(calc "$B_SIZE / 1099511627776") TiB, $(calc "$B_SIZE / 1e12") TB), ${#B_FILES[@]} segment files, $(du -sk "${B_FILES[@]}" | awk '{ s += $1 } END { print s }') KiB on disk"
    X=$segments
    case_name="$segments GiB sparse"
    for ((round = 1; round <= ROUNDS; round++)); do
        [ "$ROUNDS" -gt 1 ] && say "  round $round"
        measure_sql "$case_name" 'cachectl.os_residency' cachestat 1 "$W_OURS" "$Q_OURS_BIG"
        measure_sql "$case_name" 'cachectl.os_residency' mincore 1 "$W_OURS" "$Q_OURS_BIG"
        measure_sql "$case_name" 'pgfincore' auto 1 "SELECT sum(pages_mem) FROM pgfincore('pg_class', 'main', false)" \
            "SELECT sum(pages_mem) FROM pgfincore('big', 'main', false)"
        measure_tool "$case_name" fincore 1 "${B_FILES[@]}"
        measure_tool "$case_name" vmtouch 1 "${B_FILES[@]}"
    done
    BIG_CASE=$case_name BIG_GB=$segments
done
sql -c "DROP TABLE big" -c "CHECKPOINT"
left=0
for f in "${B_FILES[@]}"; do [ -e "$f" ] && left=$((left + 1)); done
say "  dropped big: $left of its ${#B_FILES[@]} segment files left"

# ---------------------------------------------------------------------------
say ""
say "3. results (medians of $ROUNDS sample(s); ratio = pgfincore time / this row's time, in the same case)"
line=$(printf '%.0s-' {1..118})
printf '%-20s %-24s %-18s %6s %14s %14s %12s\n' case tool engine calls 'ms/call' 'cached pages' 'vs pgfincore'
say "$line"
declare -A MED=()
for key in "${ROW_KEYS[@]}"; do
    # shellcheck disable=SC2086  # the samples are space-separated numbers
    MED[$key]=$(median_of ${S_MS[$key]})
done
RATIO_CACHED='' RATIO_WRITTEN='' BIG_MS=''
for key in "${ROW_KEYS[@]}"; do
    IFS='|' read -r case tool engine <<<"$key"
    base=${MED["$case|pgfincore|mincore (its own)"]}
    ratio=$(calc "${MED[$key]} > 0 ? $base / ${MED[$key]} : 0")
    printf '%-20s %-24s %-18s %6s %14.3f %14s %11.1fx\n' "$case" "$tool" "$engine" \
        "${S_CALLS[$key]}" "${MED[$key]}" "${S_PAGES[$key]}" "$ratio"
    if [ "$tool" = cachectl.os_residency ] && [ "$engine" = cachestat ]; then
        [ "$case" = "$GOAL_AT GiB read back" ] && RATIO_CACHED=$ratio CACHED_MS=${MED[$key]} CACHED_PGF=$base
        [ "$case" = "$GOAL_AT GiB written" ] && RATIO_WRITTEN=$ratio WRITTEN_MS=${MED[$key]} WRITTEN_PGF=$base
        [ "$case" = "$BIG_CASE" ] && BIG_MS=${MED[$key]} BIG_PGF=$base
    fi
done
say "$line"
say "(cachectl.os_residency('t') counts every fork, so it also sees the free space map's pages;"
say " pgfincore('t', 'main', false), fincore and vmtouch count the main fork only)"
verdict() { if [ "$(calc "$1")" = 1 ]; then echo PASS; else echo MISS; fi; }
say "goals:"
v=$(verdict "$RATIO_CACHED >= $GOAL_RATIO")
printf '  %-4s  >=%sx faster than pgfincore on the fully cached %s GiB relation (cachestat), read back from disk: %.1fx\n' \
    "$v" "$GOAL_RATIO" "$GOAL_AT" "$RATIO_CACHED"
emit_goal "os_residency >= ${GOAL_RATIO}x faster than pgfincore, $GOAL_AT GiB fully cached, read back (large folios)" \
    "$(num "$CACHED_MS") ms" "pgfincore $(num "$CACHED_PGF") ms" "$(num "$RATIO_CACHED" 1)" "$v"
v=$(verdict "$RATIO_WRITTEN >= $GOAL_RATIO")
printf '  %-4s  >=%sx faster than pgfincore on the fully cached %s GiB relation (cachestat), as PostgreSQL wrote it: %.1fx\n' \
    "$v" "$GOAL_RATIO" "$GOAL_AT" "$RATIO_WRITTEN"
emit_goal "os_residency >= ${GOAL_RATIO}x faster than pgfincore, $GOAL_AT GiB fully cached, as written (small folios)" \
    "$(num "$WRITTEN_MS") ms" "pgfincore $(num "$WRITTEN_PGF") ms" "$(num "$RATIO_WRITTEN" 1)" "$v"
v=$(verdict "$BIG_MS < $GOAL_BIG_MS")
printf '  %-4s  %s GiB sparse relation < %s ms (cachestat, one call): %.3f ms\n' \
    "$v" "$BIG_GB" "$GOAL_BIG_MS" "$BIG_MS"
emit_goal "os_residency of a $BIG_GB GiB sparse relation < $GOAL_BIG_MS ms (goal set for 1 TiB)" \
    "$(num "$BIG_MS") ms" "pgfincore $(num "$BIG_PGF" 1) ms" "$(num "$BIG_PGF / $BIG_MS" 1)" "$v"
