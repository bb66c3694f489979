#!/usr/bin/env bash
# bench/evict.sh — how fast cachectl.evict() and cachectl.evict_relations()
# empty shared buffers, on a throwaway cluster of its own with
# shared_buffers = 2GB (262,144 buffers):
#
#   1. one table t of 1 GiB (131,072 blocks), loaded into shared buffers with
#      pg_prewarm(..., 'buffer'), evicted with cachectl.evict('t'): clean
#      pages (after CHECKPOINT) and dirty pages (every row locked FOR UPDATE,
#      which dirties every page without growing the table), REPS rounds each;
#   2. 1,000 tables of 8 blocks each, prewarmed, evicted by one
#      cachectl.evict_relations() call versus 1,000 cachectl.evict() calls
#      (looped inside the server, and once more from a psql script);
#   3. on PostgreSQL 18 or later (PG_CONFIG pointing at that installation,
#      with pg_cachectl built and installed for it), core's
#      pg_buffercache_evict_relation() on the same table and rounds,
#      interleaved with ours; on older servers this part is skipped.
#
# Every evict call makes one pass over all the buffer descriptors, so the
# 1,000 calls of case 2 are 1,000 passes over the 2 GB pool.
#
# Times are taken inside the server with clock_timestamp() around the call,
# in a PL/pgSQL function, so psql's round trip is not in them (except in the
# psql-script row, which is wall clock).  Each round runs in one session:
# prewarm (which also warms the relation caches), prepare, check with
# shared_residency, timed eviction, check again.
#
# It prints a summary table with PASS/MISS against the goals.  It is a
# benchmark, not a test: it exits 0 unless something broke (a failed check,
# e.g. buffers left after an eviction, makes it exit 1 after the table).
#
# Settings (environment): QUICK=1 (a 256 MiB table, one round each),
# REPS (rounds per case of part 1, default 5),
# MANY_REPS (rounds per case of part 2, default 3), REL_BLOCKS (size of t,
# default 131072 = 1 GiB), MANY_TABLES (default 1000), EMPTY_PASSES (calls
# timed on an empty pool slice, default 100), SHARED_BUFFERS (default 2GB),
# PG_CONFIG, TMPDIR.  Run as root (the cluster runs as postgres) or as the
# postgres user.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    REPS=${REPS:-1}
    MANY_REPS=${MANY_REPS:-1}
    REL_BLOCKS=${REL_BLOCKS:-32768}
    EMPTY_PASSES=${EMPTY_PASSES:-20}
fi
REPS=${REPS:-5}
MANY_REPS=${MANY_REPS:-3}
REL_BLOCKS=${REL_BLOCKS:-131072}
MANY_TABLES=${MANY_TABLES:-1000}
MANY_BLOCKS=8
EMPTY_PASSES=${EMPTY_PASSES:-100}
SHARED_BUFFERS=${SHARED_BUFFERS:-2GB}
GOAL_MANY=30      # evict_relations at least this many times faster than N evict calls
GOAL_CORE=1.5     # ours at most this many times core 18's time per buffer

bench_start evict


CHECK_FAILURES=0
check() {   # check CONDITION(awk) MESSAGE
    if [ "$(calc "($1) ? 1 : 0")" != 1 ]; then
        say "  CHECK FAILED: $2"
        CHECK_FAILURES=$((CHECK_FAILURES + 1))
    fi
}

