#!/usr/bin/env bash
# bench/both_layers.sh — the both-layer functions of issue 7 against what a
# DBA uses today, on a throwaway cluster of its own (shared_buffers = 4GB,
# pg_prewarm preloaded, cachectl.prewarm_max_share = 1):
#
#   1. cachectl.status('t') versus the hand join of pg_buffercache and
#      pgfincore's per-segment block map (databit), on a 2 GiB table with a
#      quarter of its blocks in each of: shared buffers only, both layers,
#      the OS cache only, neither; then (1h) the same with a few pages
#      dropped in every 128 MiB, the holes a host's reclaim leaves;
#   2. the cachectl.database_status view over 10,000 and 100,000 one-row
#      tables (in a database of their own), with the backend's peak memory;
#   3. cachectl.prewarm('t', target => 'shared', fork => 'main') of the cold
#      table versus pg_prewarm('t', 'buffer') (the main fork too) and versus
#      cat of its segment files (each cold: cachectl.cold, or os_drop for
#      cat);
#   4. reloading the shared blocks of a half-warm table after a restart with
#      a cold OS cache: CALL cachectl.restore() of a cachectl.snapshot()
#      taken before the restart, versus pg_prewarm's autoprewarm (from its
#      dump, autoprewarm_dump_now()).
#
# Part 1 needs pgfincore, which Debian packages for its PostgreSQL 15 only:
# against a server without it (a source build of 18) it is left out.
#
# The parts run in the order 1, 3, 4, 2 (2 needs a database of its own and
# is the slowest to build).  Times of SQL calls are taken inside the server
# with clock_timestamp(); cat and the autoprewarm times come from this shell
# and from the server log's millisecond timestamps.
#
# It prints the premises (kernel, file system, the data device's
# read_ahead_kb and max_sectors_kb, shared_buffers, PostgreSQL version, the
# cache state of each case), a summary table and PASS/MISS against the goals
# of issue 7.  It is a benchmark, not a test: it exits 0 unless something
# broke (a failed check, e.g. the hand join and status disagreeing, makes it
# exit 1 after the summary).
#
# Settings (environment): QUICK=1 (small sizes: a 512 MiB table, 1,000 and
# 10,000 small tables, one run per load), REL_BLOCKS (size of t, default
# 262144 = 2 GiB), STATUS_REPS (calls of status timed, default 20),
# JOIN_REPS (calls of the hand join timed, default 5), HOLES_PER_WINDOW (part
# 1h: pages dropped in each 128 MiB of t's files, default 3), LOAD_REPS (cold loads
# per tool in part 3, default 3), SMALL_COUNTS (table counts of part 2,
# default "10000 100000"), WARM_CHUNK_BLOCKS (part 4: the half-warm table is
# every chunk of this many blocks chosen with probability 1/2, default 16),
# SHARED_BUFFERS (default 4GB), PARTS (the parts to run, default "1 2 3 4";
# e.g. PARTS=1 for status alone), PG_CONFIG, TMPDIR.  Run as root (the cluster
# runs as postgres, and the OS cache of its files is dropped between
# restarts) or as the postgres user.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    REL_BLOCKS=${REL_BLOCKS:-65536}
    SMALL_COUNTS=${SMALL_COUNTS:-"1000 10000"}
    LOAD_REPS=${LOAD_REPS:-1}
    STATUS_REPS=${STATUS_REPS:-10}
    JOIN_REPS=${JOIN_REPS:-2}
fi
REL_BLOCKS=${REL_BLOCKS:-262144}
SMALL_COUNTS=${SMALL_COUNTS:-"10000 100000"}
LOAD_REPS=${LOAD_REPS:-3}
STATUS_REPS=${STATUS_REPS:-20}
JOIN_REPS=${JOIN_REPS:-5}
HOLES_PER_WINDOW=${HOLES_PER_WINDOW:-3}
WARM_CHUNK_BLOCKS=${WARM_CHUNK_BLOCKS:-16}
SHARED_BUFFERS=${SHARED_BUFFERS:-4GB}
PARTS=${PARTS:-"1 2 3 4"}
part() { [[ " $PARTS " == *" $1 "* ]]; }

GOAL_STATUS=20          # status at least this many times faster than the hand join
GOAL_PREWARM=2          # prewarm at least this many times faster than pg_prewarm buffer
GOAL_RESTORE=2          # restore at least this many times faster than autoprewarm
# database_status: this many tables within this many seconds
declare -A GOAL_DBSTATUS_S=([10000]=1 [100000]=10)

bench_start both_layers

