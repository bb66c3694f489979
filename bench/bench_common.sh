# bench_common.sh — what every benchmark script shares, sourced after
# scripts/cluster.sh: a work folder removed (and the cluster stopped) on any
# exit, messages, and the time and arithmetic helpers the scripts time with.

# bench_start NAME — the script's name for its errors; sets WORK, a fresh
# folder the postgres user can read, and the exit traps that clean up.
bench_start() {
    BENCH_NAME=$1
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/cachectl-$1.XXXXXX")
    chmod 755 "$WORK"
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

bench_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    cluster_stop
    rm -rf "$WORK"
    exit "$rc"
}

say() { printf '%s\n' "$*"; }
die() { printf '%s: %s\n' "$BENCH_NAME" "$*" >&2; exit 1; }

# Microseconds since the epoch, without forking.
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# Floating-point arithmetic through awk: calc EXPR
calc() { awk "BEGIN { printf \"%s\", ($1) }" </dev/null; }

# psql against the bench cluster's postgres database, unaligned, tuples only.
sql() { cluster_psql -d postgres -At -q "$@"; }