# median "V1 V2 ..." — the median of space-separated numbers
median() { tr -s ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ---------------------------------------------------------------------------
PG_VERSION_TEXT=$("$PG_CONFIG" --version)
PG_MAJOR=$(sed -E 's/^PostgreSQL ([0-9]+).*/\1/' <<<"$PG_VERSION_TEXT")
[ -f "$("$PG_CONFIG" --sharedir)/extension/pg_cachectl.control" ] ||
    die "pg_cachectl is not installed for $PG_VERSION_TEXT ($PG_CONFIG): run make PG_CONFIG=$PG_CONFIG install first"

# wal_level = minimal: the tables are created and filled in one transaction
# without WAL.  full_page_writes = off: dirtying 1 GiB of pages after a
# checkpoint would otherwise write 1 GiB of page images to WAL per round.
# Neither changes the eviction itself (a flush only checks that the page's
# WAL is flushed, which it is after the dirtying transaction commits).
cluster_start "$WORK" "shared_buffers = $SHARED_BUFFERS" "max_wal_size = 8GB" \
    "wal_level = minimal" "max_wal_senders = 0" "full_page_writes = off" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pg_prewarm" -c "CREATE EXTENSION pg_buffercache"

HAVE_CORE=0
CORE_NOTE=''
if [ "$PG_MAJOR" -ge 18 ]; then
    if [ "$(sql -c "SELECT to_regprocedure('pg_buffercache_evict_relation(regclass)') IS NOT NULL")" = t ]; then
        HAVE_CORE=1
    else
        CORE_NOTE="PostgreSQL $PG_MAJOR, but pg_buffercache_evict_relation(regclass) is missing"
    fi
else
    CORE_NOTE="PostgreSQL $PG_MAJOR has no pg_buffercache_evict_relation() (core 18 added it); run with PG_CONFIG=<a PostgreSQL 18 pg_config>, pg_cachectl installed there, to compare"
fi

# Timing helpers, inside the server.  $1 of a timed query is a regclass[].
sql <<'SQL'
CREATE SCHEMA many;   -- the small tables of part 2

CREATE FUNCTION bench_prewarm(rels regclass[], OUT ms float8, OUT blocks int8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
    r regclass;
BEGIN
    blocks := 0;
    FOREACH r IN ARRAY rels LOOP
        blocks := blocks + pg_prewarm(r, 'buffer');
    END LOOP;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;

-- Locks every row: every page gets dirty, the table does not grow.
CREATE FUNCTION bench_dirty(rel regclass, OUT ms float8, OUT rows_locked int8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s FOR UPDATE) s', rel) INTO rows_locked;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;

-- One eviction query (sums of evicted, flushed, skipped), timed.
CREATE FUNCTION bench_evict_once(query text, rels regclass[],
    OUT ms float8, OUT evicted int8, OUT flushed int8, OUT skipped int8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE query INTO evicted, flushed, skipped USING rels;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;

-- cachectl.evict() once per relation, looped in the server.
CREATE FUNCTION bench_evict_each(rels regclass[],
    OUT ms float8, OUT evicted int8, OUT flushed int8, OUT skipped int8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    r regclass;
    e int8; f int8; s int8;
BEGIN
    evicted := 0; flushed := 0; skipped := 0;
    t0 := clock_timestamp();
    FOREACH r IN ARRAY rels LOOP
        SELECT coalesce(sum(x.buffers_evicted), 0), coalesce(sum(x.buffers_flushed), 0),
               coalesce(sum(x.buffers_skipped), 0)
          INTO e, f, s FROM cachectl.evict(r) x;
        evicted := evicted + e; flushed := flushed + f; skipped := skipped + s;
    END LOOP;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;

-- The many small tables, in OID order.
CREATE FUNCTION bench_many() RETURNS regclass[] LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(c.oid::regclass ORDER BY c.oid), '{}')
      FROM pg_class c
     WHERE c.relnamespace = 'many'::regnamespace AND c.relkind = 'r'
$$;

-- Shared buffers held by the many tables (any fork), by pg_buffercache.
-- (A plain join can be planned as a nested loop over pg_class for each of
-- the 262,144 buffers: tens of seconds.  The IN list is hashed.)
CREATE FUNCTION bench_many_buffers(OUT shared_blocks int8, OUT shared_dirty_blocks int8)
LANGUAGE sql AS $$
    SELECT count(*), count(*) FILTER (WHERE b.isdirty)
      FROM pg_buffercache b
     WHERE b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND b.relfilenode IN (SELECT c.relfilenode FROM pg_class c
                              WHERE c.relnamespace = 'many'::regnamespace)
$$;
SQL

# Timed eviction queries ($1 is a parameter of the query, not a shell variable).
# shellcheck disable=SC2016
Q_OURS='SELECT coalesce(sum(buffers_evicted), 0), coalesce(sum(buffers_flushed), 0), coalesce(sum(buffers_skipped), 0) FROM cachectl.evict($1[1])'
# shellcheck disable=SC2016
Q_CORE='SELECT coalesce(sum(buffers_evicted), 0), coalesce(sum(buffers_flushed), 0), coalesce(sum(buffers_skipped), 0) FROM pg_buffercache_evict_relation($1[1])'
# shellcheck disable=SC2016
Q_LIST='SELECT coalesce(sum(buffers_evicted), 0), coalesce(sum(buffers_flushed), 0), coalesce(sum(buffers_skipped), 0) FROM cachectl.evict_relations($1, cascade => false)'
# shellcheck disable=SC2016
Q_CORE_EACH='SELECT coalesce(sum(buffers_evicted), 0), coalesce(sum(buffers_flushed), 0), coalesce(sum(buffers_skipped), 0) FROM unnest($1) r, pg_buffercache_evict_relation(r)'

NBUFFERS=$(sql -c "SELECT setting FROM pg_settings WHERE name = 'shared_buffers'")
LOCK_BATCH=$(sql -c "SELECT current_setting('max_locks_per_transaction')::int
    * (current_setting('max_connections')::int
       + coalesce(current_setting('autovacuum_worker_slots', true),
                  current_setting('autovacuum_max_workers'))::int + 1
       + current_setting('max_worker_processes')::int + current_setting('max_wal_senders')::int
       + current_setting('max_prepared_transactions')::int) / 4")
FS_TYPE=$(filesystem_of "$DATA")

say "pg_cachectl eviction benchmark"
say "  machine        : $(machine_summary), data directory on $FS_TYPE"
say "  PostgreSQL     : $(sql -c "SELECT version()" | cut -d, -f1) ($PG_CONFIG)"
say "  shared buffers : $SHARED_BUFFERS = $NBUFFERS buffers; every evict call scans all $NBUFFERS descriptors"
say "  settings       : wal_level=minimal, full_page_writes=off, max_wal_size=8GB, autovacuum off"
say "  timings        : clock_timestamp() around the call inside the server; medians of rounds"
emit_info postgresql "$(sql -c "SHOW server_version")"
emit_info shared_buffers "$SHARED_BUFFERS"

# ---------------------------------------------------------------------------
say ""
say "1. building table t: $REL_BLOCKS blocks (two ~4 KB rows per block, STORAGE PLAIN)"
build_table_t "$REL_BLOCKS"
T_SIZE="$(calc "$T_BLOCKS * 8192 / 1073741824") GiB"
say "  t: $T_BLOCKS blocks ($T_SIZE) in $T_BUILD_S s, $(calc "100 * $T_BLOCKS / $NBUFFERS")% of the pool"
check "$T_BLOCKS == $REL_BLOCKS" "t has $T_BLOCKS blocks, expected $REL_BLOCKS"
# t's files, every fork and segment: synced before each dirty round, so that
# the kernel's writeback of the previous round does not compete with it.
find_t_files_every_fork
sync_t() { sync "${T_FILES[@]}"; }
# untimed warm-up: leaves no page of t (any fork) in shared buffers
sql -c "SELECT sum(buffers_evicted) FROM cachectl.evict('t')" >/dev/null

# big_round TOOL CASE — one round in one session; prints
# "prewarm_ms prepare_ms buffers dirty pinned ms evicted flushed skipped after"
big_round() {
    local tool=$1 case=$2 query dirty=off
    case $tool in
        ours) query=$Q_OURS ;;
        core) query=$Q_CORE ;;
    esac
    [ "$case" = dirty ] && dirty=on
    sql -v dirty="$dirty" -v query="$query" <<'SQL'
SELECT ms AS prewarm_ms FROM bench_prewarm(ARRAY['t'::regclass]) \gset
\if :dirty
SELECT ms AS prepare_ms FROM bench_dirty('t') \gset
\else
\set prepare_ms 0
CHECKPOINT;
\endif
SELECT coalesce(sum(shared_blocks), 0) AS b_buffers, coalesce(sum(shared_dirty_blocks), 0) AS b_dirty,
       coalesce(sum(shared_pinned_blocks), 0) AS b_pinned
  FROM cachectl.shared_residency('t') \gset
SELECT ms AS e_ms, evicted AS e_evicted, flushed AS e_flushed, skipped AS e_skipped
  FROM bench_evict_once(:'query', ARRAY['t'::regclass]) \gset
SELECT coalesce(sum(shared_blocks), 0) AS a_buffers FROM cachectl.shared_residency('t') \gset
\echo :prewarm_ms :prepare_ms :b_buffers :b_dirty :b_pinned :e_ms :e_evicted :e_flushed :e_skipped :a_buffers
SQL
}

declare -A MS=() PW=() BUF=()
TOOLS=(ours)
[ "$HAVE_CORE" = 1 ] && TOOLS+=(core)
for case in clean dirty; do
    say ""
    if [ "$case" = clean ]; then
        say "  case clean: prewarm, CHECKPOINT, evict ($REPS rounds)"
    else
        say "  case dirty: prewarm, lock every row FOR UPDATE (dirties every page), evict ($REPS rounds)"
    fi
    for tool in "${TOOLS[@]}"; do MS[$tool,$case]='' PW[$tool,$case]='' BUF[$tool,$case]=''; done
    for ((round = 1; round <= REPS; round++)); do
        for tool in "${TOOLS[@]}"; do
            [ "$case" = dirty ] && sync_t
            read -r pw prep bb bd bp ms ev fl sk ab <<<"$(big_round "$tool" "$case")"
            if [ "$tool" = ours ]; then label="cachectl.evict('t')"; else label="pg_buffercache_evict_relation('t')"; fi
            printf '    round %d %-36s prewarm %7.1f ms%s | before: %6d buffers %6d dirty | %8.1f ms, %6d evicted %6d flushed %d skipped, %.3f us/buffer | after: %d buffers\n' \
                "$round" "$label" "$pw" "$([ "$case" = dirty ] && printf ', lock rows %7.1f ms' "$prep")" \
                "$bb" "$bd" "$ms" "$ev" "$fl" "$sk" "$(calc "$ev > 0 ? 1000 * $ms / $ev : 0")" "$ab"
            check "$bb == $T_BLOCKS" "$tool/$case round $round: $bb buffers before eviction, expected $T_BLOCKS"
            if [ "$case" = clean ]; then
                check "$bd == 0" "$tool/$case round $round: $bd dirty buffers after CHECKPOINT"
            else
                check "$bd >= 0.99 * $bb" "$tool/$case round $round: only $bd of $bb buffers dirty"
                check "$fl == $bd" "$tool/$case round $round: $fl flushed, $bd were dirty"
            fi
            check "$bp == 0" "$tool/$case round $round: $bp buffers pinned before eviction"
            check "$ev == $bb && $sk == 0" "$tool/$case round $round: evicted $ev, skipped $sk of $bb"
            check "$ab == 0" "$tool/$case round $round: $ab buffers left after eviction"
            MS[$tool,$case]+=" $ms" PW[$tool,$case]+=" $pw" BUF[$tool,$case]=$ev
            if [ "$tool" = ours ]; then series="cachectl.evict $case"; else series="pg_buffercache_evict_relation $case"; fi
            emit_sample evict_table "$series" "$T_BLOCKS" "$ms" ms
            emit_sample evict_table "pg_prewarm buffer (anchor: loading it)" "$T_BLOCKS" "$pw" ms
        done
    done
done

t0=$(now_us)
sync_t
t1=$(now_us)
say ""
say "  sync of t's files after the last dirty round: $(calc "($t1 - $t0) / 1e6") s (untimed; keeps writeback out of what follows)"

# Profile of the dirty case: what writing the pages costs the OS alone.  A
# flush before eviction is one 8 KB pwrite() over a cached page of the
# relation's file; dd does the same number of 8 KB writes over the cached
# pages of a file of the same size, on the same file system.
dd if=/dev/zero of="$WORK/write-anchor" bs=8k count="$T_BLOCKS" status=none
sync "$WORK/write-anchor"
t0=$(now_us)
dd if=/dev/zero of="$WORK/write-anchor" bs=8k count="$T_BLOCKS" conv=notrunc status=none
t1=$(now_us)
DD_MS=$(calc "($t1 - $t0) / 1000")
sync "$WORK/write-anchor"
rm -f "$WORK/write-anchor"
emit_sample evict_table "dd 8 KB writes (anchor: flushing it)" "$T_BLOCKS" "$DD_MS" ms
say "  OS alone: $T_BLOCKS x 8 KB write() over cached pages of a $T_SIZE file (dd): $(calc "$DD_MS") ms, $(calc "1000 * $DD_MS / $T_BLOCKS") us per block"

# Profile: the fixed cost of one call, i.e. one pass over every descriptor
# with nothing to evict (t is not in shared buffers any more).
EMPTY_MS=$(sql -v n="$EMPTY_PASSES" <<'SQL' | tail -n1
SET bench.n = :n;
SELECT count(*) FROM cachectl.evict('t') \g /dev/null
DO $$
DECLARE
    n int := current_setting('bench.n')::int;
    t0 timestamptz := clock_timestamp();
BEGIN
    FOR i IN 1..n LOOP
        PERFORM * FROM cachectl.evict('t');
    END LOOP;
    PERFORM set_config('bench.ms', (1000 * extract(epoch FROM clock_timestamp() - t0) / n)::text, false);
END $$;
SELECT current_setting('bench.ms');
SQL
)
emit_sample evict_table "bare pass (nothing resident)" "$T_BLOCKS" "$EMPTY_MS" ms
say "  one cachectl.evict('t') call with nothing to evict (a bare pass over $NBUFFERS descriptors): $(calc "$EMPTY_MS") ms (mean of $EMPTY_PASSES)"

# ---------------------------------------------------------------------------
# 226 one-int rows fill a heap page (32-byte tuples + 4-byte line pointers).
MANY_ROWS=$((226 * MANY_BLOCKS))
say ""
say "2. building $MANY_TABLES tables many.t_1 .. many.t_$MANY_TABLES of $MANY_BLOCKS blocks ($MANY_ROWS int rows each), one DO block"
t0=$(now_us)
sql -v n="$MANY_TABLES" -v rows="$MANY_ROWS" <<'SQL'
SET bench.n = :n;
SET bench.rows = :rows;
DO $$
BEGIN
    FOR i IN 1..current_setting('bench.n')::int LOOP
        EXECUTE format('CREATE TABLE many.t_%s (id int)', i);
        EXECUTE format('INSERT INTO many.t_%s SELECT generate_series(1, %s)', i,
                       current_setting('bench.rows')::int);
    END LOOP;
END $$;
CHECKPOINT;
SQL
t1=$(now_us)
IFS='|' read -r m_count m_blocks m_min m_max <<<"$(sql -c "
    SELECT count(*), sum(pg_relation_size(r))::bigint / 8192, min(pg_relation_size(r)) / 8192,
           max(pg_relation_size(r)) / 8192 FROM unnest(bench_many()) r")"
say "  $m_count tables, $m_blocks blocks (min $m_min, max $m_max per table) in $(calc "($t1 - $t0) / 1e6") s"
check "$m_count == $MANY_TABLES && $m_min == $MANY_BLOCKS && $m_max == $MANY_BLOCKS" \
    "expected $MANY_TABLES tables of $MANY_BLOCKS blocks"
say "  evict_relations locks its set in batches of about $LOCK_BATCH relations (max_locks_per_transaction x backends / 4): $(( (MANY_TABLES + LOCK_BATCH - 1) / LOCK_BATCH )) pass(es) for $MANY_TABLES tables"
# untimed warm-up: the free space maps the inserts left in shared buffers go
sql -c "SELECT sum(buffers_evicted) FROM cachectl.evict_relations(bench_many())" >/dev/null

# many_round MODE [noprewarm] — one round in one session; prints
# "prewarm_ms buffers dirty ms evicted flushed skipped after"
many_round() {
    local mode=$1 prewarm=on query=$Q_LIST each=off
    [ "${2:-}" = noprewarm ] && prewarm=off
    case $mode in
        list) query=$Q_LIST ;;
        each) each=on ;;
        core_each) query=$Q_CORE_EACH ;;
    esac
    sql -v prewarm="$prewarm" -v each="$each" -v query="$query" <<'SQL'
