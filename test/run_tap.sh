#!/usr/bin/env bash
# run_tap.sh — the scenario tests under test/t/ (PostgreSQL::Test::Cluster,
# each file run by prove).  Each test starts and stops its own clusters on
# sockets of its own, so files run side by side: CACHECTL_TAP_JOBS at a time
# (default 4; most of a file's time is spent waiting on its servers, not on
# the two CPUs).  A file that says on a line of its own
#     # tap: runs alone
# (it replaces files other tests load, or compares rates that other tests'
# work on the CPUs would move) runs after the others, with nothing beside
# it.  A file that says
#     # tap: heavy
# (gigabytes of dirty pages, or a time limit measured under a write load)
# runs beside the others but never beside another heavy file, of this run or
# of another major's run on the same machine (a lock in /dev/shm, which the
# chroots share).  The longest files start first (test/tap_order.txt; files
# it does not name start after those).
#
# As root this runs them as the postgres user (initdb refuses root) from a
# copy of test/, through test/tap_exec.sh, which lets a test that needs root
# for its fixtures (a loop device) start as root and drop to postgres itself.
#
# Prints each file's output whole, in file order, then the time of each
# file ("tap-time: SECONDS FILE"), then "tap: N passed, N failed" last
# (N counts TAP assertions).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/cluster.sh"

workdir=$(mktemp -d /tmp/cachectl-tap.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
cp -r "$top/test" "$workdir/"
chmod 755 "$workdir"
chown -R postgres: "$workdir" 2>/dev/null || true
outputs=$workdir/outputs
mkdir -p "$outputs"

jobs=${CACHECTL_TAP_JOBS:-4}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "CACHECTL_TAP_JOBS must be a positive number" >&2; exit 2; }