median() { tr -s ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
verdict() { if [ "$(calc "($1) ? 1 : 0")" = 1 ]; then echo PASS; else echo MISS; fi; }
CHECK_FAILURES=0
check() {   # check CONDITION(awk) MESSAGE
    if [ "$(calc "($1) ? 1 : 0")" != 1 ]; then
        say "  CHECK FAILED: $2"
        CHECK_FAILURES=$((CHECK_FAILURES + 1))
    fi
}


# Milliseconds since the epoch of a server log line with log_line_prefix '%m '.
log_ms() { date -d "$(cut -d' ' -f1-3 <<<"$1")" +%s%3N; }

# ---------------------------------------------------------------------------
# pg_prewarm is preloaded (autoprewarm off until part 4).  wal_level =
# minimal: the tables are created and filled without WAL.
cluster_start "$WORK" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
    "wal_level = minimal" "max_wal_senders = 0" "shared_preload_libraries = 'pg_prewarm'" \
    "pg_prewarm.autoprewarm = off" "cachectl.prewarm_max_share = 1" \
    "log_line_prefix = '%m [%p] '" "logging_collector = off" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pg_prewarm" \
    -c "CREATE EXTENSION pg_buffercache"
# pgfincore, part 1's anchor, is packaged for Debian's PostgreSQL 15 only:
# on a server without it (a source build of 18) part 1 is left out.
HAVE_PGFINCORE=0
sql -c "CREATE EXTENSION pgfincore" >/dev/null 2>&1 && HAVE_PGFINCORE=1

restart_server() {   # restart_server — fast stop, start; waits until it accepts connections
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -m fast -w restart >/dev/null
}

read -r DEV_SOURCE DEV_NAME <<<"$(device_of "$DATA")"
READ_AHEAD_KB=$(cat "/sys/class/block/$DEV_NAME/queue/read_ahead_kb" 2>/dev/null || echo '?')
MAX_SECTORS_KB=$(cat "/sys/class/block/$DEV_NAME/queue/max_sectors_kb" 2>/dev/null || echo '?')
FS_TYPE=$(filesystem_of "$DATA")
NBUFFERS=$(sql -c "SELECT setting FROM pg_settings WHERE name = 'shared_buffers'")
ENGINE=$(sql -c "SELECT cachectl.os_engine()")
PAGE_SIZE=$(getconf PAGESIZE)
CLK_TCK=$(getconf CLK_TCK)
HUGE_PAGES=$(sql -c "SHOW huge_pages")
HUGE_TOTAL=$(awk '/HugePages_Total/ { print $2 }' /proc/meminfo)

say "pg_cachectl both-layer benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
say "  machine        : Linux $(machine_summary), OS page $PAGE_SIZE bytes"
say "  data directory : $FS_TYPE on $DEV_SOURCE (device $DEV_NAME: read_ahead_kb=$READ_AHEAD_KB, max_sectors_kb=$MAX_SECTORS_KB)"
say "  PostgreSQL     : $(sql -c "SELECT version()" | cut -d, -f1)"
say "  shared buffers : $SHARED_BUFFERS = $NBUFFERS buffers; cachectl.prewarm_max_share = 1; OS engine: $ENGINE"
say "  load average   : $(cut -d' ' -f1-3 /proc/loadavg) at the start (the machine is shared: CPU-bound loads vary with it)"
emit_info postgresql "$(sql -c "SHOW server_version")"
emit_info shared_buffers "$SHARED_BUFFERS"
say "  settings       : wal_level=minimal, autovacuum off, shared_preload_libraries=pg_prewarm,"
say "                   huge_pages=$HUGE_PAGES with HugePages_Total=$HUGE_TOTAL (so the pool is mapped in 4 KB pages)"

# One call of a query returning one text value, timed inside the server (no
# warm-up: for loads from a cold cache), with the CPU time the backend used
# meanwhile (user + system, from /proc/self/stat, in clock ticks).  Created
# in each database used.
# shellcheck disable=SC2016  # SQL, dollar-quoted
BENCH_ONCE_SQL='
CREATE FUNCTION bench_cpu_ticks() RETURNS int8
LANGUAGE sql AS $fn$
    SELECT split_part(s, $s$ $s$, 12)::int8 + split_part(s, $s$ $s$, 13)::int8
      FROM (SELECT regexp_replace(pg_read_file($f$/proc/self/stat$f$), $r$^.*\) $r$, $e$$e$) AS s) st
$fn$;
CREATE FUNCTION bench_once(query text, OUT ms float8, OUT result text, OUT cpu_ticks int8)
LANGUAGE plpgsql AS $$
DECLARE
    c0 int8 := bench_cpu_ticks();
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE query INTO result;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    cpu_ticks := bench_cpu_ticks() - c0;
END $$;'
sql -c "$BENCH_ONCE_SQL"

# Timing helper, inside the server: one untimed call, then reps calls of a
# query returning one text value; the mean time and the last value.
sql <<'SQL'
CREATE FUNCTION bench_time(query text, reps int, OUT ms float8, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
BEGIN
    EXECUTE query INTO result;
    t0 := clock_timestamp();
    FOR i IN 1..reps LOOP
        EXECUTE query INTO result;
    END LOOP;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0) / reps;
END $$;


-- Blocks of a relation's main fork: in shared buffers, in the OS cache, in both.
CREATE FUNCTION layers(rel regclass, OUT shared int8, OUT os int8, OUT both_layers int8)
LANGUAGE sql AS $$
    SELECT shared_blocks, os_blocks, both_blocks FROM cachectl.status(rel) WHERE fork = 'main'