-- loads the module before anything is timed
SELECT count(*) FROM cachectl.shared_residency('pg_class') \g /dev/null
\if :prewarm
SELECT ms AS prewarm_ms FROM bench_prewarm(bench_many()) \gset
\else
\set prewarm_ms 0
SELECT count(*) FROM unnest(bench_many()) r, pg_relation_size(r) \g /dev/null
\endif
SELECT shared_blocks AS b_buffers, shared_dirty_blocks AS b_dirty FROM bench_many_buffers() \gset
\if :each
SELECT ms AS e_ms, evicted AS e_evicted, flushed AS e_flushed, skipped AS e_skipped
  FROM bench_evict_each(bench_many()) \gset
\else
SELECT ms AS e_ms, evicted AS e_evicted, flushed AS e_flushed, skipped AS e_skipped
  FROM bench_evict_once(:'query', bench_many()) \gset
\endif
SELECT shared_blocks AS a_buffers FROM bench_many_buffers() \gset
\echo :prewarm_ms :b_buffers :b_dirty :e_ms :e_evicted :e_flushed :e_skipped :a_buffers
SQL
}

MANY_EXPECTED=$((MANY_TABLES * MANY_BLOCKS))
MODES=(list each)
[ "$HAVE_CORE" = 1 ] && MODES+=(core_each)
declare -A MMS=() MBUF=()
for mode in "${MODES[@]}"; do MMS[$mode]=''; done
for ((round = 1; round <= MANY_REPS; round++)); do
    for mode in "${MODES[@]}"; do
        read -r pw bb bd ms ev fl sk ab <<<"$(many_round "$mode")"
        case $mode in
            list) label="1 x cachectl.evict_relations(<$MANY_TABLES>)" ;;
            each) label="$MANY_TABLES x cachectl.evict() in a loop" ;;
            core_each) label="$MANY_TABLES x pg_buffercache_evict_relation()" ;;
        esac
        printf '    round %d %-48s prewarm %6.1f ms | before: %5d buffers | %9.1f ms, %5d evicted %d flushed %d skipped | after: %d\n' \
            "$round" "$label" "$pw" "$bb" "$ms" "$ev" "$fl" "$sk" "$ab"
        check "$bb == $MANY_EXPECTED" "$mode round $round: $bb buffers before eviction, expected $MANY_EXPECTED"
        check "$ev == $bb && $sk == 0 && $ab == 0" "$mode round $round: evicted $ev, skipped $sk, $ab left of $bb"
        MMS[$mode]+=" $ms" MBUF[$mode]=$ev
        case $mode in
            list) series="cachectl.evict_relations (1 call)" ;;
            each) series="cachectl.evict ($MANY_TABLES calls in the server)" ;;
            core_each) series="pg_buffercache_evict_relation ($MANY_TABLES calls)" ;;
        esac
        emit_sample evict_many "$series" "$MANY_TABLES" "$ms" ms
    done
