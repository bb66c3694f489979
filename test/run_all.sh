#!/usr/bin/env bash
# run_all.sh — `make test` and `make test-all`: dependencies, the unit suite
# once, then for each PostgreSQL version: build and install the extension,
# the regression and scenario suites.  Every suite runs even if one fails;
# the last line sums all suites of all versions as "N passed, N failed".
#
# Which versions (VERSIONS; `make test` the host's major, `make test-all`
# "15 17 18 19"):
# - the host's own major (Debian 12's PostgreSQL 15 packages, the default
#   pg_config);
# - each major in CACHECTL_SOURCE_VERSIONS (default "18") built from
#   Debian's source package with assertions by scripts/build_pg_from_source.sh
#   into /var/cache/pg_cachectl (reused while the version is the same);
# - any other major from Debian's binary packages in a debootstrap chroot
#   of the suite that carries it (scripts/chroot_pg.sh: 17 from trixie, 19
#   from sid or experimental, whichever is newer), built there with that
#   suite's compiler.
# PG_CONFIG set (`make test PG_CONFIG=/path/pg_config`): that installation
# only, unless VERSIONS is given too.
#
# How the time is spent: the later versions' servers are made ready in the
# background from the start (at the tests' priority: on a fresh machine they,
# not the first version's suites, decide when the run ends); each version's suites run
# as soon as its server is ready, CACHECTL_VERSION_JOBS versions at a time
# (default 2), each version's scenario files CACHECTL_TAP_JOBS at a time
# (test/run_tap.sh).  A version's output is printed whole when it ends.
#
# The long tests (fuzzing, sqlsmith, soak) run their full time on the first
# version of `make test-all` (CACHECTL_LONG_TESTS=full) and at most
# EXTRA_VERSION_LONG_TEST_SECONDS everywhere else, `make test` included.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

host_major=$( (pg_config --version 2>/dev/null || echo "PostgreSQL 15") | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ -n "${PG_CONFIG:-}" ]; then
    primary_pg_config=$PG_CONFIG
    versions=${VERSIONS:-}
else
    primary_pg_config=
    versions=${VERSIONS:-$host_major}
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

purpose=test
for major in $versions; do
    [ "$(provider_of "$major")" = host ] || purpose=test-all
done
# every scenario file: the packages of those make test leaves out too
[ "${CACHECTL_TAP_ALL:-0}" = 1 ] && purpose=test-all
bash scripts/install_deps.sh "$purpose" || exit 1
host_major=$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

EXTRA_VERSION_LONG_TEST_SECONDS=20
# at_most_extra_seconds VAR — the caller's value of VAR if it is shorter
at_most_extra_seconds() {
    local value=${!1:-$EXTRA_VERSION_LONG_TEST_SECONDS}
    [[ "$value" =~ ^[0-9]+$ ]] && [ "$value" -le "$EXTRA_VERSION_LONG_TEST_SECONDS" ] ||
        value=$EXTRA_VERSION_LONG_TEST_SECONDS
    echo "$value"
}
reduced_long_tests=(
    CACHECTL_FUZZ_SECONDS="$(at_most_extra_seconds CACHECTL_FUZZ_SECONDS)"
    CACHECTL_SQLSMITH_SECONDS="$(at_most_extra_seconds CACHECTL_SQLSMITH_SECONDS)"
    CACHECTL_SOAK_SECONDS="$(at_most_extra_seconds CACHECTL_SOAK_SECONDS)"
)

logs=$(mktemp -d /tmp/cachectl-test-logs.XXXXXX)
chmod 755 "$logs"
background_pids=()
stop_background() {
    local pid
    for pid in "${background_pids[@]}"; do kill -- -"$pid" 2>/dev/null; done
    rm -rf "$logs"
}
trap stop_background EXIT
trap 'exit 130' INT TERM

# ---- the plan, said before anything runs ----
version_list=()
for major in $versions; do
    if [ -z "$primary_pg_config" ] && [ "$(provider_of "$major")" = host ]; then
        primary_pg_config=pg_config
        continue
    fi
    version_list+=("$major")