$$;
SQL
if [ "$HAVE_PGFINCORE" = 1 ]; then
sql <<'SQL'
-- What a DBA writes today: pg_buffercache's buffers of the relation's main
-- fork, each looked up in pgfincore's map of the segment file holding it.
-- pgfincore returns one row per 1 GiB segment (numbered from 0) with databit,
-- one bit per OS page of that file (bit 0 = the file's first page), so
-- block b lives in segment b / blocks_per_segment and is in the OS cache
-- when both of its pages are: bits 2k and 2k+1, k = b % blocks_per_segment
-- (pages_per_block = block_size / os_page_size = 2 here).  os_blocks counts
-- blocks with both pages cached, with bit operations on the whole map:
-- databit & (databit << 1) has bit i set when pages i and i+1 are cached;
-- the mask keeps the even i (the first page of each block).
CREATE FUNCTION hand_join(rel regclass,
    OUT blocks int8, OUT shared_blocks int8, OUT os_blocks int8, OUT both_blocks int8,
    OUT shared_dirty_blocks int8)
LANGUAGE sql AS $$
WITH facts AS (
    SELECT current_setting('block_size')::int AS block_size,
           pg_size_bytes(current_setting('segment_size'))
               / current_setting('block_size')::int AS blocks_per_segment
),
segments AS MATERIALIZED (
    SELECT f.segment, f.databit
      FROM pgfincore(rel, 'main', true) f
),
buffers AS MATERIALIZED (
    SELECT b.relblocknumber::int8 AS block, b.isdirty
      FROM pg_buffercache b, pg_class c, pg_database d
     WHERE c.oid = rel
       AND d.datname = current_database()
       AND b.reldatabase = d.oid
       AND b.reltablespace = coalesce(nullif(c.reltablespace, 0), d.dattablespace)
       AND b.relfilenode = pg_relation_filenode(rel)
       AND b.relforknumber = 0
)
SELECT
    pg_relation_size(rel, 'main') / (SELECT block_size FROM facts),
    (SELECT count(*) FROM buffers),
    (SELECT coalesce(sum(bit_count(s.databit & (s.databit << 1)
                                   & repeat('10', length(s.databit) / 2)::varbit)), 0)::int8
       FROM segments s),
    (SELECT count(*)
       FROM buffers b
       CROSS JOIN facts
       JOIN segments s ON s.segment = b.block / facts.blocks_per_segment
      WHERE get_bit(s.databit, (2 * (b.block % facts.blocks_per_segment))::int) = 1
        AND get_bit(s.databit, (2 * (b.block % facts.blocks_per_segment) + 1)::int) = 1),
    (SELECT count(*) FILTER (WHERE isdirty) FROM buffers)
$$;
SQL
PAGES_PER_BLOCK=$(sql -c "SELECT current_setting('block_size')::int / $PAGE_SIZE")
[ "$PAGES_PER_BLOCK" = 2 ] || die "the hand join is written for 2 OS pages per block; this machine has $PAGES_PER_BLOCK"
fi

# ---------------------------------------------------------------------------
say ""
say "building table t: $REL_BLOCKS blocks (two ~4 KB rows per block, STORAGE PLAIN, one transaction)"
build_table_t "$REL_BLOCKS"
T_GIB=$(fmt "$T_BLOCKS * 8192 / 1073741824" 2)
find_t_files
say "  t: $T_BLOCKS blocks ($T_GIB GiB, ${#T_FILES[@]} segment files) in $(fmt "$T_BUILD_S") s"
check "$T_BLOCKS == $REL_BLOCKS" "t has $T_BLOCKS blocks, expected $REL_BLOCKS"
Q1=$((T_BLOCKS / 4)) H=$((T_BLOCKS / 2)) Q3=$((3 * T_BLOCKS / 4))

# ---------------------------------------------------------------------------
say ""
if part 1 && [ "$HAVE_PGFINCORE" = 1 ]; then
say "1. status('t') versus the hand join of pg_buffercache and pgfincore's databit"
say "   state: t cold (cachectl.cold), then blocks [0, $H) read into shared buffers with their OS copy"
say "   dropped, then blocks [$Q1, $Q3) into the OS cache (os_prefetch, waiting until every read is done: the"
say "   hand join's mincore counts a page only then): a quarter each shared only, both, OS only, neither"
sql <<SQL >/dev/null
SELECT * FROM cachectl.cold('t');
SELECT * FROM cachectl.prewarm('t', target => 'shared', last_block => $((H - 1)), drop_os_copy => true, fork => 'main');
SELECT * FROM cachectl.os_prefetch('t', first_block => $Q1, last_block => $((Q3 - 1)), fork => 'main', wait => true);
SQL
IFS='|' read -r S_BLOCKS S_SHARED S_OS S_BOTH S_DIRTY <<<"$(sql -c "
    SELECT size_blocks, shared_blocks, os_blocks, both_blocks, shared_dirty_blocks FROM cachectl.status('t') WHERE fork = 'main'")"
IFS='|' read -r J_BLOCKS J_SHARED J_OS J_BOTH J_DIRTY <<<"$(sql -c "SELECT * FROM hand_join('t')")"
say "   status    : blocks=$S_BLOCKS shared=$S_SHARED os=$S_OS both=$S_BOTH shared_dirty_blocks=$S_DIRTY"
say "   hand join : blocks=$J_BLOCKS shared=$J_SHARED os=$J_OS both=$J_BOTH shared_dirty_blocks=$J_DIRTY"
check "$S_BLOCKS == $J_BLOCKS && $S_SHARED == $J_SHARED && $S_OS == $J_OS && $S_BOTH == $J_BOTH && $S_DIRTY == $J_DIRTY" \
    "status and the hand join disagree"
# readahead may round the OS quarter up a little: bounds, not equality
check "$S_SHARED == $H && $S_BOTH >= $Q1 && $S_BOTH <= $Q1 + 2048 && $S_OS >= $H && $S_OS <= $H + 4096" \
    "t is not in the intended state (shared $S_SHARED, both $S_BOTH, os $S_OS)"
IFS='|' read -r STATUS_MS STATUS_RES <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT concat_ws(' ', sum(shared_blocks), sum(both_blocks)) FROM cachectl.status('t')\$q\$, $STATUS_REPS)")"
IFS='|' read -r JOIN_MS JOIN_RES <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT concat_ws(' ', shared_blocks, both_blocks) FROM hand_join('t')\$q\$, $JOIN_REPS)")"
# where the join's time goes: its two sources alone
IFS='|' read -r PGBC_MS _ <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT count(*) FROM pg_buffercache\$q\$, $JOIN_REPS)")"
IFS='|' read -r PGF_MS _ <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT sum(length(databit)) FROM pgfincore('t', 'main', true)\$q\$, $JOIN_REPS)")"
[ "$STATUS_RES" = "$JOIN_RES" ] || check 0 "timed calls: status gave '$STATUS_RES', the hand join '$JOIN_RES' (shared both)"
# where status's time goes: its pass over the pool, and the OS map of the main fork
IFS='|' read -r SHRES_MS _ <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT sum(shared_blocks)::text FROM cachectl.shared_residency('t')\$q\$, $STATUS_REPS)")"
IFS='|' read -r OSMAP_MS _ <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT length(cachectl.os_map('t', fork => 'main'))::text\$q\$, $STATUS_REPS)")"
STATUS_RATIO=$(calc "$JOIN_MS / $STATUS_MS")
# status cannot beat its own pass over the pool: the best ratio it could reach
FLOOR_RATIO=$(calc "$JOIN_MS / $SHRES_MS")
emit_sample status "cachectl.status" "$T_BLOCKS" "$STATUS_MS" ms
emit_sample status "hand join pg_buffercache x pgfincore" "$T_BLOCKS" "$JOIN_MS" ms
printf '   %-44s %10.3f ms/call (%d calls)\n' "cachectl.status('t') (every fork)" "$STATUS_MS" "$STATUS_REPS"
printf '   %-44s %10.3f ms/call\n' "  of which: shared_residency('t') (pool pass)" "$SHRES_MS"
printf '   %-44s %10.3f ms/call\n' "  of which: os_map('t') (main fork)" "$OSMAP_MS"
printf '   %-44s %10.3f ms/call (%d calls)\n' "hand join (main fork)" "$JOIN_MS" "$JOIN_REPS"
printf '   %-44s %10.3f ms/call\n' "  of which: SELECT count(*) FROM pg_buffercache" "$PGBC_MS"
printf '   %-44s %10.3f ms/call\n' "  of which: pgfincore('t', 'main', true)" "$PGF_MS"
say "   ratio: hand join / status = $(fmt "$STATUS_RATIO")x; hand join / pool pass alone = $(fmt "$FLOOR_RATIO")x (status's ceiling)"