done

# The same 1,000 calls driven from a psql script: one statement, one round
# trip each; wall clock of the whole psql process (connection included).
sql -c "SELECT format('SELECT count(*) FROM cachectl.evict(%L);', r::text) FROM unnest(bench_many()) r" >"$WORK/each.sql"
sql -c "SELECT ms FROM bench_prewarm(bench_many())" >/dev/null
PS_BEFORE=$(sql -c "SELECT shared_blocks FROM bench_many_buffers()")
t0=$(now_us)
sql -o /dev/null -f "$WORK/each.sql"
t1=$(now_us)
PS_MS=$(calc "($t1 - $t0) / 1000")
PS_AFTER=$(sql -c "SELECT shared_blocks FROM bench_many_buffers()")
printf '    once    %-48s                  | before: %5d buffers | %9.1f ms (wall clock) | after: %d\n' \
    "$MANY_TABLES x cachectl.evict() from a psql script" "$PS_BEFORE" "$PS_MS" "$PS_AFTER"
emit_sample evict_many "cachectl.evict ($MANY_TABLES statements from psql)" "$MANY_TABLES" "$PS_MS" ms
check "$PS_BEFORE == $MANY_EXPECTED && $PS_AFTER == 0" "psql script: $PS_BEFORE before, $PS_AFTER after"

