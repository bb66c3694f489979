#!/usr/bin/env bash
# bench/os_prefetch.sh — how fast cachectl.os_prefetch(), os_restore() and
# os_map() load and snapshot the OS page cache, side by side with the tools
# they mean to beat, on a throwaway cluster of its own:
#
#   1. a cold relation of about 2.2 GB (UNLOGGED, wide rows, no TOAST) loaded
#      into the OS page cache by cachectl.os_prefetch('t'),
#      pg_prewarm('t', 'prefetch'), pgfincore's pgfadvise_willneed('t'), cat
#      of its segment files (one synchronous stream), and raw WILLNEED advice
#      in 8 MiB chunks from bench/cache_probe.c (the floor: what the kernel
#      gives when asked as well as it can be);
#   2. half of that relation (runs of 64 blocks, chosen by a hash) restored
#      from a block map by cachectl.os_restore() and from pgfincore's page
#      maps by pgfadvise_loader();
#   3. a block map of a 1 TiB relation of 1024 sparse segments: os_map()
#      against pgfincore(.., getdatabit => true), time and the backend's
#      peak memory.
#
# Before every load the relation is made cold with cachectl.os_drop() and
# checked (no page cached).  Loads are timed by bench/cache_probe, which
# starts the command (a psql call, cat, or its own WILLNEED loop), counts
# the cached pages with mincore every 5 ms (pages whose read has finished,
# as util-linux fincore counts them) and reports when the command returned,
# what was cached then, and when 99% (of the relation, or of the map) was
# cached.  The times of SQL calls include starting psql and connecting
# (about 10 ms here).  Every load runs REPS times, methods interleaved;
# the table shows medians.
#
# It prints the premises (kernel, file system, read_ahead_kb and
# max_sectors_kb of the device, versions, pool size), a table, and the goals
# with PASS/MISS.  It is a benchmark, not a test: it exits 0 unless
# something broke.
#
# Settings (environment): QUICK=1 (0.5 GB, one run, 64 GiB sparse),
# REL_GB (size of the relation in 10^9 bytes,
# default 2.2), REPS (default 3), CHUNK_MIB (the floor's chunk, default 8),
# STALL_S (a load that has not progressed for this long after its command
# returned is over, default 2), TIMEOUT_S (default 60), BIG_SEGMENTS
# (default 1024 = 1 TiB), SHARED_BUFFERS (default 128MB), PG_CONFIG, TMPDIR.
# Run as root (the cluster runs as postgres) or as the postgres user.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    REL_GB=${REL_GB:-0.5}
    REPS=${REPS:-1}
    BIG_SEGMENTS=${BIG_SEGMENTS:-64}
fi
REL_GB=${REL_GB:-2.2}
REPS=${REPS:-3}
CHUNK_MIB=${CHUNK_MIB:-8}
STALL_S=${STALL_S:-2}
TIMEOUT_S=${TIMEOUT_S:-60}
BIG_SEGMENTS=${BIG_SEGMENTS:-1024}
SHARED_BUFFERS=${SHARED_BUFFERS:-128MB}
GOAL_SHARE=0.99       # os_prefetch: cached when it returns
GOAL_VS_CAT=1.5       # os_prefetch: at least this many times cat's bandwidth
GOAL_VS_FLOOR=1.2     # os_prefetch: at most this many times the floor's time
GOAL_RESTORE=5        # os_restore: at least this many times faster than pgfadvise_loader
GOAL_MAP_MS=100       # os_map of the 1 TiB relation: under this many ms
GOAL_MAP_MB=20        # ... with at most this many MB of backend memory

bench_start os_prefetch

# median of the numbers given as arguments (-1 meaning "never" sorts last)
median() {
    printf '%s\n' "$@" | awk '{ v = ($1 < 0) ? 1e18 : $1; print v }' | sort -g |
        awk '{ a[NR] = $1 } END { m = a[int((NR + 1) / 2)]; print (m >= 1e18) ? -1 : m }'
}