# A file that says
#     # tap: make test-all only
# (the Debian package, the HA managers: minutes each, alone, on packages of
# their own) runs in `make test-all` (CACHECTL_TAP_ALL=1) and when named,
# not in `make test`, which says it leaves them.
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    left_to_test_all=()
    for test in test/t/*.pl; do
        if [ "${CACHECTL_TAP_ALL:-0}" != 1 ] && grep -qx '# tap: make test-all only' "$top/$test"; then
            left_to_test_all+=("$(basename "$test")")
        else
            tests+=("$test")
        fi
    done
    [ ${#left_to_test_all[@]} -eq 0 ] || echo "tap: left to make test-all: ${left_to_test_all[*]}"
fi

# The files in the order they start: those test/tap_order.txt names (the
# longest first), then the rest; the files that run alone last.
ordered=()
alone=()
is_requested() {
    local wanted
    for wanted in "${tests[@]}"; do [ "$wanted" = "$1" ] && return 0; done
    return 1
}
is_listed() {
    local listed
    for listed in "${ordered[@]}" "${alone[@]}"; do [ "$listed" = "$1" ] && return 0; done
    return 1
}
place() {
    if grep -qx '# tap: runs alone' "$top/$1"; then alone+=("$1"); else ordered+=("$1"); fi
}
while read -r name _; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    is_requested "test/t/$name" && place "test/t/$name"
done <"$top/test/tap_order.txt"
for test in "${tests[@]}"; do
    is_listed "$test" || place "$test"
done

# As root, prove itself runs as root and test/tap_exec.sh starts each test
# as postgres (or as root, for a test that drops privileges itself).
exec_args=()
[ "$(id -u)" = 0 ] && exec_args=(--exec "bash $workdir/test/tap_exec.sh")

# run_file FILE — one file through prove; its output in $outputs/NAME.out,
# its exit status and its seconds in $outputs/NAME.status and NAME.seconds.
run_file() {
    local test=$1 name started status
    name=$(basename "$test" .pl)
    local lock=()
    if grep -qx '# tap: heavy' "$top/$test" && [ -d /dev/shm ] && command -v flock >/dev/null; then
        # --close: the test's servers must not inherit the lock
        lock=(flock --close /dev/shm/pg_cachectl-tap-heavy.lock)
    fi
    # the file's time starts when it runs, after any wait for the lock
    local clock=(bash -c 'date +%s.%N >"$0"; exec "$@"' "$outputs/$name.started")
    set +e
    (cd "$workdir" && "${lock[@]}" "${clock[@]}" env \
        PATH="$PG_BINDIR:$PATH" \
        PERL5LIB="$workdir/test/perl:$PG_PGXS_DIR/../../src/test/perl" \
        PG_REGRESS="$PG_PGXS_DIR/../../src/test/regress/pg_regress" \
        TESTDIR="$workdir" \
        PG_CACHECTL_PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)" \
        PG_CACHECTL_SOURCE_DIR="$top" \
        prove -v "${exec_args[@]}" "$test") >"$outputs/$name.out" 2>&1 </dev/null
    status=$?
    set -e
    echo "$status" >"$outputs/$name.status"
    started=$(cat "$outputs/$name.started" 2>/dev/null || date +%s.%N)
    awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f\n", b - a }' >"$outputs/$name.seconds"
    echo "[$(date +%T)] $test: $([ "$status" = 0 ] && echo ok || echo "FAILED (exit $status)") in $(cat "$outputs/$name.seconds") s"
}

echo "tap: ${#ordered[@]} files, $jobs at a time, then ${#alone[@]} alone"
started_all=$SECONDS
running=0
for test in "${ordered[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_file "$test" &
    running=$((running + 1))
done
wait || true
for test in "${alone[@]}"; do
    run_file "$test"
done

# The outputs whole, in file order, so that a reader sees one file at a time.
for test in "${tests[@]}"; do
    echo "==== $test"
    cat "$outputs/$(basename "$test" .pl).out"
done | tee "$workdir/prove.out"
status=0
for test in "${tests[@]}"; do
    [ "$(cat "$outputs/$(basename "$test" .pl).status")" = 0 ] || status=1
done

passed=$(grep -cE '^ok [0-9]+' "$workdir/prove.out" || true)
failed=$(grep -cE '^not ok [0-9]+' "$workdir/prove.out" || true)
if [ "$status" != 0 ]; then
    # a test that died counts as a failure even with no "not ok" line
    [ "$failed" = 0 ] && failed=1
    # the logs of the files that failed: the test's own (where a test that
    # died says why) and its nodes'; PostgreSQL 15 keeps them in
    # tmp_check/log, 16 and later in log
    for test in "${tests[@]}"; do
        name=$(basename "$test" .pl)
        [ "$(cat "$outputs/$name.status")" = 0 ] && continue
        for log in "$workdir"/tmp_check/log/regress_log_"$name" "$workdir"/log/regress_log_"$name" \
            "$workdir"/tmp_check/log/"$name"_*.log "$workdir"/log/"$name"_*.log; do
            [ -f "$log" ] || continue
            echo "---- $(basename "$log") (last 40 lines)"
            tail -n 40 "$log"
        done
    done
fi
for test in "${tests[@]}"; do
    seconds=$(cat "$outputs/$(basename "$test" .pl).seconds")
    echo "tap-time: $seconds $test"
done
echo "tap: all files in $((SECONDS - started_all)) s"
# Which assertions failed, after the logs so a reader of the tail sees them;
# for a file that died, the 8 lines before Test::More's "exited with N just
# after M" (where and why: the die's message), each cut to 300 characters:
# CI keeps only the tail of a run.
awk '/^==== test\/t\// { file = $2; kept = 0 }
     /^not ok [0-9]+/ { print "FAILED: " file ": " $0 }
     /^# Looks like your test exited with/ {
         for (i = (kept > 8 ? kept - 8 : 0); i < kept; i++) print "FAILED: " file ": | " substr(last[i % 8], 1, 300)
         print "FAILED: " file ": " $0
     }
     !/^(ok|not ok) [0-9]+/ && !/^# Looks like/ { last[kept % 8] = $0; kept++ }
     /^Dubious, test returned/ { print "FAILED: " file ": " $0 }' "$workdir/prove.out"
echo "tap: $passed passed, $failed failed"
exit "$status"