# Profile: the same calls with nothing to evict (the fixed costs).
read -r _ _ _ LIST_EMPTY_MS _ _ _ _ <<<"$(many_round list noprewarm)"
read -r _ _ _ EACH_EMPTY_MS _ _ _ _ <<<"$(many_round each noprewarm)"
say "  with nothing to evict: evict_relations(<$MANY_TABLES>) $(calc "$LIST_EMPTY_MS") ms; $MANY_TABLES x evict() $(calc "$EACH_EMPTY_MS") ms"

# ---------------------------------------------------------------------------
say ""
say "3. PostgreSQL 18 core comparison (pg_buffercache_evict_relation)"
if [ "$HAVE_CORE" = 1 ]; then
    say "  measured above, interleaved round by round with ours, on the same table and cluster"
else
    say "  skipped: $CORE_NOTE"
fi

# ---------------------------------------------------------------------------
say ""
say "4. summary (medians; us/buffer = total / buffers evicted)"
ROWFMT='%-46s %6s %8s %10s %10s %9s %-26s %s\n'
# shellcheck disable=SC2059  # one format for every row, on purpose
printf "$ROWFMT" case calls buffers 'total ms' 'us/buffer' ratio goal result
line=$(printf '%.0s-' {1..126})
say "$line"
# shellcheck disable=SC2059
row() { printf "$ROWFMT" "$@"; }
per_buffer() { calc "$2 > 0 ? 1000 * $1 / $2 : 0"; }
verdict() { if [ "$(calc "($1) ? 1 : 0")" = 1 ]; then echo PASS; else echo MISS; fi; }

