#!/usr/bin/env bash
# run_unit.sh — the core's Catch2 tests (make unittest), counted in test
# cases.  Prints "unit: N passed, N failed" last.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

out=$(mktemp)
trap 'rm -f "$out"' EXIT
make -s -C "$top" --no-print-directory unittest 2>&1 | tee "$out"
status=${PIPESTATUS[0]}

# Catch2 ends with "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed".
if line=$(grep -E '^All tests passed' "$out"); then
    passed=$(echo "$line" | sed -E 's/.* in ([0-9]+) test cases?.*/\1/')
    failed=0
elif line=$(grep -E '^test cases:' "$out"); then
    passed=$(echo "$line" | sed -nE 's/.*\| *([0-9]+) passed.*/\1/p')
    failed=$(echo "$line" | sed -nE 's/.*\| *([0-9]+) failed.*/\1/p')
    passed=${passed:-0}
    failed=${failed:-0}
else
    passed=0
    failed=1 # the binary did not build or did not run
fi
[ "$status" != 0 ] && [ "$failed" = 0 ] && failed=1
echo "unit: $passed passed, $failed failed"
exit "$status"
