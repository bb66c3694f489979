#!/usr/bin/env bash
# run_unit.sh — the core's Catch2 tests (make unittest), and the same tests
# built with AddressSanitizer and UndefinedBehaviorSanitizer (make
# unittest-sanitized), counted in test cases.  The two flavours build and run
# side by side (each a make of its own, half the cores each); their outputs
# are shown one after the other, then the time of each step, then
# "unit: N passed, N failed" last, both runs together.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cores=$(nproc)
jobs=$((cores / 2))
[ "$jobs" -ge 1 ] || jobs=1

# A dry run first, alone: the Makefile's check of which server the objects
# were built for may remove objects, which must not happen while the other
# flavour's make is compiling them.
make -s -n -C "$top" --no-print-directory unittest >/dev/null 2>&1

# flavour NAME BINARY TARGET — builds BINARY, then runs it through TARGET;
# writes NAME.out, NAME.status, NAME.build-seconds and NAME.run-seconds.
flavour() {
    local name=$1 binary=$2 target=$3 started status
    started=$SECONDS
    make -s -j"$jobs" -C "$top" --no-print-directory "$binary" >"$work/$name.out" 2>&1
    status=$?
    echo $((SECONDS - started)) >"$work/$name.build-seconds"
    if [ "$status" = 0 ]; then
        started=$SECONDS
        make -s -C "$top" --no-print-directory "$target" >>"$work/$name.out" 2>&1
        status=$?
        echo $((SECONDS - started)) >"$work/$name.run-seconds"
    fi
    echo "$status" >"$work/$name.status"
}

flavour unittest test/unit/unit_tests unittest &
plain_pid=$!
flavour unittest-sanitized test/unit/sanitized/unit_tests unittest-sanitized &
sanitized_pid=$!
wait "$plain_pid" "$sanitized_pid"

total_passed=0
total_failed=0
overall=0

# Catch2 ends with "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed"; a sanitizer finding aborts the run.
count() {
    local target=$1 out=$work/$1.out status line passed failed
    status=$(cat "$work/$target.status" 2>/dev/null || echo 1)
    cat "$out"
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

count unittest
count unittest-sanitized
# the steps, slowest first (the two flavours overlap: plain on one half of
# the cores, sanitized on the other)
for name in unittest unittest-sanitized; do
    label=plain
    [ "$name" = unittest-sanitized ] && label=sanitized
    for step in build run; do
        [ -f "$work/$name.$step-seconds" ] &&
            echo "$(cat "$work/$name.$step-seconds") $step $label"
    done
done | sort -rn | awk '{ printf "time: unit %s %s %d s\n", $2, $3, $1 }'
echo "time: unit both flavours $SECONDS s ($jobs make jobs each, $cores cores)"
echo "unit: $total_passed passed, $total_failed failed"
exit "$overall"