# The same layout with holes, as a host's reclaim leaves them: a few pages
# dropped in every 128 MiB of t's files (dd iflag=nocache drops what it
# read; a large folio goes whole), so nearly every window is partly cached
# and the OS map must ask mincore where the holes are.
say ""
say "1h. the same with reclaim holes: $HOLES_PER_WINDOW pages dropped in every 128 MiB of the OS-cached half"
# Only pages of the OS-cached blocks [Q1, Q3): a read elsewhere would bring
# its readahead in.
holes_made=0
blocks_per_file=$((1073741824 / 8192))
for i in "${!T_FILES[@]}"; do
    f=${T_FILES[$i]}
    pages=$(( $(stat -c %s "$f") / 4096 ))
    window_pages=32768
    for ((first = 0; first < pages; first += window_pages)); do
        span=$(( pages - first < window_pages ? pages - first : window_pages ))
        for ((k = 1; k <= HOLES_PER_WINDOW; k++)); do
            # spread over the window, away from its edges
            page=$(( first + k * span / (HOLES_PER_WINDOW + 1) ))
            block=$(( i * blocks_per_file + page / 2 ))
            [ "$block" -ge "$Q1" ] && [ "$block" -lt "$Q3" ] || continue
            dd if="$f" of=/dev/null bs=4096 count=1 skip="$page" iflag=nocache status=none
            holes_made=$((holes_made + 1))
        done
    done
done
IFS='|' read -r H_SHARED H_OS H_BOTH <<<"$(sql -c "SELECT shared_blocks, os_blocks, both_blocks FROM cachectl.status('t') WHERE fork = 'main'")"
IFS='|' read -r _ HJ_SHARED HJ_OS HJ_BOTH _ <<<"$(sql -c "SELECT * FROM hand_join('t')")"
say "   $holes_made pages dropped: os_blocks $S_OS -> $H_OS, both_blocks $S_BOTH -> $H_BOTH"
say "   status    : shared=$H_SHARED os=$H_OS both=$H_BOTH"
say "   hand join : shared=$HJ_SHARED os=$HJ_OS both=$HJ_BOTH"
check "$H_SHARED == $HJ_SHARED && $H_OS == $HJ_OS && $H_BOTH == $HJ_BOTH" "with holes, status and the hand join disagree"
check "$H_OS < $S_OS" "the holes dropped nothing (os_blocks $S_OS before, $H_OS after)"
IFS='|' read -r HOLE_STATUS_MS HOLE_STATUS_RES <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT concat_ws(' ', sum(shared_blocks), sum(both_blocks)) FROM cachectl.status('t')\$q\$, $STATUS_REPS)")"
IFS='|' read -r HOLE_JOIN_MS HOLE_JOIN_RES <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT concat_ws(' ', shared_blocks, both_blocks) FROM hand_join('t')\$q\$, $JOIN_REPS)")"
# the host's reclaim may take pages between the two timed loops: said, not failed
[ "$HOLE_STATUS_RES" = "$HOLE_JOIN_RES" ] ||
    say "   (timed calls with holes: status's last gave '$HOLE_STATUS_RES', the hand join's '$HOLE_JOIN_RES' a few seconds later: reclaim meanwhile)"
IFS='|' read -r HOLE_OSMAP_MS _ <<<"$(sql -c "SELECT ms, result FROM bench_time(
    \$q\$SELECT length(cachectl.os_map('t', fork => 'main'))::text\$q\$, $STATUS_REPS)")"
IFS='|' read -r HOLE_CSTAT_MS _ <<<"$(sql -c "SET cachectl.os_engine = 'cachestat';
    SELECT ms, result FROM bench_time(\$q\$SELECT sum(os_pages)::text FROM cachectl.os_residency('t')\$q\$, $STATUS_REPS);
    RESET cachectl.os_engine" | tail -n 1)"
HOLE_RATIO=$(calc "$HOLE_JOIN_MS / $HOLE_STATUS_MS")
emit_sample status_holes "cachectl.status" "$T_BLOCKS" "$HOLE_STATUS_MS" ms
emit_sample status_holes "hand join pg_buffercache x pgfincore" "$T_BLOCKS" "$HOLE_JOIN_MS" ms
printf '   %-44s %10.3f ms/call (%d calls)\n' "cachectl.status('t') (every fork)" "$HOLE_STATUS_MS" "$STATUS_REPS"
printf '   %-44s %10.3f ms/call\n' "  of which: os_map('t') (main fork)" "$HOLE_OSMAP_MS"
printf '   %-44s %10.3f ms/call\n' "os_residency('t'), cachestat only (no map)" "$HOLE_CSTAT_MS"
printf '   %-44s %10.3f ms/call (%d calls)\n' "hand join (main fork)" "$HOLE_JOIN_MS" "$JOIN_REPS"
say "   ratio: hand join / status = $(fmt "$HOLE_RATIO")x"
elif part 1; then
say "1. status('t') versus the hand join: left out, pgfincore is not installed for this server"
fi