for case in clean dirty; do
    ours_ms=$(median "${MS[ours,$case]}")
    ours_us=$(per_buffer "$ours_ms" "${BUF[ours,$case]}")
    if [ "$HAVE_CORE" = 1 ]; then
        core_ms=$(median "${MS[core,$case]}")
        core_us=$(per_buffer "$core_ms" "${BUF[core,$case]}")
        ratio=$(calc "$ours_us / $core_us")
        row "$T_SIZE $case: cachectl.evict('t')" 1 "${BUF[ours,$case]}" "$(fmt "$ours_ms")" "$(fmt "$ours_us" 3)" \
            "$(fmt "$ratio" 2)x" "ours/core <= ${GOAL_CORE}x" "$(verdict "$ratio <= $GOAL_CORE")"
        emit_goal "evict within ${GOAL_CORE}x of core 18 per buffer, $T_SIZE $case (ratio = ours / core)" \
            "$(fmt "$ours_us" 3) us/buffer" "core $(fmt "$core_us" 3) us/buffer" "$(fmt "$ratio" 2)" "$(verdict "$ratio <= $GOAL_CORE")"
        row "$T_SIZE $case: pg_buffercache_evict_relation" 1 "${BUF[core,$case]}" "$(fmt "$core_ms")" "$(fmt "$core_us" 3)" \
            '1.00x' '(PostgreSQL 18 core)' ''
    else
        row "$T_SIZE $case: cachectl.evict('t')" 1 "${BUF[ours,$case]}" "$(fmt "$ours_ms")" "$(fmt "$ours_us" 3)" \
            '-' "ours/core <= ${GOAL_CORE}x" 'skipped (no PG 18)'
        emit_goal "evict within ${GOAL_CORE}x of core 18 per buffer, $T_SIZE $case (ratio = ours / core)" \
            "$(fmt "$ours_us" 3) us/buffer" "no core function on PostgreSQL $PG_MAJOR" '-' 'skipped'
    fi
