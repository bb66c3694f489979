#!/usr/bin/env bash
# run_all.sh — `make test`: dependencies, the unit suite once, then for each
# PostgreSQL version: build and install the extension, the regression and
# scenario suites.  Every suite runs even if one fails; the last line sums
# all suites of all versions as "N passed, N failed".
#
# Which versions:
# - PG_CONFIG set (`make test PG_CONFIG=/path/pg_config`): that installation
#   only;
# - otherwise the default pg_config (Debian 12's PostgreSQL 15 packages) and
#   every major in CACHECTL_EXTRA_VERSIONS (default "18"), each built from
#   Debian's source package by scripts/build_pg_from_source.sh into
#   /var/cache/pg_cachectl (reused while the version is the same).
# CACHECTL_EXTRA_VERSIONS=none skips the extra versions; set along with
# PG_CONFIG, it adds them to that installation.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install_deps.sh || exit 1

if [ -n "${PG_CONFIG:-}" ]; then
    primary_pg_config=$PG_CONFIG
    extra_versions=${CACHECTL_EXTRA_VERSIONS:-none}
else
    primary_pg_config=pg_config
    extra_versions=${CACHECTL_EXTRA_VERSIONS:-18}
fi
[ "$extra_versions" = none ] && extra_versions=""

total_passed=0
total_failed=0
suite_status=0
summary=()

# Adds the "SUITE: N passed, N failed" line a runner printed last to the
# totals, and to the summary under LABEL.
count_suite() {
    local label=$1 log=$2 line
    line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        summary+=("$label: the runner died before counting (1 failure)")
        total_failed=$((total_failed + 1))
        return
    fi
    summary+=("$label ${line}")
    total_passed=$((total_passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    total_failed=$((total_failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
    # the names of failed assertions, so the summary says what to look at
    local failure
    while IFS= read -r failure; do
        summary+=("  $label ${failure}")
    done < <(grep -E '^FAILED: ' "$log" | head -n 20)
}

# run_suite LABEL LOGNAME COMMAND... — runs a runner, shows and counts it.
run_suite() {
    local label=$1 log=$logs/$2.log
    shift 2
    "$@" 2>&1 | tee "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || suite_status=1
    count_suite "$label" "$log"
}

# The long tests (fuzzing, sqlsmith, soak) run their full time on the
# default server and at most this long on the other versions (the caller's
# value if shorter), so the whole CI stays inside 45 minutes.
EXTRA_VERSION_LONG_TEST_SECONDS=30
at_most_extra_seconds() {
    local value=${!1:-$EXTRA_VERSION_LONG_TEST_SECONDS}
    [[ "$value" =~ ^[0-9]+$ ]] && [ "$value" -le "$EXTRA_VERSION_LONG_TEST_SECONDS" ] ||
        value=$EXTRA_VERSION_LONG_TEST_SECONDS
    echo "$value"
}

# run_version PG_CONFIG TREE [VAR=VALUE...] — build and install the extension
# from TREE against that server, then its regression and scenario suites
# (with the VAR=VALUE settings in their environment).
run_version() {
    local pg_config=$1 tree=$2 version started=$SECONDS
    shift 2
    if ! version=$("$pg_config" --version | awk '{ print $2 }'); then
        summary+=("$pg_config: cannot run it (1 failure)")
        total_failed=$((total_failed + 1))
        return
    fi
    echo "==== PostgreSQL $version ($pg_config): build and install"
    if ! make -s -C "$tree" PG_CONFIG="$pg_config" ||
        ! make -s -C "$tree" PG_CONFIG="$pg_config" install >/dev/null; then
        summary+=("PostgreSQL $version: the extension did not build or install (1 failure)")
        total_failed=$((total_failed + 1))
        return
    fi
    echo "==== PostgreSQL $version: regression tests (pg_regress)"
    run_suite "PostgreSQL $version" "regress-$version" \
        env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_regress.sh"
    echo "==== PostgreSQL $version: scenario tests (TAP)"
    run_suite "PostgreSQL $version" "tap-$version" \
        env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_tap.sh"
    echo "==== PostgreSQL $version: done in $((SECONDS - started)) s"
}

logs=$(mktemp -d /tmp/cachectl-test-logs.XXXXXX)
trap 'rm -rf "$logs"' EXIT

echo "==== unit tests (Catch2)"
run_suite "" unit env PG_CONFIG="$primary_pg_config" bash test/run_unit.sh

run_version "$primary_pg_config" "$top"

for major in $extra_versions; do
    echo "==== PostgreSQL $major: server from Debian's source package"
    if ! pg_config_path=$(bash scripts/build_pg_from_source.sh "$major" | tail -n 1) ||
        [ ! -x "$pg_config_path" ]; then
        summary+=("PostgreSQL $major: the server did not build (1 failure)")
        total_failed=$((total_failed + 1))
        continue
    fi
    # A copy of the tree, so this checkout stays built for the default server.
    tree=$logs/tree-$major
    mkdir -p "$tree"
    tar -C "$top" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
        --exclude=./results --exclude=./test/unit/unit_tests --exclude=./test/unit/sanitized \
        -cf - . | tar -C "$tree" -xf -
    run_version "$pg_config_path" "$tree" \
        CACHECTL_FUZZ_SECONDS="$(at_most_extra_seconds CACHECTL_FUZZ_SECONDS)" \
        CACHECTL_SQLSMITH_SECONDS="$(at_most_extra_seconds CACHECTL_SQLSMITH_SECONDS)" \
        CACHECTL_SOAK_SECONDS="$(at_most_extra_seconds CACHECTL_SOAK_SECONDS)"
done

echo "==== summary"
for line in "${summary[@]}"; do
    echo "${line# }"
done
# a run that counted nothing has failed, whatever the runners returned
[ "$total_passed" -gt 0 ] || { total_failed=$((total_failed + 1)); echo "no test was counted"; }
[ "$total_failed" -gt 0 ] && suite_status=1
echo "$total_passed passed, $total_failed failed"
exit "$suite_status"