# ---------------------------------------------------------------------------
if part 3; then
say ""
say "3. loading the cold table into shared buffers ($LOAD_REPS round(s), interleaved)"
say "   each load starts cold: cachectl.cold('t') (evict, write back, DONTNEED) before prewarm and"
say "   pg_prewarm; cachectl.os_drop('t') before cat; checked with status before and after"
PW_OURS='' PW_CORE='' PW_CAT='' PW_OS='' CPU_OURS='' CPU_CORE=''
# emit_load SERIES MS — a cold load of t: its time and its bandwidth
emit_load() {
    emit_sample load_shared "$1" "$T_BLOCKS" "$2" ms
    emit_sample load_shared_bandwidth "$1" "$T_BLOCKS" "$(calc "$T_BLOCKS * 8192 / 1e3 / $2")" MB/s
}
cold_t() {
    local left
    left=$(sql -c "SELECT coalesce(sum(shared_blocks_left), 0) + coalesce(sum(os_pages_left), 0) FROM cachectl.cold('t')")
    check "$left == 0" "cold('t') left $left blocks/pages"
    IFS='|' read -r l_shared l_os _ <<<"$(sql -c "SELECT * FROM layers('t')")"
    check "$l_shared == 0 && $l_os == 0" "t not cold: shared $l_shared, os $l_os"
}
for ((round = 1; round <= LOAD_REPS; round++)); do
    cold_t
    IFS='|' read -r ms res cpu <<<"$(sql -c "SELECT ms, result, cpu_ticks FROM bench_once(
        \$q\$SELECT sum(shared_blocks_loaded)::text FROM cachectl.prewarm('t', target => 'shared', fork => 'main')\$q\$)")"
    IFS='|' read -r l_shared _ _ <<<"$(sql -c "SELECT * FROM layers('t')")"
    check "$res == $T_BLOCKS && $l_shared == $T_BLOCKS" "prewarm loaded $res, $l_shared in shared buffers"
    printf '   round %d %-40s %9.1f ms  %7.0f MB/s  (%s blocks loaded; backend CPU %.0f ms)\n' "$round" \
        "cachectl.prewarm(target => 'shared')" "$ms" "$(calc "$T_BLOCKS * 8192 / 1e3 / $ms")" "$res" "$(calc "1000 * $cpu / $CLK_TCK")"
    PW_OURS+=" $ms" CPU_OURS+=" $(calc "1000 * $cpu / $CLK_TCK")"
    emit_load "cachectl.prewarm (shared)" "$ms"

    cold_t
    IFS='|' read -r ms res cpu <<<"$(sql -c "SELECT ms, result, cpu_ticks FROM bench_once(
        \$q\$SELECT pg_prewarm('t', 'buffer')::text\$q\$)")"
    IFS='|' read -r l_shared _ _ <<<"$(sql -c "SELECT * FROM layers('t')")"
    check "$res == $T_BLOCKS && $l_shared == $T_BLOCKS" "pg_prewarm loaded $res, $l_shared in shared buffers"
    printf '   round %d %-40s %9.1f ms  %7.0f MB/s  (%s blocks loaded; backend CPU %.0f ms)\n' "$round" \
        "pg_prewarm('t', 'buffer')" "$ms" "$(calc "$T_BLOCKS * 8192 / 1e3 / $ms")" "$res" "$(calc "1000 * $cpu / $CLK_TCK")"
    PW_CORE+=" $ms" CPU_CORE+=" $(calc "1000 * $cpu / $CLK_TCK")"
    emit_load "pg_prewarm buffer" "$ms"

    cold_t
    IFS='|' read -r ms res cpu <<<"$(sql -c "SELECT ms, result, cpu_ticks FROM bench_once(
        \$q\$SELECT sum(os_blocks_loaded)::text FROM cachectl.prewarm('t', target => 'os', fork => 'main')\$q\$)")"
    printf '   round %d %-40s %9.1f ms  %7.0f MB/s  (%s blocks, OS cache only; backend CPU %.0f ms)\n' "$round" \
        "cachectl.prewarm(target => 'os')" "$ms" "$(calc "$T_BLOCKS * 8192 / 1e3 / $ms")" "$res" "$(calc "1000 * $cpu / $CLK_TCK")"
    PW_OS+=" $ms"
    emit_load "cachectl.prewarm (os)" "$ms"

    cold_t
    t0=$(now_us)
    cat "${T_FILES[@]}" >/dev/null
    t1=$(now_us)
    ms=$(calc "($t1 - $t0) / 1000")
    printf '   round %d %-40s %9.1f ms  %7.0f MB/s\n' "$round" "cat of the ${#T_FILES[@]} segment files" \
        "$ms" "$(calc "$T_BLOCKS * 8192 / 1e3 / $ms")"
    PW_CAT+=" $ms"
    emit_load "cat (one stream)" "$ms"
done
# The device's raw sequential bandwidth, without the page cache: O_DIRECT
# reads of the same files in 8 MiB requests.
cold_t
t0=$(now_us)
for f in "${T_FILES[@]}"; do dd if="$f" of=/dev/null bs=8M iflag=direct status=none; done
t1=$(now_us)
DD_MS=$(calc "($t1 - $t0) / 1000")
emit_load "dd iflag=direct (device)" "$DD_MS"
printf '   %-48s %9.1f ms  %7.0f MB/s\n' "dd iflag=direct bs=8M (device, no page cache)" "$DD_MS" "$(calc "$T_BLOCKS * 8192 / 1e3 / $DD_MS")"
OURS_MS=$(median "$PW_OURS") CORE_MS=$(median "$PW_CORE") CAT_MS=$(median "$PW_CAT") OSPW_MS=$(median "$PW_OS")
PREWARM_RATIO=$(calc "$CORE_MS / $OURS_MS")
say "   medians: prewarm $(fmt "$OURS_MS") ms, pg_prewarm $(fmt "$CORE_MS") ms, cat $(fmt "$CAT_MS") ms; pg_prewarm / prewarm = $(fmt "$PREWARM_RATIO" 2)x"
OURS_CPU=$(median "$CPU_OURS") CORE_CPU=$(median "$CPU_CORE")
say "   backend CPU (median): prewarm $(fmt "$OURS_CPU" 0) ms of $(fmt "$OURS_MS" 0), pg_prewarm $(fmt "$CORE_CPU" 0) ms of $(fmt "$CORE_MS" 0):"
say "   both loads are CPU-bound when the CPU time is close to the elapsed time (copying each 8 KB block from"
say "   the page cache into a buffer, and first-touch faults on the pool's 4 KB pages in a new backend)"
fi

# ---------------------------------------------------------------------------
if part 4; then
say ""
say "4. reloading the shared blocks of a half-warm table after a restart (cold OS cache)"
sql <<SQL >/dev/null
SELECT * FROM cachectl.cold('t');
SELECT setseed(0.42);
CREATE TABLE bench_warm AS
    SELECT range_agg(int8range(c * $WARM_CHUNK_BLOCKS, (c + 1) * $WARM_CHUNK_BLOCKS)) AS runs
      FROM generate_series(0, $T_BLOCKS / $WARM_CHUNK_BLOCKS - 1) c
     WHERE random() < 0.5;