done
pw_ms=$(median "${PW[ours,clean]} ${PW[ours,dirty]}")
row "$T_SIZE: pg_prewarm('t', 'buffer') (anchor)" 1 "$T_BLOCKS" "$(fmt "$pw_ms")" "$(fmt "$(per_buffer "$pw_ms" "$T_BLOCKS")" 3)" '-' '(scale: loading it)' ''
row "$T_SIZE: 8 KB writes, dd (OS anchor)" "$T_BLOCKS" "$T_BLOCKS" "$(fmt "$DD_MS")" "$(fmt "$(per_buffer "$DD_MS" "$T_BLOCKS")" 3)" '-' '(scale: flushing it)' ''
row "bare pass: cachectl.evict, nothing resident" 1 0 "$(fmt "$EMPTY_MS" 2)" '-' '-' "($NBUFFERS descriptors)" ''

list_ms=$(median "${MMS[list]}")
each_ms=$(median "${MMS[each]}")
many_ratio=$(calc "$each_ms / $list_ms")
row "$MANY_TABLES tables: evict_relations, 1 call" 1 "${MBUF[list]}" "$(fmt "$list_ms")" \
    "$(fmt "$(per_buffer "$list_ms" "${MBUF[list]}")" 3)" "$(fmt "$many_ratio")x" ">= ${GOAL_MANY}x faster than loop" \
    "$(verdict "$many_ratio >= $GOAL_MANY")"
