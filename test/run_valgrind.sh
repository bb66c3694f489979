#!/usr/bin/env bash
# run_valgrind.sh — the pg_regress suites against a server running under
# valgrind (memcheck), to find invalid reads/writes and uses of undefined
# memory in the extension that the regular suites cannot see.
#
#   bash test/run_valgrind.sh PG_CONFIG=/path/to/pg_config [SUITE...]
#
# The server must be built with valgrind support (CPPFLAGS=-DUSE_VALGRIND),
# so its memory-context allocator marks freed and fresh memory for memcheck;
# a release build would drown the run in false reports.  Set VALGRIND_SUPP to
# PostgreSQL's own suppression file (src/tools/valgrind.supp of the server's
# source tree) for the known benign reports of core.
#
# Expect the suites that check "nothing cached after a drop" (os_control,
# os_control_errors, both_layers, snapshots) to differ: valgrind 3.19 does not
# know cachestat, so the mincore engine maps each file, and valgrind reads the
# head of every file mapped (16 KB here: 4 pages of every fork show up as
# cached; seen with a 20-line mmap+mincore program and fincore).  The memcheck
# verdict is what this run is for.
#
# Not part of `make test`: the suites take about 30× longer under valgrind.
# Prints "valgrind: N passed, N failed" last, where a suite fails when its
# expected output differs and the run as a whole fails when memcheck reported
# an error in any process.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
for arg in "$@"; do
    case $arg in PG_CONFIG=*) export PG_CONFIG=${arg#PG_CONFIG=}; shift ;; esac
done
source "$top/scripts/cluster.sh"

command -v valgrind >/dev/null || { echo "valgrind: not installed" >&2; exit 1; }
grep -q USE_VALGRIND <("$PG_CONFIG" --cppflags) ||
    echo "run_valgrind: warning: $PG_CONFIG was not built with -DUSE_VALGRIND" >&2

suites=("$@")
[ ${#suites[@]} -gt 0 ] || read -r -a suites <<<"$(make -s -C "$top" --no-print-directory print-regress-tests)"

workdir=$(mktemp -d /tmp/cachectl-valgrind.XXXXXX)
cp -r "$top/sql" "$top/expected" "$top/test" "$workdir/"
chmod 755 "$workdir"
mkdir -p "$workdir/valgrind"
chown -R postgres: "$workdir" 2>/dev/null || true
CLUSTER_DIR=$workdir/cluster
trap 'cluster_stop; echo "logs kept in $workdir"' EXIT

# The cluster is made as usual, then restarted under valgrind.
mapfile -t settings < <(grep -vE '^\s*(#|$)' "$top/test/regress.conf")
cluster_start "$CLUSTER_DIR" "${settings[@]}" "max_connections = 20"
cluster_stop

suppressions=()
[ -n "${VALGRIND_SUPP:-}" ] && suppressions=(--suppressions="$VALGRIND_SUPP")
as_postgres valgrind --quiet --trace-children=yes --track-origins=yes \
    --read-var-info=yes --num-callers=40 --error-limit=no \
    --error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \
    "${suppressions[@]}" \
    --log-file="$workdir/valgrind/%p.log" \
    "$PG_BINDIR/postgres" -D "$CLUSTER_DIR/data" >"$CLUSTER_DIR/server.log" 2>&1 &
for _ in $(seq 1 600); do
    as_postgres "$PG_BINDIR/pg_isready" -q -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" && break
    sleep 1
done
# --use-existing makes pg_regress neither drop nor create the database
as_postgres "$PG_BINDIR/createdb" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres contrib_regression

set +e
(cd "$workdir" && as_postgres "$PG_PGXS_DIR/../../src/test/regress/pg_regress" \
    --use-existing --host="$CLUSTER_SOCKET" --port="$CLUSTER_PORT" --user=postgres \
    --bindir="$PG_BINDIR" --inputdir=. --outputdir=. \
    --dbname=contrib_regression "${suites[@]}") | tee "$workdir/pg_regress.out"
set -e
cluster_stop
trap - EXIT

passed=$(grep -cE '\.\.\. ok|^ok ' "$workdir/pg_regress.out" || true)
failed=$(grep -cE '\.\.\. FAILED|^not ok ' "$workdir/pg_regress.out" || true)
# one log per process valgrind followed: none means the server ran without it
processes=$(find "$workdir/valgrind" -name '*.log' | wc -l)
[ "$processes" -gt 0 ] || { echo "run_valgrind: no process ran under valgrind" >&2; failed=$((failed + 1)); }
reports=$(cat "$workdir"/valgrind/*.log | grep -c 'VALGRINDERROR-BEGIN' || true)
ours=$(cat "$workdir"/valgrind/*.log | awk '/VALGRINDERROR-BEGIN/{b=""} {b=b"\n"$0} /VALGRINDERROR-END/{ if (b ~ /pg_cachectl/) n++ } END{print n+0}')
echo "memcheck over $processes processes: $reports reports in all, $ours with a pg_cachectl frame (logs: $workdir/valgrind)"
if [ "$reports" -gt 0 ]; then
    grep -l VALGRINDERROR-BEGIN "$workdir"/valgrind/*.log | head -n 3 | xargs -r sed -n '/VALGRINDERROR-BEGIN/,/VALGRINDERROR-END/p' | head -n 120
    failed=$((failed + 1))
fi
[ -f "$workdir/regression.diffs" ] && head -n 60 "$workdir/regression.diffs"
[ "$failed" = 0 ] && rm -rf "$workdir"
echo "valgrind: $passed passed, $failed failed"
[ "$failed" = 0 ]