command -v cc >/dev/null || die "a C compiler (cc) is needed for bench/cache_probe.c"
PROBE=$WORK/cache_probe
cc -O2 -Wall -o "$PROBE" "$HERE/cache_probe.c"
chmod 755 "$PROBE"

# ---------------------------------------------------------------------------
cluster_start "$WORK" "max_wal_size = 4GB" "shared_buffers = $SHARED_BUFFERS" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pgfincore" -c "CREATE EXTENSION pg_prewarm"
for fn in os_prefetch os_drop os_map os_restore; do
    [ "$(sql -c "SELECT count(*) FROM pg_proc WHERE proname = '$fn' AND pronamespace = 'cachectl'::regnamespace")" -gt 0 ] ||
        die "cachectl.$fn is not installed (make install the version that has it)"
done

# psql as the postgres user, for cache_probe to start (it execs a program).
PSQL=("$PG_BINDIR/psql" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres -X -At -q -v ON_ERROR_STOP=1 -d postgres)
[ "$(id -u)" = 0 ] && PSQL=(runuser -u postgres -- "${PSQL[@]}")

# The block device under the data directory, and its queue settings.
FS_TYPE=$(filesystem_of "$DATA")
FS_SOURCE=$(findmnt -n -o SOURCE --target "$DATA" 2>/dev/null || echo '?')
DEV_NAME=$(basename "$(readlink -f "$FS_SOURCE" 2>/dev/null || echo "$FS_SOURCE")")
QUEUE=/sys/class/block/$DEV_NAME/queue
if [ ! -d "$QUEUE" ] && [ -e "/sys/class/block/$DEV_NAME/partition" ]; then
    QUEUE=$(dirname "$(readlink -f "/sys/class/block/$DEV_NAME")")/queue
fi
READ_AHEAD_KB=$(cat "$QUEUE/read_ahead_kb" 2>/dev/null || echo '?')
MAX_SECTORS_KB=$(cat "$QUEUE/max_sectors_kb" 2>/dev/null || echo '?')
PAGE_SIZE=$(getconf PAGESIZE)
PAGES_PER_BLOCK=$((8192 / PAGE_SIZE))
ENGINE=$(sql -c "SELECT cachectl.os_engine()")
CACHECTL_VERSION=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')

say "pg_cachectl OS page-cache load benchmark"
say "  kernel           : $(machine_summary)"
say "  data directory   : $FS_TYPE on $FS_SOURCE; device $DEV_NAME: read_ahead_kb=$READ_AHEAD_KB max_sectors_kb=$MAX_SECTORS_KB"
say "  PostgreSQL       : $(sql -c "SHOW server_version"), shared_buffers = $(sql -c "SHOW shared_buffers"); pg_cachectl $CACHECTL_VERSION; engine $ENGINE"
say "  OS page size     : $PAGE_SIZE bytes"
say "  timing           : cache_probe starts each command and counts cached pages (mincore) every 5 ms;"
say "                     SQL times include psql start and connection; medians of $REPS runs"
emit_info postgresql "$(sql -c "SHOW server_version")"
emit_info shared_buffers "$(sql -c "SHOW shared_buffers")"

# ---------------------------------------------------------------------------
BLOCKS=$(calc "int($REL_GB * 1000000000 / 8192 + 0.999999)")
ROWS=$((BLOCKS * 2))
say ""
say "1. creating UNLOGGED table t: $ROWS rows of ~4 KB, $BLOCKS blocks"
t0=$(now_us)
(sql <<SQL
CREATE UNLOGGED TABLE t (id int, pad text);
ALTER TABLE t ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO t SELECT g, lpad(g::text, 4040, md5(g::text)) FROM generate_series(1, $ROWS) g;
SQL
) &
wait $!
# A shutdown checkpoint writes unlogged relations; the restart also
# empties shared buffers.
as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -m fast -w restart >/dev/null
t1=$(now_us)
find_t_files
T_SIZE=$(sql -c "SELECT pg_relation_size('t')")
T_BLOCKS=$((T_SIZE / 8192))
say "  created and written out in $(calc "($t1 - $t0) / 1000000") s: $T_SIZE bytes ($(calc "$T_SIZE / 1e9") GB), ${#T_FILES[@]} segment files"
[ "$T_SIZE" -ge "$(num "$REL_GB * 1e9 * 0.99" 0)" ] || die "relation t is only $T_SIZE bytes"
sync "${T_FILES[@]}"
read -r _ TOTAL_PAGES <<<"$("$PROBE" count "${T_FILES[@]}")"

