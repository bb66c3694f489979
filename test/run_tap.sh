#!/usr/bin/env bash
# run_tap.sh — the scenario tests under test/t/ (PostgreSQL::Test::Cluster,
# run by prove).  Each test starts and stops its own clusters.  As root this
# runs them as the postgres user (initdb refuses root) from a copy of test/,
# through test/tap_exec.sh, which lets a test that needs root for its
# fixtures (a loop device) start as root and drop to postgres itself.
# Prints "tap: N passed, N failed" last (N counts TAP assertions).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/cluster.sh"

workdir=$(mktemp -d /tmp/cachectl-tap.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
cp -r "$top/test" "$workdir/"
chmod 755 "$workdir"
chown -R postgres: "$workdir" 2>/dev/null || true

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test/t/*.pl)

# As root, prove itself runs as root and test/tap_exec.sh starts each test
# as postgres (or as root, for a test that drops privileges itself).
run_prove=(as_postgres env)
exec_args=()
if [ "$(id -u)" = 0 ]; then
    run_prove=(env)
    exec_args=(--exec "bash $workdir/test/tap_exec.sh")
fi

set +e
(cd "$workdir" && "${run_prove[@]}" \
    PATH="$PG_BINDIR:$PATH" \
    PERL5LIB="$workdir/test/perl:$PG_PGXS_DIR/../../src/test/perl" \
    PG_REGRESS="$PG_PGXS_DIR/../../src/test/regress/pg_regress" \
    TESTDIR="$workdir" \
    PG_CACHECTL_PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)" \
    PG_CACHECTL_SOURCE_DIR="$top" \
    prove -v --timer "${exec_args[@]}" "${tests[@]}") 2>&1 | tee "$workdir/prove.out"
status=${PIPESTATUS[0]}
set -e

passed=$(grep -cE '^ok [0-9]+' "$workdir/prove.out" || true)
failed=$(grep -cE '^not ok [0-9]+' "$workdir/prove.out" || true)
if [ "$status" != 0 ]; then
    # a test that died counts as a failure even with no "not ok" line
    [ "$failed" = 0 ] && failed=1
    # PostgreSQL 15 keeps the nodes' logs in tmp_check/log, 16 and later in log
    for log in "$workdir"/tmp_check/log/*.log "$workdir"/log/*.log; do
        [ -f "$log" ] || continue
        echo "---- $(basename "$log") (last 40 lines)"
        tail -n 40 "$log"
    done
fi
# Which assertions failed, after the logs so a reader of the tail sees them.
# (prove --timer starts each file's line with the clock: "[22:31:10] test/t/…")
awk 'match($0, /test\/t\/[^ ]+\.pl \.+/) { file = substr($0, RSTART); sub(/ .*/, "", file) }
     /^not ok [0-9]+/ { print "FAILED: " file ": " $0 }
     /^Dubious, test returned/ { print "FAILED: " file ": " $0 }' "$workdir/prove.out"
echo "tap: $passed passed, $failed failed"
exit "$status"