SELECT * FROM cachectl_internal.prewarm_runs('t', 'main', (SELECT runs FROM bench_warm), 'shared');
-- the snapshot restore() loads back, and the same runs kept for the checks
SELECT * FROM cachectl.snapshot('bench', ARRAY['t'::regclass]);
CREATE TABLE bench_snapshot AS
    SELECT range_agg(int8range(first_block, first_block + block_count)) AS runs,
           sum(block_count)::int8 AS blocks, count(*) AS run_count
      FROM cachectl_internal.shared_block_runs(ARRAY['t'::regclass])
     WHERE fork = 'main';
SELECT autoprewarm_dump_now();
CHECKPOINT;
SQL
IFS='|' read -r SNAP_BLOCKS SNAP_RUNS SNAP_TOTAL_BUFFERS WARM_BLOCKS <<<"$(sql -c "
    SELECT blocks, run_count, (SELECT count(*) FROM pg_buffercache WHERE relfilenode IS NOT NULL),
           (SELECT sum(upper(r) - lower(r)) FROM bench_warm, unnest(bench_warm.runs) r)
      FROM bench_snapshot")"
say "   state: t cold, then every $WARM_CHUNK_BLOCKS-block chunk with probability 1/2 (setseed 0.42) loaded into"
say "   shared buffers: $SNAP_BLOCKS blocks of $T_BLOCKS in $SNAP_RUNS runs; $SNAP_TOTAL_BUFFERS buffers in use in the whole pool"
say "   (autoprewarm_dump_now() dumps them all; shared_block_runs(ARRAY['t']) keeps t's runs in a table)"
check "$SNAP_BLOCKS == $WARM_BLOCKS" "shared_block_runs found $SNAP_BLOCKS blocks, prewarm_runs was given $WARM_BLOCKS"
check "$SNAP_BLOCKS >= 0.45 * $T_BLOCKS && $SNAP_BLOCKS <= 0.55 * $T_BLOCKS" "half-warm state has $SNAP_BLOCKS blocks"

# cold_restart AUTOPREWARM — stop, write back and drop the cluster's files
# from the OS cache, start; sets LOG_FROM (the server log's line count
# before the start).
cold_restart() {
    local dropped_left
    sql -c "ALTER SYSTEM SET pg_prewarm.autoprewarm = $1" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
    sync -f "$DATA/PG_VERSION"
    # vmtouch -e: DONTNEED on every file of the data directory (all clean after the sync)
    vmtouch -q -e "$DATA"
    dropped_left=$(vmtouch "${T_FILES[@]}" | awk '/Resident Pages:/ { split($3, a, "/"); print a[1] }')
    check "$dropped_left == 0" "$dropped_left pages of t still cached after vmtouch -e"
    LOG_FROM=$(wc -l <"$CLUSTER_DIR/server.log")
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -w start >/dev/null
}
log_line() { tail -n +$((LOG_FROM + 1)) "$CLUSTER_DIR/server.log" | grep -m1 -- "$1" || true; }

# autoprewarm: from the start to its "successfully prewarmed" line
cold_restart on
APW_LINE=''
for _ in $(seq 1 1200); do
    APW_LINE=$(log_line 'autoprewarm successfully prewarmed')
    [ -n "$APW_LINE" ] && break
    sleep 0.1
done
[ -n "$APW_LINE" ] || die "autoprewarm did not log its result within 120 s"
READY_LINE=$(log_line 'database system is ready to accept connections')
STARTING_LINE=$(log_line 'starting PostgreSQL')
APW_DONE=$(log_ms "$APW_LINE") APW_READY=$(log_ms "$READY_LINE") APW_START=$(log_ms "$STARTING_LINE")
APW_LOAD_MS=$((APW_DONE - APW_READY)) APW_TOTAL_MS=$((APW_DONE - APW_START))
APW_COUNTS=$(sed -E 's/.*prewarmed ([0-9]+) of ([0-9]+).*/\1 of \2/' <<<"$APW_LINE")
IFS='|' read -r A_SHARED _ _ <<<"$(sql -c "SELECT * FROM layers('t')")"
check "$A_SHARED >= $SNAP_BLOCKS" "after autoprewarm t has $A_SHARED blocks in shared buffers, expected $SNAP_BLOCKS"
say "   autoprewarm                      : prewarmed $APW_COUNTS blocks; ready -> logged $APW_LOAD_MS ms;"
say "                                      postmaster start -> logged $APW_TOTAL_MS ms; t has $A_SHARED blocks in shared buffers"

# ours: CALL cachectl.restore('bench', target => 'shared'), right after the
# start, timed from this shell around psql (its connection included)
cold_restart off
STARTED_US=$(now_us)
RESTORE_ROW=$(sql -c "CALL cachectl.restore('bench', target => 'shared')")
END_US=$(now_us)
RUNS_MS=$(calc "($END_US - $STARTED_US) / 1000")
IFS='|' read -r _ _ _ RESTORE_SHARED _ RESTORE_SECONDS RESTORE_MATCHED <<<"$RESTORE_ROW"
END_MS=$((END_US / 1000))
READY_LINE=$(log_line 'database system is ready to accept connections')
STARTING_LINE=$(log_line 'starting PostgreSQL')
RUNS_START=$(log_ms "$STARTING_LINE")
RUNS_TOTAL_MS=$((END_MS - RUNS_START))
IFS='|' read -r R_SHARED _ _ <<<"$(sql -c "SELECT * FROM layers('t')")"
check "$R_SHARED == $SNAP_BLOCKS" "after restore t has $R_SHARED blocks in shared buffers, expected $SNAP_BLOCKS"
check "\"$RESTORE_MATCHED\" == \"block\"" "restore matched by $RESTORE_MATCHED, expected block"
say "   CALL cachectl.restore('shared')   : $(fmt "$RUNS_MS") ms around psql (restore's own figure: $RESTORE_SECONDS s,"
say "                                      $RESTORE_SHARED blocks loaded); postmaster start -> call returned $RUNS_TOTAL_MS ms"
say "                                      (includes pg_ctl's polling and psql's connection); t has $R_SHARED blocks in shared buffers"
RESTORE_RATIO=$(calc "$APW_LOAD_MS / $RUNS_MS")
emit_sample reload_after_restart "CALL cachectl.restore (shared)" "$SNAP_BLOCKS" "$RUNS_MS" ms
emit_sample reload_after_restart "autoprewarm" "$SNAP_BLOCKS" "$APW_LOAD_MS" ms
RESTORE_RATIO_TOTAL=$(calc "$APW_TOTAL_MS / $RUNS_TOTAL_MS")
say "   ratio autoprewarm / restore: load $(fmt "$RESTORE_RATIO" 2)x, from the start $(fmt "$RESTORE_RATIO_TOTAL" 2)x"
fi

