#!/usr/bin/env bash
# run_regress.sh — the pg_regress suites (sql/*.sql against expected/*.out)
# on a temporary instance.  initdb refuses root, so as root this runs
# pg_regress as the postgres user on a copy of the tree that user can write.
# Prints "regress: N passed, N failed" last; exits non-zero on failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/cluster.sh"

tests=$(make -s -C "$top" --no-print-directory print-regress-tests)
workdir=$(mktemp -d /tmp/cachectl-regress.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
cp -r "$top/sql" "$top/expected" "$top/test" "$workdir/"
chmod 755 "$workdir"
chown -R postgres: "$workdir" 2>/dev/null || true

set +e
(cd "$workdir" && as_postgres "$PG_PGXS_DIR/../../src/test/regress/pg_regress" \
    --temp-instance="$workdir/instance" \
    --temp-config="$workdir/test/regress.conf" \
    --bindir="$PG_BINDIR" \
    --inputdir=. --outputdir=. \
    --dbname=contrib_regression \
    $tests) | tee "$workdir/pg_regress.out"
status=${PIPESTATUS[0]}
set -e

passed=$(grep -cE '\.\.\. ok|^ok ' "$workdir/pg_regress.out" || true)
# the failed suites, counted here and named last (after the diffs and the log)
failed_suites=$(grep -E '\.\.\. FAILED|^not ok ' "$workdir/pg_regress.out" || true)
failed=$(printf '%s' "$failed_suites" | grep -c . || true)
if [ "$status" != 0 ]; then
    # keep the actual outputs in the tree for inspection (results/ is ignored by git)
    rm -rf "$top/results" && cp -r "$workdir/results" "$top/results" 2>/dev/null || true
    [ -f "$workdir/regression.diffs" ] && cat "$workdir/regression.diffs"
    [ -d "$workdir/log" ] && tail -n 50 "$workdir"/log/postmaster.log 2>/dev/null || true
    [ "$failed" = 0 ] && failed=1
fi
[ -n "$failed_suites" ] && sed 's/^/FAILED: /' <<<"$failed_suites"
echo "regress: $passed passed, $failed failed"
exit "$status"
