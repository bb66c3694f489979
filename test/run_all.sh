#!/usr/bin/env bash
# run_all.sh — `make test`: dependencies, the unit suite once, then for each
# PostgreSQL version: build and install the extension, the regression and
# scenario suites.  Every suite runs even if one fails; the last line sums
# all suites of all versions as "N passed, N failed".
#
# Which versions (VERSIONS, default "15 17 18 19"; `make test VERSIONS=15`):
# - the host's own major (Debian 12's PostgreSQL 15 packages, the default
#   pg_config);
# - each major in CACHECTL_SOURCE_VERSIONS (default "18") built from
#   Debian's source package with assertions by scripts/build_pg_from_source.sh
#   into /var/cache/pg_cachectl (reused while the version is the same);
# - any other major from Debian's binary packages in a debootstrap chroot
#   of the suite that carries it (scripts/chroot_pg.sh: 17 from trixie, 19
#   from sid or experimental, whichever is newer), built there with that
#   suite's compiler.
# The servers of the later versions are made ready in the background (at a
# low priority) while the first version's suites run.
# PG_CONFIG set (`make test PG_CONFIG=/path/pg_config`): that installation
# only, unless VERSIONS is given too.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install_deps.sh || exit 1

host_major=$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ -n "${PG_CONFIG:-}" ]; then
    primary_pg_config=$PG_CONFIG
    versions=${VERSIONS:-}
else
    primary_pg_config=
    versions=${VERSIONS:-15 17 18 19}
fi
source_versions=" ${CACHECTL_SOURCE_VERSIONS:-18} "

# How a major is provided: host, source or chroot.
provider_of() {
    if [ "$1" = "$host_major" ]; then
        echo host
    elif [[ "$source_versions" == *" $1 "* ]]; then
        echo source
    else
        echo chroot
    fi
}

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
# value if shorter), so the whole CI of four versions stays inside 60
# minutes (README, Versions under test).
EXTRA_VERSION_LONG_TEST_SECONDS=20
at_most_extra_seconds() {
    local value=${!1:-$EXTRA_VERSION_LONG_TEST_SECONDS}
    [[ "$value" =~ ^[0-9]+$ ]] && [ "$value" -le "$EXTRA_VERSION_LONG_TEST_SECONDS" ] ||
        value=$EXTRA_VERSION_LONG_TEST_SECONDS
    echo "$value"
}

# run_version LABEL PG_CONFIG TREE [VAR=VALUE...] — build and install the
# extension from TREE against that server, then its regression and scenario
# suites (with the VAR=VALUE settings in their environment).  Commands run
# through "${in_place[@]}": nothing on the host, the chroot runner for a
# chroot (where TREE is mounted at /pg_cachectl).
run_version() {
    local label=$1 pg_config=$2 tree=$3 version started=$SECONDS
    shift 3
    if ! version=$("${in_place[@]}" "$pg_config" --version | awk '{ print $2 }') || [ -z "$version" ]; then
        summary+=("$label: cannot run $pg_config (1 failure)")
        total_failed=$((total_failed + 1))
        return
    fi
    label="PostgreSQL $version ($label)"
    echo "==== $label: build and install"
    if ! "${in_place[@]}" make -s -C "$tree" PG_CONFIG="$pg_config" ||
        ! "${in_place[@]}" make -s -C "$tree" PG_CONFIG="$pg_config" install >/dev/null; then
        summary+=("$label: the extension did not build or install (1 failure)")
        total_failed=$((total_failed + 1))
        return
    fi
    echo "==== $label: regression tests (pg_regress)"
    run_suite "$label" "regress-$version" \
        "${in_place[@]}" env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_regress.sh"
    echo "==== $label: scenario tests (TAP)"
    run_suite "$label" "tap-$version" \
        "${in_place[@]}" env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_tap.sh"
    echo "==== $label: done in $((SECONDS - started)) s"
    timings+=("$label: $((SECONDS - started)) s")
}

logs=$(mktemp -d /tmp/cachectl-test-logs.XXXXXX)
background_pid=
stop_background() {
    [ -n "$background_pid" ] && kill -- -"$background_pid" 2>/dev/null
    rm -rf "$logs"
}
trap stop_background EXIT
timings=()