# make_cold: os_drop the relation, then check that nothing is cached.
make_cold() {
    local cached
    sql -c "SELECT count(*) FROM cachectl.os_drop('t')" >/dev/null
    read -r cached _ <<<"$("$PROBE" count "${T_FILES[@]}")"
    [ "$cached" = 0 ] || die "after os_drop, $cached pages of t are still cached"
}

# load NAME TARGET_PAGES COMMAND... — a cold start, then the command under
# cache_probe.  Appends to the result arrays and prints one line.
R_NAME=() R_EXIT=() R_EXIT_PAGES=() R_TARGET=() R_FINAL=() R_OUT=()
load() {
    local name=$1 target=$2 out probe
    shift 2
    make_cold
    out=$("$PROBE" watch "$target" "$TIMEOUT_S" "$STALL_S" "${T_FILES[@]}" -- "$@")
    probe=$(grep '^probe:' <<<"$out") || die "$name: no probe line in: $out"
    local exit_s exit_pages target_s final_pages status
    exit_s=$(sed -E 's/.*exit_s=([^ ]+).*/\1/' <<<"$probe")
    exit_pages=$(sed -E 's/.*exit_pages=([^ ]+).*/\1/' <<<"$probe")
    target_s=$(sed -E 's/.*target_s=([^ ]+).*/\1/' <<<"$probe")
    final_pages=$(sed -E 's/.*final_pages=([^ ]+).*/\1/' <<<"$probe")
    status=$(sed -E 's/.*status=([^ ]+).*/\1/' <<<"$probe")
    [ "$status" = 0 ] || die "$name: the command failed (status $status): $out"
    R_NAME+=("$name") R_EXIT+=("$exit_s") R_EXIT_PAGES+=("$exit_pages") R_TARGET+=("$target_s")
    R_FINAL+=("$final_pages") R_OUT+=("$({ grep -v '^probe:' <<<"$out" || true; } | tr '\n' ' ')")
    emit_sample "$FIGURE" "$name" "$X" "$target_s" s
    [ "$target_s" = -1.000 ] ||
        emit_sample "${FIGURE}_bandwidth" "$name" "$X" "$(calc "$target * $PAGE_SIZE / 1e6 / $target_s")" MB/s
    printf '  %-28s returned %7.3f s, %6.2f%% cached then; 99%% of target at %8s; %6.2f%% at the end  %s\n' \
        "$name" "$exit_s" "$(calc "100 * $exit_pages / $TOTAL_PAGES")" \
        "$([ "$target_s" = -1.000 ] && echo never || echo "$target_s s")" \
        "$(calc "100 * $final_pages / $TOTAL_PAGES")" "${R_OUT[-1]}"
}