emit_goal "evict_relations >= ${GOAL_MANY}x faster than $MANY_TABLES evict calls" \
    "$(fmt "$list_ms") ms" "$(fmt "$each_ms") ms" "$(fmt "$many_ratio")" "$(verdict "$many_ratio >= $GOAL_MANY")"
row "$MANY_TABLES tables: evict, $MANY_TABLES calls in server" "$MANY_TABLES" "${MBUF[each]}" "$(fmt "$each_ms")" \
    "$(fmt "$(per_buffer "$each_ms" "${MBUF[each]}")" 3)" '1.0x' '(reference)' ''
row "$MANY_TABLES tables: evict, $MANY_TABLES calls from psql" "$MANY_TABLES" "$PS_BEFORE" "$(fmt "$PS_MS")" \
    "$(fmt "$(per_buffer "$PS_MS" "$PS_BEFORE")" 3)" "$(fmt "$PS_MS / $list_ms")x" '(info, 1 run, wall clock)' ''
if [ "$HAVE_CORE" = 1 ]; then
    core_each_ms=$(median "${MMS[core_each]}")
    row "$MANY_TABLES tables: core evict_relation x$MANY_TABLES" "$MANY_TABLES" "${MBUF[core_each]}" "$(fmt "$core_each_ms")" \
        "$(fmt "$(per_buffer "$core_each_ms" "${MBUF[core_each]}")" 3)" "$(fmt "$core_each_ms / $list_ms")x" '(PostgreSQL 18 core)' ''
fi
say "$line"
say "ratio: on t, our time per buffer / core 18's; on the $MANY_TABLES tables, the row's time / evict_relations' time"
say "profile:"
say "  a bare pass over the pool: $(fmt "$EMPTY_MS" 2) ms ($(fmt "1e6 * $EMPTY_MS / $NBUFFERS" 2) ns per descriptor); $MANY_TABLES of them: $(fmt "$MANY_TABLES * $EMPTY_MS" 0) ms"
say "  with nothing to evict: $MANY_TABLES evict() calls $(fmt "$EACH_EMPTY_MS" 0) ms ($(fmt "$EACH_EMPTY_MS / $MANY_TABLES" 2) ms per call); one evict_relations() $(fmt "$LIST_EMPTY_MS" 1) ms"
say "  so evict_relations spends about $(fmt "$LIST_EMPTY_MS" 1) ms on its one pass, relation set and locks, $(fmt "$list_ms - $LIST_EMPTY_MS" 1) ms on the $MANY_EXPECTED evictions;"
say "  the loop is its $MANY_TABLES passes (memory-bound, they vary by about 25% from run to run on a busy 2-CPU machine)"
say "  t, per buffer: clean $(fmt "$(per_buffer "$(median "${MS[ours,clean]}")" "${BUF[ours,clean]}")" 3) us; dirty $(fmt "$(per_buffer "$(median "${MS[ours,dirty]}")" "${BUF[ours,dirty]}")" 3) us, of which an 8 KB write() alone costs the OS $(fmt "1000 * $DD_MS / $T_BLOCKS" 3) us (dd)"
[ "$HAVE_CORE" = 1 ] || say "PostgreSQL 18 comparison skipped: $CORE_NOTE"

if [ "$CHECK_FAILURES" -gt 0 ]; then
    say "$CHECK_FAILURES check(s) FAILED (see CHECK FAILED above)"
    exit 1
fi
