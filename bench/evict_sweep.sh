#!/usr/bin/env bash
# bench/evict_sweep.sh — how the time of cachectl.evict() grows with the size
# of shared buffers, on a throwaway cluster of its own restarted with each
# shared_buffers of POOLS (256 MB to 8 GB).
#
# At each size, half of the pool is filled with a prefix of one table t
# (pg_prewarm(t, 'buffer', 'main', 0, n - 1)) and evicted with
# cachectl.evict('t'):
#   clean — after CHECKPOINT;
#   dirty — after locking every row of the prefix FOR UPDATE (a TID range
#           scan), which dirties every page of it without growing the table;
# and, for the fixed cost, evict('t') with nothing resident (a bare pass
# over every descriptor; mean of EMPTY_PASSES calls).  On PostgreSQL 18 or
# later, core's pg_buffercache_evict_relation('t') is timed in the same
# rounds, interleaved with ours.  Each round runs in one psql session;
# times are taken inside the server with clock_timestamp() around the call.
#
# It prints one line per round and a table of medians, and emits every
# sample as a machine-readable line (bench_common.sh).  It is a benchmark,
# not a test: it exits 0 unless something broke (a failed check, e.g.
# buffers left after an eviction, makes it exit 1 after the table).
#
# Settings (environment): QUICK=1 (256 MB and 1 GB, one round), POOLS
# (default "256MB 512MB 1GB 2GB 4GB 8GB"), ROUNDS (default 3), EMPTY_PASSES
# (default 20), PG_CONFIG, TMPDIR.  Needs pg_prewarm (contrib), as much free
# memory as the largest pool plus half of it, and half of the largest pool of
# free disk.  Run as root (the cluster runs as postgres) or as postgres.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

if [ "${QUICK:-0}" = 1 ]; then
    POOLS=${POOLS:-"256MB 1GB"}
    ROUNDS=${ROUNDS:-1}
fi
POOLS=${POOLS:-"256MB 512MB 1GB 2GB 4GB 8GB"}
ROUNDS=${ROUNDS:-3}
EMPTY_PASSES=${EMPTY_PASSES:-20}

bench_start evict_sweep

CHECK_FAILURES=0
check() {   # check CONDITION(awk) MESSAGE
    if [ "$(calc "($1) ? 1 : 0")" != 1 ]; then
        say "  CHECK FAILED: $2"
        CHECK_FAILURES=$((CHECK_FAILURES + 1))
    fi
}
# pool_mb SIZE — megabytes of a shared_buffers value such as 256MB or 8GB
pool_mb() {
    case $1 in
        *GB) echo $((${1%GB} * 1024)) ;;
        *MB) echo "${1%MB}" ;;
        *) die "pool size $1: write it as NMB or NGB" ;;
    esac
}

PG_VERSION_TEXT=$("$PG_CONFIG" --version)
PG_MAJOR=$(sed -E 's/^PostgreSQL ([0-9]+).*/\1/' <<<"$PG_VERSION_TEXT")
MAX_MB=0
for pool in $POOLS; do
    mb=$(pool_mb "$pool")
    [ "$mb" -gt "$MAX_MB" ] && MAX_MB=$mb
done
# the table holds half of the largest pool
T_BLOCKS_WANTED=$((MAX_MB * 128 / 2))

# wal_level = minimal: t is created and filled without WAL.  full_page_writes
# = off: dirtying the prefix after a checkpoint would otherwise write it all
# again as page images.  Neither changes what an eviction does.
FIRST_POOL=${POOLS%% *}
cluster_start "$WORK" "shared_buffers = $FIRST_POOL" "max_wal_size = 16GB" \
    "wal_level = minimal" "max_wal_senders = 0" "full_page_writes = off" >/dev/null
DATA=$CLUSTER_DIR/data
sql -c "CREATE EXTENSION pg_cachectl" -c "CREATE EXTENSION pg_prewarm" -c "CREATE EXTENSION pg_buffercache"
HAVE_CORE=0
if [ "$PG_MAJOR" -ge 18 ] &&
   [ "$(sql -c "SELECT to_regprocedure('pg_buffercache_evict_relation(regclass)') IS NOT NULL")" = t ]; then
    HAVE_CORE=1