# summary NAME TARGET_PAGES — medians over the runs of NAME; sets S_* variables.
summary() {
    local name=$1 exits=() targets=() exit_pages=() finals=() i
    for i in "${!R_NAME[@]}"; do
        [ "${R_NAME[i]}" = "$name" ] || continue
        exits+=("${R_EXIT[i]}") targets+=("${R_TARGET[i]}")
        exit_pages+=("${R_EXIT_PAGES[i]}") finals+=("${R_FINAL[i]}")
    done
    S_EXIT=$(median "${exits[@]}")
    S_TARGET=$(median "${targets[@]}")
    S_EXIT_MIN=$(printf '%s\n' "${exit_pages[@]}" | sort -n | head -n 1)
    S_EXIT_PAGES=$(median "${exit_pages[@]}")
    S_FINAL=$(median "${finals[@]}")
    S_RUNS=${#exits[@]}
}

# ---------------------------------------------------------------------------
say ""
say "2. cold 2 GB relation loaded into the page cache (target: 99% of its $TOTAL_PAGES pages)"
TARGET=$(calc "int($TOTAL_PAGES * 0.99 + 0.999999)")
M_OURS='cachectl.os_prefetch'
M_PREWARM="pg_prewarm prefetch"
M_PGF='pgfadvise_willneed'
M_CAT='cat (one stream)'
M_FLOOR="raw WILLNEED ${CHUNK_MIB} MiB chunks"
FIGURE=prefetch X=$(calc "$T_SIZE / 1e9")
DD_S=''
for ((rep = 1; rep <= REPS; rep++)); do
    say " round $rep"
    load "$M_OURS" "$TARGET" "${PSQL[@]}" -c "SELECT 'seconds=' || seconds || ' pending=' || os_pages_pending FROM cachectl.os_prefetch('t')"
    load "$M_PREWARM" "$TARGET" "${PSQL[@]}" -c "SELECT 'blocks=' || pg_prewarm('t', 'prefetch')"
    load "$M_PGF" "$TARGET" "${PSQL[@]}" -c "SELECT 'calls=' || count(*) FROM pgfadvise_willneed('t')"
    load "$M_CAT" "$TARGET" sh -c 'cat "$@" >/dev/null' cat "${T_FILES[@]}"
    load "$M_FLOOR" "$TARGET" "$PROBE" willneed $((CHUNK_MIB * 1024 * 1024)) "${T_FILES[@]}"
    # the device alone, without the page cache: O_DIRECT reads in 8 MiB requests
    make_cold
    t0=$(now_us)
    for f in "${T_FILES[@]}"; do dd if="$f" of=/dev/null bs=8M iflag=direct status=none; done
    t1=$(now_us)
    s_dd=$(calc "($t1 - $t0) / 1e6")
    DD_S+=" $s_dd"
    printf '  %-28s %7.3f s for all %d pages, %.0f MB/s\n' "dd iflag=direct bs=8M" "$s_dd" "$TOTAL_PAGES" \
        "$(calc "$TOTAL_PAGES * $PAGE_SIZE / 1e6 / $s_dd")"
    emit_sample prefetch_bandwidth "dd iflag=direct (device)" "$X" "$(calc "$TOTAL_PAGES * $PAGE_SIZE / 1e6 / $s_dd")" MB/s
done

# ---------------------------------------------------------------------------
say ""
say "3. half of the relation restored from a map (runs of 64 blocks chosen by a hash)"
sql <<SQL
CREATE TABLE bench_map AS
  SELECT string_agg(CASE WHEN hashint4(b / 64) & 1 = 0 THEN '1' ELSE '0' END, '' ORDER BY b)::varbit AS map
    FROM generate_series(0, $T_BLOCKS - 1) AS b;
SQL
MAP_BLOCKS=$(sql -c "SELECT length(replace(map::text, '0', '')) FROM bench_map")
HALF_PAGES=$((MAP_BLOCKS * PAGES_PER_BLOCK))
# The half state, made once to take pgfincore's page maps from it.
sql -c "SELECT count(*) FROM cachectl.os_restore('t', (SELECT map FROM bench_map), drop_others => true, fork => 'main')" >/dev/null
read -r cached _ <<<"$("$PROBE" count "${T_FILES[@]}")"
sql -c "CREATE TABLE pgf_map AS SELECT segment, databit FROM pgfincore('t', 'main', true)"
PGF_BITS=$(sql -c "SELECT sum(length(replace(databit::text, '0', ''))) FROM pgf_map")
SAME_MAP=$(sql -c "SELECT cachectl.os_map('t', fork => 'main') = map FROM bench_map")
say "  map: $MAP_BLOCKS of $T_BLOCKS blocks set ($HALF_PAGES pages); after os_restore: $cached pages cached,"
say "  pgfincore's page maps: $PGF_BITS pages set; os_map equals the map: $SAME_MAP"
[ "$cached" = "$HALF_PAGES" ] && [ "$PGF_BITS" = "$HALF_PAGES" ] ||
    say "  NOTE: the half state is not exactly the map"
R_TARGET_HALF=$(calc "int($HALF_PAGES * 0.99 + 0.999999)")
M_RESTORE='cachectl.os_restore'
M_LOADER='pgfadvise_loader'
FIGURE=restore_half
for ((rep = 1; rep <= REPS; rep++)); do
    say " round $rep"
    load "$M_RESTORE" "$R_TARGET_HALF" "${PSQL[@]}" -c "SELECT 'seconds=' || seconds || ' loaded=' || os_blocks_loaded || ' pending=' || os_pages_pending FROM cachectl.os_restore('t', (SELECT map FROM bench_map), fork => 'main')"
    load "$M_LOADER" "$R_TARGET_HALF" "${PSQL[@]}" -c "SELECT 'loaded=' || sum(l.pages_loaded) FROM pgf_map m, LATERAL pgfadvise_loader('t', 'main', m.segment, true, false, m.databit) l"
done

# ---------------------------------------------------------------------------
say ""
say "4. block map of 1 TiB: table big, first segment and $((BIG_SEGMENTS - 1)) more extended to 1 GiB with truncate (sparse)"
sql -c "CREATE TABLE big (id int)" -c "INSERT INTO big VALUES (1)" -c "CHECKPOINT"
B_PATH=$DATA/$(sql -c "SELECT pg_relation_filepath('big')")
B_FILES=("$B_PATH")
for ((seg = 1; seg < BIG_SEGMENTS; seg++)); do
    B_FILES+=("$B_PATH.$seg")
done
as_postgres truncate -s 1G "${B_FILES[@]}"
B_SIZE=$(sql -c "SELECT pg_relation_size('big')")
say "  relation size    : big = $B_SIZE bytes ($(calc "$B_SIZE / 1099511627776") TiB), ${#B_FILES[@]} segment files"

# map_call LABEL EXPRESSION — the expression's time inside the server and
# the backend's peak memory growth: its peak RSS counter (VmHWM) is reset
# to the current RSS just before (clear_refs), and read after.
map_call() {
    local label=$1 expr=$2 out
    out=$(sql <<SQL
SELECT pg_backend_pid() AS pid \gset
\setenv BENCH_PID :pid
SELECT cachectl.os_page_size() IS NOT NULL AS loaded, count(*) >= 0 AS warm FROM pgfincore('pg_class', 'main', true) \gset
\! echo 5 > /proc/\$BENCH_PID/clear_refs 2>/dev/null; awk '/^VmRSS/ { print "before_rss", \$2 }' /proc/\$BENCH_PID/status
DO \$bench\$
DECLARE
    t0 timestamptz;
    n  bigint;
BEGIN
    t0 := clock_timestamp();
    n := ($expr);
    PERFORM set_config('bench.ms', (extract(epoch FROM clock_timestamp() - t0) * 1000)::text, false);
    PERFORM set_config('bench.bits', n::text, false);
END
\$bench\$;
SELECT 'result ' || current_setting('bench.ms') || ' ' || current_setting('bench.bits');
\! awk '/^VmHWM/ { print "after_hwm", \$2 }' /proc/\$BENCH_PID/status
SQL
)
    local ms bits rss hwm
    read -r _ ms bits <<<"$(grep '^result' <<<"$out")"
    rss=$(awk '/^before_rss/ { print $2 }' <<<"$out")
    hwm=$(awk '/^after_hwm/ { print $2 }' <<<"$out")
    MAP_MS=$ms
    MAP_MB=$(calc "($hwm - $rss) / 1024")
    printf '  %-40s %10.1f ms  %8.1f MB peak growth  (%s bits or pages)\n' "$label" "$ms" "$MAP_MB" "$bits"
}
map_call "cachectl.os_map ($ENGINE)" "SELECT length(cachectl.os_map('big', fork => 'main'))"
OURS_MAP_MS=$MAP_MS OURS_MAP_MB=$MAP_MB
emit_sample os_map_sparse "cachectl.os_map ($ENGINE)" "$BIG_SEGMENTS" "$MAP_MS" ms
emit_sample os_map_sparse_memory "cachectl.os_map ($ENGINE)" "$BIG_SEGMENTS" "$MAP_MB" MB
map_call "cachectl.os_map (mincore)" "SELECT length(m) FROM (SELECT set_config('cachectl.os_engine', 'mincore', true), cachectl.os_map('big', fork => 'main') AS m) s"
MINCORE_MAP_MS=$MAP_MS MINCORE_MAP_MB=$MAP_MB
emit_sample os_map_sparse "cachectl.os_map (mincore)" "$BIG_SEGMENTS" "$MAP_MS" ms
emit_sample os_map_sparse_memory "cachectl.os_map (mincore)" "$BIG_SEGMENTS" "$MAP_MB" MB
map_call "pgfincore(.., getdatabit => true)" "SELECT sum(length(databit)) FROM pgfincore('big', 'main', true)"
PGF_MAP_MS=$MAP_MS PGF_MAP_MB=$MAP_MB
emit_sample os_map_sparse "pgfincore databit" "$BIG_SEGMENTS" "$MAP_MS" ms
emit_sample os_map_sparse_memory "pgfincore databit" "$BIG_SEGMENTS" "$MAP_MB" MB
sql -c "DROP TABLE big" -c "CHECKPOINT"

# ---------------------------------------------------------------------------
say ""
say "5. results (medians of $REPS runs; MB/s = bytes of the target / seconds until 99% of it was cached)"
line=$(printf '%.0s-' {1..118})
printf '%-30s %11s %11s %12s %11s %10s %9s %9s\n' method 'returned s' 'cached then' 'until 99% s' 'cached end' 'MB/s' 'vs cat' 'vs floor'
say "$line"
summary "$M_CAT"; CAT_S=$S_TARGET
summary "$M_FLOOR"; FLOOR_S=$S_TARGET
for name in "$M_OURS" "$M_PREWARM" "$M_PGF" "$M_CAT" "$M_FLOOR"; do
    summary "$name"
    if [ "$S_TARGET" = -1 ]; then
        mbs='-' vs_cat='-' vs_floor='-' until='never'
    else
        until=$S_TARGET
        mbs=$(calc "$TARGET * $PAGE_SIZE / 1e6 / $S_TARGET")
        vs_cat=$(calc "$CAT_S > 0 ? $CAT_S / $S_TARGET : 0")
        vs_floor=$(calc "$FLOOR_S > 0 ? $S_TARGET / $FLOOR_S : 0")
    fi
    printf '%-30s %11.3f %10.2f%% %12s %10.2f%% %10s %9s %9s\n' "$name" "$S_EXIT" \
        "$(calc "100 * $S_EXIT_PAGES / $TOTAL_PAGES")" "$until" "$(calc "100 * $S_FINAL / $TOTAL_PAGES")" \
        "$([ "$mbs" = - ] && echo - || printf '%.0f' "$mbs")" \
        "$([ "$vs_cat" = - ] && echo - || printf '%.2fx' "$vs_cat")" \
        "$([ "$vs_floor" = - ] && echo - || printf '%.2fx' "$vs_floor")"
    if [ "$name" = "$M_OURS" ]; then
        OURS_S=$S_TARGET OURS_EXIT_MIN=$S_EXIT_MIN
    fi
done
say "$line"
printf '%-30s %11s %11s %12s %11s\n' 'restore half (target pages)' 'returned s' 'cached then' 'until 99% s' 'cached end'
for name in "$M_RESTORE" "$M_LOADER"; do
    summary "$name"
    printf '%-30s %11.3f %11s %12s %11s\n' "$name" "$S_EXIT" "$S_EXIT_PAGES" \
        "$([ "$S_TARGET" = -1 ] && echo never || echo "$S_TARGET")" "$S_FINAL"
    [ "$name" = "$M_RESTORE" ] && RESTORE_S=$S_TARGET
    [ "$name" = "$M_LOADER" ] && LOADER_S=$S_TARGET
done
say "  (of $HALF_PAGES pages in the map)"
say "$line"
printf '%-40s %10s %12s\n' "$BIG_SEGMENTS GiB sparse block map" ms 'MB peak'
printf '%-40s %10.1f %12.1f\n' "cachectl.os_map ($ENGINE)" "$OURS_MAP_MS" "$OURS_MAP_MB"
printf '%-40s %10.1f %12.1f\n' "cachectl.os_map (mincore)" "$MINCORE_MAP_MS" "$MINCORE_MAP_MB"
printf '%-40s %10.1f %12.1f\n' "pgfincore(.., getdatabit => true)" "$PGF_MAP_MS" "$PGF_MAP_MB"
say "$line"

verdict() { if [ "$(calc "($1) ? 1 : 0")" = 1 ]; then echo PASS; else echo MISS; fi; }
ours_ok=$([ "$OURS_S" = -1 ] && echo 0 || echo 1)
say "goals:"
printf '  %-4s  os_prefetch >= %s%% cached when it returns (worst of %d runs): %.2f%%\n' \
    "$(verdict "$OURS_EXIT_MIN >= $GOAL_SHARE * $TOTAL_PAGES")" "$(calc "$GOAL_SHARE * 100")" "$REPS" \
    "$(calc "100 * $OURS_EXIT_MIN / $TOTAL_PAGES")"
printf '  %-4s  os_prefetch >= %sx the bandwidth of cat: %s\n' \
    "$(verdict "$ours_ok && $CAT_S > 0 && $CAT_S / $OURS_S >= $GOAL_VS_CAT")" "$GOAL_VS_CAT" \
    "$([ "$ours_ok" = 1 ] && printf '%.2fx (%.3f s vs %.3f s)' "$(calc "$CAT_S / $OURS_S")" "$OURS_S" "$CAT_S" || echo 'never reached 99%')"
printf '  %-4s  os_prefetch within %sx of the raw %s MiB-chunk floor: %s\n' \
    "$(verdict "$ours_ok && $FLOOR_S > 0 && $OURS_S / $FLOOR_S <= $GOAL_VS_FLOOR")" "$GOAL_VS_FLOOR" "$CHUNK_MIB" \
    "$([ "$ours_ok" = 1 ] && printf '%.2fx (%.3f s vs %.3f s)' "$(calc "$OURS_S / $FLOOR_S")" "$OURS_S" "$FLOOR_S" || echo 'never reached 99%')"
restore_ok=$([ "$RESTORE_S" = -1 ] && echo 0 || echo 1)
loader_s=$LOADER_S
[ "$loader_s" = -1 ] && loader_s=$TIMEOUT_S
printf '  %-4s  os_restore >= %sx faster than pgfadvise_loader: %s\n' \
    "$(verdict "$restore_ok && $loader_s / $RESTORE_S >= $GOAL_RESTORE")" "$GOAL_RESTORE" \
    "$([ "$restore_ok" = 1 ] && printf '%.1fx (%.3f s vs %s s)' "$(calc "$loader_s / $RESTORE_S")" "$RESTORE_S" "$([ "$LOADER_S" = -1 ] && echo ">$TIMEOUT_S" || echo "$LOADER_S")" || echo 'never reached 99%')"
printf '  %-4s  os_map of 1 TiB sparse < %s ms with <= %s MB: %.1f ms, %.1f MB\n' \
    "$(verdict "$OURS_MAP_MS < $GOAL_MAP_MS && $OURS_MAP_MB <= $GOAL_MAP_MB")" "$GOAL_MAP_MS" "$GOAL_MAP_MB" \
    "$OURS_MAP_MS" "$OURS_MAP_MB"
# shellcheck disable=SC2086  # space-separated numbers
DD_MED=$(median_of $DD_S)
say "  (the device alone, dd iflag=direct over the same files: $(num "$DD_MED") s, $(num "$TOTAL_PAGES * $PAGE_SIZE / 1e6 / $DD_MED" 0) MB/s)"

# The same goals, as machine-readable lines (ratios as in the lines above).
emit_goal "os_prefetch >= $(calc "$GOAL_SHARE * 100")% cached when it returns (worst run)" \
    "$(num "100 * $OURS_EXIT_MIN / $TOTAL_PAGES" 2)%" '-' '-' "$(verdict "$OURS_EXIT_MIN >= $GOAL_SHARE * $TOTAL_PAGES")"
if [ "$ours_ok" = 1 ]; then
    emit_goal "os_prefetch >= ${GOAL_VS_CAT}x the bandwidth of cat (ratio = cat's time / ours, to 99%)" \
        "$(num "$OURS_S") s" "cat $(num "$CAT_S") s" "$(num "$CAT_S / $OURS_S" 2)" \
        "$(verdict "$CAT_S > 0 && $CAT_S / $OURS_S >= $GOAL_VS_CAT")"
    emit_goal "os_prefetch within ${GOAL_VS_FLOOR}x of raw WILLNEED in $CHUNK_MIB MiB chunks (ratio = ours / floor)" \
        "$(num "$OURS_S") s" "floor $(num "$FLOOR_S") s" "$(num "$OURS_S / $FLOOR_S" 2)" \
        "$(verdict "$FLOOR_S > 0 && $OURS_S / $FLOOR_S <= $GOAL_VS_FLOOR")"
else
    emit_goal "os_prefetch >= ${GOAL_VS_CAT}x the bandwidth of cat" 'never reached 99%' "cat $(num "$CAT_S") s" '-' MISS
    emit_goal "os_prefetch within ${GOAL_VS_FLOOR}x of raw WILLNEED" 'never reached 99%' "floor $(num "$FLOOR_S") s" '-' MISS
fi
if [ "$restore_ok" = 1 ]; then
    emit_goal "os_restore >= ${GOAL_RESTORE}x faster than pgfadvise_loader (half the relation, to 99%)" \
        "$(num "$RESTORE_S") s" "$([ "$LOADER_S" = -1 ] && echo "loader >$TIMEOUT_S s" || echo "loader $(num "$LOADER_S") s")" \
        "$(num "$loader_s / $RESTORE_S" 2)" "$(verdict "$loader_s / $RESTORE_S >= $GOAL_RESTORE")"
else
    emit_goal "os_restore >= ${GOAL_RESTORE}x faster than pgfadvise_loader" 'never reached 99%' "loader $LOADER_S s" '-' MISS
fi
emit_goal "os_map of a $BIG_SEGMENTS GiB sparse relation < $GOAL_MAP_MS ms with <= $GOAL_MAP_MB MB (goal set for 1 TiB)" \
    "$(num "$OURS_MAP_MS" 1) ms, $(num "$OURS_MAP_MB" 1) MB" "pgfincore $(num "$PGF_MAP_MS" 1) ms, $(num "$PGF_MAP_MB" 1) MB" \
    "$(num "$PGF_MAP_MS / $OURS_MAP_MS" 1)" "$(verdict "$OURS_MAP_MS < $GOAL_MAP_MS && $OURS_MAP_MB <= $GOAL_MAP_MB")"
