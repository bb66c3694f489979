#!/usr/bin/env bash
# run_unit.sh — the core's Catch2 tests (make unittest), then the same tests
# built with AddressSanitizer and UndefinedBehaviorSanitizer (make
# unittest-sanitized), counted in test cases.  Prints "unit: N passed, N
# failed" last, both runs together.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

out=$(mktemp)
trap 'rm -f "$out"' EXIT
total_passed=0
total_failed=0
overall=0

# Catch2 ends with "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed"; a sanitizer finding aborts the run.
run_target() {
    local target=$1 status line passed failed
    make -s -j"$(nproc)" -C "$top" --no-print-directory "$target" 2>&1 | tee "$out"
    status=${PIPESTATUS[0]}
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
        failed=1 # the binary did not build, or a sanitizer stopped it
    fi
    [ "$status" != 0 ] && [ "$failed" = 0 ] && failed=1
    echo "$target: $passed passed, $failed failed"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    [ "$status" = 0 ] || overall=1
}

run_target unittest
run_target unittest-sanitized
echo "unit: $total_passed passed, $total_failed failed"
exit "$overall"
