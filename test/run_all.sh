#!/usr/bin/env bash
# run_all.sh — `make test`: dependencies, build, install, then the unit,
# regression and scenario suites.  Every suite runs even if one fails; the
# last line sums them up as "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install_deps.sh || exit 1
make -s || exit 1
make -s install >/dev/null || exit 1

total_passed=0
total_failed=0
suite_status=0

# Adds the "SUITE: N passed, N failed" line a runner printed last to the totals.
count_suite() {
    local log=$1 line
    line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        total_failed=$((total_failed + 1)) # the runner died before counting
        return
    fi
    total_passed=$((total_passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    total_failed=$((total_failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
}

logs=$(mktemp -d /tmp/cachectl-test-logs.XXXXXX)
trap 'rm -rf "$logs"' EXIT

echo "==== unit tests (Catch2)"
bash test/run_unit.sh 2>&1 | tee "$logs/unit.log"
[ "${PIPESTATUS[0]}" = 0 ] || suite_status=1
count_suite "$logs/unit.log"

echo "==== regression tests (pg_regress)"
bash test/run_regress.sh 2>&1 | tee "$logs/regress.log"
[ "${PIPESTATUS[0]}" = 0 ] || suite_status=1
count_suite "$logs/regress.log"

echo "==== scenario tests (TAP)"
bash test/run_tap.sh 2>&1 | tee "$logs/tap.log"
[ "${PIPESTATUS[0]}" = 0 ] || suite_status=1
count_suite "$logs/tap.log"

[ "$total_failed" -gt 0 ] && suite_status=1
echo "$total_passed passed, $total_failed failed"
exit "$suite_status"