# ---------------------------------------------------------------------------
part 2 || SMALL_COUNTS=''
if part 2; then
say ""
say "2. database_status over many one-row tables (database \"many\", tables s.r_1 ...)"
sql -c "CREATE DATABASE many" >/dev/null
msql() { cluster_psql -d many -At -q "$@"; }
msql -c "CREATE EXTENSION pg_cachectl" -c "CREATE SCHEMA s" -c "$BENCH_ONCE_SQL"
CREATED=0
declare -A DB_MS=() DB_COUNT_MS=() DB_WALL_MS=() DB_PEAK_KB=() DB_CREATE_S=()
for n in $SMALL_COUNTS; do
    t0=$(now_us)
    (msql -v first=$((CREATED + 1)) -v last="$n" <<<"$(small_tables_sql)"
    ) &
    wait $!
    t1=$(now_us)
    CREATED=$n
    DB_CREATE_S[$n]=$(fmt "($t1 - $t0) / 1e6")
    rels=$(msql -c "SELECT count(*) FROM pg_class WHERE relnamespace = 's'::regnamespace")
    check "$rels == $n" "database many has $rels tables in s, expected $n"
    # one session: a warm-up call (loads the module, touches the pool's
    # descriptors and the catalogs), then VmHWM reset to the current RSS via
    # /proc/self/clear_refs, then the timed calls; peak growth = VmHWM - VmRSS
    IFS='|' read -r rows rss_kb ms hwm_kb count_ms <<<"$(msql <<'SQL' | tail -n1
SELECT count(*) FROM cachectl.database_status \g /dev/null
COPY (SELECT 5) TO '/proc/self/clear_refs';
SELECT substring(pg_read_file('/proc/self/status') FROM 'VmRSS:\s+(\d+)') AS rss_kb \gset
SELECT ms, result AS rows FROM bench_once($q$SELECT concat_ws(' ', count(*), sum(size_bytes), sum(shared_bytes), sum(os_bytes), sum(both_bytes)) FROM cachectl.database_status$q$) \gset
SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+)') AS hwm_kb \gset
SELECT ms AS count_ms FROM bench_once($q$SELECT count(*)::text FROM cachectl.database_status$q$) \gset
SELECT :'rows', :'rss_kb', :'ms', :'hwm_kb', :'count_ms';
SQL
)"
    # psql's wall clock for every row of the view, connection included
    t0=$(now_us)
    msql -o /dev/null -c "SELECT * FROM cachectl.database_status"
    t1=$(now_us)
    DB_WALL_MS[$n]=$(calc "($t1 - $t0) / 1000")
    emit_sample database_status "SELECT * to psql" "$n" "${DB_WALL_MS[$n]}" ms
    emit_sample database_status "every column summed in the server" "$n" "$ms" ms
    emit_sample database_status_memory "backend peak growth" "$n" "$(calc "($hwm_kb - $rss_kb) / 1024")" MiB
    DB_MS[$n]=$ms DB_COUNT_MS[$n]=$count_ms DB_PEAK_KB[$n]=$((hwm_kb - rss_kb))
    read -r row_count size_b shared_b os_b double_b <<<"$rows"
    say "   $n tables (created in ${DB_CREATE_S[$n]} s; state: each just written, in shared buffers and the OS cache):"
    say "     view rows $row_count (all relations of the database with storage, catalogs included):"
    say "     size $(fmt "$size_b / 1048576") MiB, shared $(fmt "$shared_b / 1048576") MiB, OS $(fmt "$os_b / 1048576") MiB, double $(fmt "$double_b / 1048576") MiB"
    say "     every column summed, in the server: $(fmt "$ms") ms; SELECT count(*) FROM cachectl.database_status: $(fmt "$count_ms") ms"
    say "     SELECT * to psql (wall clock, connection included): $(fmt "${DB_WALL_MS[$n]}") ms; backend peak memory growth: $(fmt "${DB_PEAK_KB[$n]} / 1024") MiB"
    check "$row_count >= $n" "database_status returned $row_count rows for $n tables"
done
fi

# ---------------------------------------------------------------------------
say ""
say "summary (one run of this script; ratio = anchor time / ours)"
ROWFMT='%-58s %12s %10s %-30s %s\n'
# shellcheck disable=SC2059  # one format for every row, on purpose
printf "$ROWFMT" case 'ms' ratio goal result
line=$(printf '%.0s-' {1..122})
say "$line"
# shellcheck disable=SC2059
row() { printf "$ROWFMT" "$@"; }
if part 1 && [ "$HAVE_PGFINCORE" = 1 ]; then
row "1. status('t'), $T_GIB GiB, quarter per layer state" "$(fmt "$STATUS_MS" 3)" "$(fmt "$STATUS_RATIO")x" ">= ${GOAL_STATUS}x faster than join" \
    "$(verdict "$STATUS_RATIO >= $GOAL_STATUS")"
row "   hand join pg_buffercache x pgfincore databit" "$(fmt "$JOIN_MS" 3)" '1.0x' '(anchor)' ''
row "   floor: the pool pass alone (shared_residency)" "$(fmt "$SHRES_MS" 3)" "$(fmt "$FLOOR_RATIO")x" '(the best status can reach)' ''
row "   os_map('t') alone" "$(fmt "$OSMAP_MS" 3)" '-' '(info)' ''
row "1h. the same with $holes_made reclaim holes" "$(fmt "$HOLE_STATUS_MS" 3)" "$(fmt "$HOLE_RATIO")x" ">= ${GOAL_STATUS}x faster than join" \
    "$(verdict "$HOLE_RATIO >= $GOAL_STATUS")"