done
[ -n "$primary_pg_config" ] && version_list=(primary "${version_list[@]}")
version_jobs=${CACHECTL_VERSION_JOBS:-2}
# Two majors side by side run three scenario files each (four each made the
# timed checks of 030 and 052 late on 2 CPUs); one major runs four.
if [ ${#version_list[@]} -gt 1 ] && [ "$version_jobs" -gt 1 ]; then
    export CACHECTL_TAP_JOBS=${CACHECTL_TAP_JOBS:-3}
fi
tap_files=$(ls test/t/*.pl | wc -l)
tap_scope="$tap_files scenario files"
if [ "${CACHECTL_TAP_ALL:-0}" != 1 ]; then
    test_all_only=$(grep -lx '# tap: make test-all only' test/t/*.pl | wc -l)
    tap_scope="$((tap_files - test_all_only)) scenario files (make test-all adds $test_all_only more)"
fi
regress_suites=$(make -s --no-print-directory print-regress-tests | wc -w)
long_mode=${CACHECTL_LONG_TESTS:-reduced}
echo "==== plan: unit (Catch2, plain and sanitized), then on each of: ${versions:-$PG_CONFIG}"
echo "     the architecture check (first version only), pg_regress $regress_suites suites and $tap_scope, ${CACHECTL_TAP_JOBS:-4} at a time;"
if [ "$long_mode" = full ]; then
    echo "     long tests (fuzz, sqlsmith, soak) at full length on the first version, ${EXTRA_VERSION_LONG_TEST_SECONDS} s elsewhere."
else
    echo "     long tests (fuzz, sqlsmith, soak) shortened to ${EXTRA_VERSION_LONG_TEST_SECONDS} s each."
fi
# Measured on a 2-core machine (docs/TESTING.md, "What a run costs").
if [ ${#version_list[@]} -le 1 ]; then
    echo "     Expect about 6 to 8 minutes (342 to 480 s measured, packages present; 403 and 410 s on a fresh machine, apt included)."
else
    echo "     Expect about 26 to 35 minutes, the other servers cached or made from nothing (1,554 to 2,053 s measured; 1,554 to 1,648 s in CI on a fresh machine, 2,053 s from a clean clone that made them)."
fi

# ---- the later versions' servers, made ready in the background ----
# Each leaves its pg_config (a path on the host, or inside its chroot) in
# $logs/server-MAJOR and its progress in $logs/server-MAJOR.log.  The source
# build and the chroots use different resources (CPU, the network), so they
# are made side by side, each kind one after the other.
prepare_server() {
    local major=$1 out=$logs/server-$1
    case "$(provider_of "$major")" in
        source) bash scripts/build_pg_from_source.sh "$major" ;;
        chroot) bash scripts/chroot_pg.sh "$major" prepare ;;
        host) echo pg_config ;;
    esac >"$out.path" 2>"$out.log" && tail -n 1 "$out.path" >"$out"
    touch "$out.done"
}
start_preparing() {
    local kind=$1 major todo=()
    for major in "${version_list[@]}"; do
        [ "$major" != primary ] && [ "$(provider_of "$major")" = "$kind" ] && todo+=("$major")
    done
    [ ${#todo[@]} -gt 0 ] || return 0
    set -m # its own process group, so that an interrupted run stops it
    (
        for major in "${todo[@]}"; do prepare_server "$major"; done
    ) &
    background_pids+=($!)
    set +m
}
start_preparing source
start_preparing chroot
start_preparing host

# ---- one version's suites ----
# run_suite DIR LOGNAME COMMAND... — a runner, its output in DIR/LOGNAME.log
# (and then in DIR/output); its last "SUITE: N passed, N failed"
# line in DIR/counts; a failure of the runner in DIR/status.
run_suite() {
    local dir=$1 log=$1/$2.log short_label
    shift 2
    short_label=$(sed -E 's/ \(.*//' "$dir/label")
    # each scenario file's end is shown as it comes, the rest when the version ends
    "$@" 2>&1 | tee "$log" | grep --line-buffered -E '^\[[0-9:]+\] test/t/' |
        sed -u "s/^/$short_label /"
    [ "${PIPESTATUS[0]}" = 0 ] || echo 1 >"$dir/status"
    cat "$log" >>"$dir/output"
    local line
    line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    echo "${line:-died}" >>"$dir/counts"
    grep -E '^FAILED: ' "$log" | head -n 40 >>"$dir/failures"
    grep -E '^tap-time: ' "$log" >>"$dir/tap-times" || true
}

# run_version KEY LABEL PG_CONFIG TREE [VAR=VALUE...] — build and install the
# extension from TREE against that server, then its regression and scenario
# suites (with the VAR=VALUE settings in their environment), all into
# $logs/version-KEY/.  Commands run through "${in_place[@]}": nothing on the
# host, the chroot runner for a chroot (where TREE is mounted at /pg_cachectl).
run_version() {
    local key=$1 label=$2 pg_config=$3 tree=$4 version started=$SECONDS
    local dir=$logs/version-$key
    shift 4
    mkdir -p "$dir"
    : >"$dir/counts"
    : >"$dir/failures"
    : >"$dir/tap-times"
    if ! version=$("${in_place[@]}" "$pg_config" --version | awk '{ print $2 }') || [ -z "$version" ]; then
        echo "$label: cannot run $pg_config" >"$dir/broken"
        return
    fi
    label="PostgreSQL $version ($label)"
    echo "$label" >"$dir/label"
    {
        echo "==== $label: build and install"
        if ! "${in_place[@]}" make -s -j"$(nproc)" -C "$tree" PG_CONFIG="$pg_config" 2>&1 ||
            ! "${in_place[@]}" make -s -C "$tree" PG_CONFIG="$pg_config" install 2>&1 >/dev/null; then
            echo "$label: the extension did not build or install" >"$dir/broken"
            return
        fi
    } >>"$dir/output"
    # the tree's rules (no loop of calls or includes, src/pg in area folders),
    # read off the objects just built: once, on the host's build
    if [ "$key" = primary ]; then
        echo "==== $label: architecture (test/check_architecture.pl)" >>"$dir/output"
        run_suite "$dir" architecture bash -c 'cd "$1" && perl test/check_architecture.pl' _ "$tree"
    fi
    echo "==== $label: regression tests (pg_regress)" >>"$dir/output"
    run_suite "$dir" regress "${in_place[@]}" env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_regress.sh"
    echo "==== $label: scenario tests (TAP)" >>"$dir/output"
    run_suite "$dir" tap "${in_place[@]}" env PG_CONFIG="$pg_config" "$@" bash "$tree/test/run_tap.sh"
    echo "$((SECONDS - started))" >"$dir/seconds"
    echo "==== $label: done in $((SECONDS - started)) s" >>"$dir/output"
}

# start_version KEY — runs the suites of one version in the background;
# the primary one in this tree, another in a copy (so that this checkout
# stays built for the default server).
start_version() {
    local key=$1 long_tests=("${reduced_long_tests[@]}")
    [ "$long_mode" = full ] && [ "$key" = "${version_list[0]}" ] && long_tests=()
    if [ "$key" = primary ]; then
        local label="Debian $(. /etc/os-release && echo "$VERSION_ID") packages"
        [ -n "${PG_CONFIG:-}" ] && label=$PG_CONFIG
        in_place=()
        run_version primary "$label" "$primary_pg_config" "$top" "${long_tests[@]}" &
        running_pids[primary]=$!
        return
    fi
    local provider pg_config_path copy tree label
    provider=$(provider_of "$key")
    if [ ! -s "$logs/server-$key" ]; then
        mkdir -p "$logs/version-$key"
        cat "$logs/server-$key.log" >"$logs/version-$key/output"
        echo "PostgreSQL $key: its server could not be made ready ($provider)" >"$logs/version-$key/broken"
        return
    fi
    pg_config_path=$(cat "$logs/server-$key")
    copy=$logs/tree-$key
    copy_tree "$copy"
    case "$provider" in
        chroot)
            in_place=(bash "$top/scripts/chroot_pg.sh" "$key" run "$copy")
            tree=/pg_cachectl
            label=$(bash "$top/scripts/chroot_pg.sh" "$key" describe)
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
    # 093 builds 1.2's library from the history, which the copy leaves out
    # (and a chroot has no git): that commit's tree goes into the copy.
    local old_commit
    old_commit=$(sed -n "s/^my \$old_commit = '\([0-9a-f]*\)';$/\1/p" "$top/test/t/093_rolling_upgrade.pl")
    if [ -n "$old_commit" ] && git -C "$top" rev-parse -q --verify "$old_commit^{commit}" >/dev/null 2>&1; then
        mkdir -p "$copy/.old-library-tree"
        git -C "$top" archive "$old_commit" | tar -x -C "$copy/.old-library-tree"
        long_tests+=(CACHECTL_OLD_LIBRARY_TREE="$tree/.old-library-tree")
    fi
    run_version "$key" "$label" "$pg_config_path" "$tree" "${long_tests[@]}" &
    running_pids[$key]=$!
}

run_started=$SECONDS
# The unit suite builds and runs in a copy of the tree, beside the versions:
# this checkout's files change only by the first version's build (before its
# suites; 041 checks that packaging leaves the checkout as it was).  It runs
# at nice 10: the module's build, pg_regress and the scenario files' servers
# are make test's longest path, and the unit suite (a compile, 104 s alone)
# fits in the CPU they leave (beside them at the same priority it took
# 427 s and slowed them all).
copy_tree() {
    mkdir -p "$1"
    tar -C "$top" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./.built-for \
        --exclude=./results --exclude=./test/unit/unit_tests --exclude=./test/unit/sanitized --exclude=./test/unit/pch \
        -cf - . | tar -C "$1" -xf -
}
unit_log=$logs/unit.log
unit_status=1
copy_tree "$logs/tree-unit"
(
    started=$SECONDS
    nice -n 10 env PG_CONFIG="${primary_pg_config:-pg_config}" bash "$logs/tree-unit/test/run_unit.sh" >"$unit_log" 2>&1
    echo $? >"$logs/unit.status"
    echo $((SECONDS - started)) >"$logs/unit.seconds"
) &
unit_pid=$!
unit_shown=no

# A version starts when fewer than CACHECTL_VERSION_JOBS run: the first in the
# order given whose server is ready; each one's output is shown when it ends.
declare -A running_pids=()
pending=("${version_list[@]}")
finished=()
while [ ${#pending[@]} -gt 0 ] || [ ${#running_pids[@]} -gt 0 ] || [ "$unit_shown" = no ]; do
    if [ "$unit_shown" = no ] && ! kill -0 "$unit_pid" 2>/dev/null; then
        wait "$unit_pid"
        echo "==== unit tests (Catch2)"
        cat "$unit_log"
        unit_status=$(cat "$logs/unit.status" 2>/dev/null || echo 1)
        unit_shown=yes
    fi
    for key in "${!running_pids[@]}"; do
        if ! kill -0 "${running_pids[$key]}" 2>/dev/null; then
            wait "${running_pids[$key]}" 2>/dev/null
            unset "running_pids[$key]"
            cat "$logs/version-$key/output" 2>/dev/null
            finished+=("$key")
        fi
    done
    if [ ${#pending[@]} -gt 0 ] && [ ${#running_pids[@]} -lt "$version_jobs" ]; then
        # the first pending version whose server is ready
        ready=
        for index in "${!pending[@]}"; do
            key=${pending[$index]}
            if [ "$key" = primary ] || [ -f "$logs/server-$key.done" ]; then
                ready=$index
                break
            fi
        done
        if [ -n "$ready" ]; then
            pending=("${pending[@]:0:$ready}" "${pending[@]:$((ready + 1))}")
            if [ "$key" != primary ]; then
                echo "==== PostgreSQL $key: server ready ($(provider_of "$key"), $((SECONDS - run_started)) s into the run)"
                cat "$logs/server-$key.log"
            fi
            start_version "$key"
            [ -z "${running_pids[$key]:-}" ] && { cat "$logs/version-$key/output" 2>/dev/null; finished+=("$key"); }
            continue
        fi
    fi
    sleep 1
done

# ---- the summary ----
echo "==== summary"
total_passed=0
total_failed=0
suite_status=$unit_status
# count LABEL LINE — adds a "SUITE: N passed, N failed" line to the totals
count() {
    local label=$1 line=$2
    if [ "$line" = died ] || [ -z "$line" ]; then
        echo "$label: the runner died before counting (1 failure)"
        total_failed=$((total_failed + 1))
        return
    fi
    echo "$label $line"
    total_passed=$((total_passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    total_failed=$((total_failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
}
echo "time: unit $(cat "$logs/unit.seconds" 2>/dev/null) s"
for key in "${finished[@]}"; do
    dir=$logs/version-$key
    [ -f "$dir/seconds" ] && echo "time: $(cat "$dir/label"): $(cat "$dir/seconds") s"
done
echo "time: the whole run $((SECONDS - run_started)) s"
# the 10 slowest scenario files of the run, to see what a change costs
if grep -qs . "$logs"/version-*/tap-times; then
    echo "slowest scenario files (seconds, file, version):"
    for key in "${finished[@]}"; do
        [ -s "$logs/version-$key/tap-times" ] || continue
        sed -E "s/^tap-time: ([0-9]+) (.*)$/\1 \2 $(sed -E 's/ \(.*//' "$logs/version-$key/label")/" "$logs/version-$key/tap-times"
    done | sort -rn | head -n 10 | awk '{ printf "  %5d s  %s  %s %s\n", $1, $2, $3, $4 }'
fi
count "" "$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' "$unit_log" | tail -n 1)"
for key in "${finished[@]}"; do
    dir=$logs/version-$key
    if [ -f "$dir/broken" ]; then
        echo "$(cat "$dir/broken") (1 failure)"
        total_failed=$((total_failed + 1))
        suite_status=1
        continue
    fi
    [ -f "$dir/status" ] && suite_status=1
    label=$(cat "$dir/label")
    while IFS= read -r line; do count "$label" "$line"; done <"$dir/counts"
    sed "s/^/  $label /" "$dir/failures"
done
# a run that counted nothing has failed, whatever the runners returned
[ "$total_passed" -gt 0 ] || { total_failed=$((total_failed + 1)); echo "no test was counted"; }
[ "$total_failed" -gt 0 ] && suite_status=1
echo "$total_passed passed, $total_failed failed"
exit "$suite_status"