fi

sql <<'SQL'
-- One eviction query (sums of evicted, flushed, skipped), timed.
CREATE FUNCTION bench_evict_once(query text,
    OUT ms float8, OUT evicted int8, OUT flushed int8, OUT skipped int8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE query INTO evicted, flushed, skipped;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
SQL
Q_OURS="SELECT coalesce(sum(buffers_evicted), 0), coalesce(sum(buffers_flushed), 0), coalesce(sum(buffers_skipped), 0) FROM cachectl.evict('t')"
Q_CORE="SELECT buffers_evicted, buffers_flushed, buffers_skipped FROM pg_buffercache_evict_relation('t')"

FS_TYPE=$(filesystem_of "$DATA")
say "pg_cachectl eviction versus pool size"
say "  machine        : $(machine_summary), data directory on $FS_TYPE"
say "  PostgreSQL     : $(sql -c "SELECT version()" | cut -d, -f1) ($PG_CONFIG)"
say "  pools          : $POOLS; half of each filled with t's first blocks; $ROUNDS round(s) per case"
say "  core 18        : $([ "$HAVE_CORE" = 1 ] && echo "pg_buffercache_evict_relation timed in the same rounds" || echo "not on PostgreSQL $PG_MAJOR: ours only")"
emit_info postgresql "$(sql -c "SHOW server_version")"
emit_info shared_buffers "$POOLS (one restart each)"

say ""
say "building table t: $T_BLOCKS_WANTED blocks (two ~4 KB rows per block, STORAGE PLAIN, one transaction)"
build_table_t "$T_BLOCKS_WANTED"
say "  t: $T_BLOCKS blocks in $T_BUILD_S s"
[ "$T_BLOCKS" = "$T_BLOCKS_WANTED" ] || die "t has $T_BLOCKS blocks, expected $T_BLOCKS_WANTED"
find_t_files_every_fork

# round TOOL CASE N — one round in one session over t's first N blocks; prints
# "buffers dirty ms evicted flushed skipped after"
round() {
    local tool=$1 case=$2 n=$3 query=$Q_OURS dirty=off
    [ "$tool" = core ] && query=$Q_CORE
    [ "$case" = dirty ] && dirty=on
    sql -v dirty="$dirty" -v query="$query" -v last=$((n - 1)) -v n="$n" <<'SQL'
SELECT pg_prewarm('t', 'buffer', 'main', 0, :last) AS prewarmed \gset
\if :dirty
SELECT count(*) AS locked FROM (SELECT 1 FROM t WHERE ctid < format('(%s,0)', :n)::tid FOR UPDATE) s \gset
\else
CHECKPOINT;
\endif
SELECT coalesce(sum(shared_blocks), 0) AS b_buffers, coalesce(sum(shared_dirty_blocks), 0) AS b_dirty
  FROM cachectl.shared_residency('t', 'main') \gset
SELECT ms AS e_ms, evicted AS e_evicted, flushed AS e_flushed, skipped AS e_skipped
  FROM bench_evict_once(:'query') \gset
SELECT coalesce(sum(shared_blocks), 0) AS a_buffers FROM cachectl.shared_residency('t') \gset
\echo :b_buffers :b_dirty :e_ms :e_evicted :e_flushed :e_skipped :a_buffers
SQL
}

declare -A MED=()
TOOLS=(ours)
[ "$HAVE_CORE" = 1 ] && TOOLS+=(core)
for pool in $POOLS; do
    mb=$(pool_mb "$pool")
    sql -c "ALTER SYSTEM SET shared_buffers = '$pool'" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$CLUSTER_DIR/server.log" -m fast -w restart >/dev/null
    NBUFFERS=$(sql -c "SELECT setting FROM pg_settings WHERE name = 'shared_buffers'")
    N=$((NBUFFERS / 2))
    say ""
    say "shared_buffers = $pool ($NBUFFERS buffers): evicting t's first $N blocks"
    # untimed: loads the module and the relation caches
    sql -c "SELECT count(*) FROM cachectl.evict('t')" >/dev/null
    for case in clean dirty; do
        for tool in "${TOOLS[@]}"; do declare "SAMPLES_${tool}_${case}="; done
        for ((r = 1; r <= ROUNDS; r++)); do
            for tool in "${TOOLS[@]}"; do
                [ "$case" = dirty ] && sync "${T_FILES[@]}"
                read -r bb bd ms ev fl sk ab <<<"$(round "$tool" "$case" "$N")"
                if [ "$tool" = ours ]; then label="cachectl.evict('t')"; series="evict $case"
                else label="pg_buffercache_evict_relation('t')"; series="pg_buffercache_evict_relation $case"; fi
                printf '  %-5s round %d %-36s before: %7d buffers %7d dirty | %9.1f ms, %7d evicted %7d flushed %d skipped, %.3f us/buffer | after: %d\n' \
                    "$case" "$r" "$label" "$bb" "$bd" "$ms" "$ev" "$fl" "$sk" "$(calc "$ev > 0 ? 1000 * $ms / $ev : 0")" "$ab"
                check "$bb == $N" "$pool $tool/$case round $r: $bb buffers before eviction, expected $N"
                if [ "$case" = dirty ]; then
                    check "$bd >= 0.99 * $bb && $fl == $bd" "$pool $tool/$case round $r: $bd of $bb dirty, $fl flushed"
                else
                    check "$bd == 0" "$pool $tool/$case round $r: $bd dirty after CHECKPOINT"
                fi
                check "$ev == $bb && $sk == 0 && $ab == 0" "$pool $tool/$case round $r: evicted $ev, skipped $sk, $ab left of $bb"
                emit_sample evict_pool "$series" "$mb" "$ms" ms
                emit_sample evict_pool_per_buffer "$series" "$mb" "$(calc "1000 * $ms / $bb")" us
                var="SAMPLES_${tool}_${case}"
                declare "$var=${!var} $ms"
            done
        done
        for tool in "${TOOLS[@]}"; do
            var="SAMPLES_${tool}_${case}"
            # shellcheck disable=SC2086  # space-separated numbers
            MED[$pool,$tool,$case]=$(median_of ${!var})
        done
    done
    # the fixed cost: one pass over every descriptor, nothing to evict
    EMPTY_MS=$(sql -v n="$EMPTY_PASSES" <<'SQL' | tail -n1
SET bench.n = :n;
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
    MED[$pool,bare]=$EMPTY_MS
    emit_sample evict_pool "bare pass (nothing resident)" "$mb" "$EMPTY_MS" ms
    say "  bare pass (evict('t') with nothing resident, mean of $EMPTY_PASSES): $(num "$EMPTY_MS") ms"
    sync "${T_FILES[@]}"
done

say ""
say "summary (medians of $ROUNDS round(s); ms for the eviction of half the pool)"
printf '%-10s %10s %12s %12s %12s %12s %14s\n' pool buffers 'clean ms' 'dirty ms' 'clean us/buf' 'dirty us/buf' 'bare pass ms'
for pool in $POOLS; do
    n=$(($(pool_mb "$pool") * 64))
    printf '%-10s %10d %12.1f %12.1f %12.3f %12.3f %14.2f\n' "$pool" "$n" "${MED[$pool,ours,clean]}" "${MED[$pool,ours,dirty]}" \
        "$(calc "1000 * ${MED[$pool,ours,clean]} / $n")" "$(calc "1000 * ${MED[$pool,ours,dirty]} / $n")" "${MED[$pool,bare]}"
    if [ "$HAVE_CORE" = 1 ]; then
        printf '%-10s %10s %12.1f %12.1f %12.3f %12.3f   (core 18)\n' '' '' "${MED[$pool,core,clean]}" "${MED[$pool,core,dirty]}" \
            "$(calc "1000 * ${MED[$pool,core,clean]} / $n")" "$(calc "1000 * ${MED[$pool,core,dirty]} / $n")"
    fi
done

if [ "$CHECK_FAILURES" -gt 0 ]; then
    say "$CHECK_FAILURES check(s) FAILED (see CHECK FAILED above)"
    exit 1
fi