row "   hand join, with the holes" "$(fmt "$HOLE_JOIN_MS" 3)" '1.0x' '(anchor)' ''
row "   os_map('t') alone, with the holes" "$(fmt "$HOLE_OSMAP_MS" 3)" '-' '(info)' ''
row "   os_residency('t'), cachestat only, with the holes" "$(fmt "$HOLE_CSTAT_MS" 3)" '-' '(info: no block map)' ''
fi
for n in $SMALL_COUNTS; do
    goal=${GOAL_DBSTATUS_S[$n]:-}
    if [ -n "$goal" ]; then
        row "2. database_status, $n tables, SELECT * to psql" "$(fmt "${DB_WALL_MS[$n]}")" '-' "< $goal s" \
            "$(verdict "${DB_WALL_MS[$n]} < 1000 * $goal")"
    else
        row "2. database_status, $n tables, SELECT * to psql" "$(fmt "${DB_WALL_MS[$n]}")" '-' '(no goal at this size)' ''
    fi
    row "   the same, every column summed in the server" "$(fmt "${DB_MS[$n]}")" '-' '' ''
    row "   SELECT count(*) FROM cachectl.database_status" "$(fmt "${DB_COUNT_MS[$n]}")" '-' "(peak +$(fmt "${DB_PEAK_KB[$n]} / 1024") MiB)" ''
done
if part 3; then
row "3. prewarm('t', target => 'shared'), cold, median" "$(fmt "$OURS_MS")" "$(fmt "$PREWARM_RATIO" 2)x" ">= ${GOAL_PREWARM}x faster than pg_prewarm" \
    "$(verdict "$PREWARM_RATIO >= $GOAL_PREWARM")"
row "   pg_prewarm('t', 'buffer'), cold, median" "$(fmt "$CORE_MS")" '1.00x' '(anchor)' ''
row "   prewarm('t', target => 'os'), cold, median" "$(fmt "$OSPW_MS")" "$(fmt "$CORE_MS / $OSPW_MS" 2)x" '(OS cache only)' ''
row "   cat of the segment files, cold, median" "$(fmt "$CAT_MS")" "$(fmt "$CORE_MS / $CAT_MS" 2)x" '(device reference)' ''
row "   backend CPU: prewarm $(fmt "$OURS_CPU" 0) ms, pg_prewarm $(fmt "$CORE_CPU" 0) ms" '' '' '(median, user + system)' ''
row "   dd iflag=direct bs=8M (no page cache)" "$(fmt "$DD_MS")" "$(fmt "$CORE_MS / $DD_MS" 2)x" '(raw device read)' ''
fi
if part 4; then
row "4. CALL restore(target => 'shared'), load" "$(fmt "$RUNS_MS")" "$(fmt "$RESTORE_RATIO" 2)x" ">= ${GOAL_RESTORE}x faster than autoprewarm" \
    "$(verdict "$RESTORE_RATIO >= $GOAL_RESTORE")"
row "   autoprewarm, ready -> 'prewarmed N of M' logged" "$APW_LOAD_MS" '1.00x' '(anchor)' ''
row "   restore, postmaster start -> call returned" "$RUNS_TOTAL_MS" "$(fmt "$RESTORE_RATIO_TOTAL" 2)x" '(info)' ''
row "   autoprewarm, postmaster start -> logged" "$APW_TOTAL_MS" '1.00x' '(info)' ''
fi
say "$line"
say "premises: Linux $(uname -r), $FS_TYPE on $DEV_NAME (read_ahead_kb=$READ_AHEAD_KB, max_sectors_kb=$MAX_SECTORS_KB),"
say "  shared_buffers=$SHARED_BUFFERS, $(sql -c "SHOW server_version"), t = $T_BLOCKS blocks, OS engine $ENGINE; parts run: $PARTS"
part 4 && say "  part 4 times CALL cachectl.restore() around psql (its connection included)"
say "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The goals, as machine-readable lines (ratio = anchor / ours).
if part 1 && [ "$HAVE_PGFINCORE" = 1 ]; then
    emit_goal "status >= ${GOAL_STATUS}x faster than the pg_buffercache x pgfincore join, $T_GIB GiB" \
        "$(fmt "$STATUS_MS" 3) ms" "join $(fmt "$JOIN_MS" 3) ms" "$(fmt "$STATUS_RATIO" 1)" "$(verdict "$STATUS_RATIO >= $GOAL_STATUS")"
    emit_goal "status >= ${GOAL_STATUS}x faster than the join with reclaim holes ($holes_made), $T_GIB GiB" \
        "$(fmt "$HOLE_STATUS_MS" 3) ms" "join $(fmt "$HOLE_JOIN_MS" 3) ms" "$(fmt "$HOLE_RATIO" 1)" "$(verdict "$HOLE_RATIO >= $GOAL_STATUS")"
fi
for n in $SMALL_COUNTS; do
    goal=${GOAL_DBSTATUS_S[$n]:-}
    [ -n "$goal" ] || continue
    emit_goal "database_status over $n tables < $goal s (all rows to psql)" "$(fmt "${DB_WALL_MS[$n]}" 0) ms" '-' '-' \
        "$(verdict "${DB_WALL_MS[$n]} < 1000 * $goal")"
done
if part 3; then
emit_goal "prewarm (shared) >= ${GOAL_PREWARM}x faster than pg_prewarm buffer, cold $T_GIB GiB" \
    "$(fmt "$OURS_MS" 1) ms" "pg_prewarm $(fmt "$CORE_MS" 1) ms" "$(fmt "$PREWARM_RATIO" 2)" "$(verdict "$PREWARM_RATIO >= $GOAL_PREWARM")"
fi
if part 4; then
emit_goal "restore (shared) >= ${GOAL_RESTORE}x faster than autoprewarm after a restart, $SNAP_BLOCKS blocks" \
    "$(fmt "$RUNS_MS" 1) ms" "autoprewarm $APW_LOAD_MS ms" "$(fmt "$RESTORE_RATIO" 2)" "$(verdict "$RESTORE_RATIO >= $GOAL_RESTORE")"
fi

if [ "$CHECK_FAILURES" -gt 0 ]; then
    say "$CHECK_FAILURES check(s) FAILED (see CHECK FAILED above)"
    exit 1
fi