# The later versions' servers, made ready one after the other in the
# background while the first version's suites run: each leaves its pg_config
# (a path on the host, or inside its chroot) in $logs/server-MAJOR and its
# progress in $logs/server-MAJOR.log.
later_versions=()
for major in $versions; do
    if [ -z "$primary_pg_config" ] && [ "$(provider_of "$major")" = host ]; then
        primary_pg_config=pg_config
        continue
    fi
    later_versions+=("$major")
done
prepare_server() {
    local major=$1 out=$logs/server-$1
    case "$(provider_of "$major")" in
        source) bash scripts/build_pg_from_source.sh "$major" ;;
        chroot) bash scripts/chroot_pg.sh "$major" prepare ;;
        host) echo pg_config ;;
    esac >"$out.path" 2>"$out.log" && tail -n 1 "$out.path" >"$out"
    touch "$out.done"
}
if [ ${#later_versions[@]} -gt 0 ]; then
    set -m # its own process group, so that an interrupted run stops it
    (
        renice -n 10 "$BASHPID" >/dev/null
        for major in "${later_versions[@]}"; do prepare_server "$major"; done
    ) &
    background_pid=$!
    set +m
fi

in_place=()
echo "==== unit tests (Catch2)"
run_suite "" unit env PG_CONFIG="${primary_pg_config:-pg_config}" bash test/run_unit.sh

if [ -n "$primary_pg_config" ]; then
    primary_label="Debian $(. /etc/os-release && echo "$VERSION_ID") packages"
    [ -n "${PG_CONFIG:-}" ] && primary_label=$PG_CONFIG
    run_version "$primary_label" "$primary_pg_config" "$top"
fi

for major in "${later_versions[@]}"; do
    provider=$(provider_of "$major")
    echo "==== PostgreSQL $major: waiting for its server ($provider)"
    waited=$SECONDS
    while [ ! -f "$logs/server-$major.done" ]; do sleep 2; done
    cat "$logs/server-$major.log"
    if [ ! -s "$logs/server-$major" ]; then
        summary+=("PostgreSQL $major: its server could not be made ready ($provider; 1 failure)")
        total_failed=$((total_failed + 1))
        continue
    fi
    echo "==== PostgreSQL $major: server ready (waited $((SECONDS - waited)) s)"
    pg_config_path=$(cat "$logs/server-$major")
    # A copy of the tree, so this checkout stays built for the default server.
    copy=$logs/tree-$major
    mkdir -p "$copy"
    tar -C "$top" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./.built-for \
        --exclude=./results --exclude=./test/unit/unit_tests --exclude=./test/unit/sanitized \
        -cf - . | tar -C "$copy" -xf -
    case "$provider" in
        chroot)
            in_place=(bash "$top/scripts/chroot_pg.sh" "$major" run "$copy")
            tree=/pg_cachectl
            label=$(bash "$top/scripts/chroot_pg.sh" "$major" describe)
            ;;
        source)
            in_place=()
            tree=$copy
            label="built from Debian's source package"
            ;;
        *)
            in_place=()
            tree=$copy
            label="host"
            ;;
    esac
    run_version "$label" "$pg_config_path" "$tree" \
        CACHECTL_FUZZ_SECONDS="$(at_most_extra_seconds CACHECTL_FUZZ_SECONDS)" \
        CACHECTL_SQLSMITH_SECONDS="$(at_most_extra_seconds CACHECTL_SQLSMITH_SECONDS)" \
        CACHECTL_SOAK_SECONDS="$(at_most_extra_seconds CACHECTL_SOAK_SECONDS)"
done

echo "==== summary"
for line in "${timings[@]}"; do
    echo "time: $line"
done
for line in "${summary[@]}"; do
    echo "${line# }"
done
# a run that counted nothing has failed, whatever the runners returned
[ "$total_passed" -gt 0 ] || { total_failed=$((total_failed + 1)); echo "no test was counted"; }
[ "$total_failed" -gt 0 ] && suite_status=1
echo "$total_passed passed, $total_failed failed"
exit "$suite_status"
