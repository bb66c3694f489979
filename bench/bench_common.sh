# bench_common.sh — what every benchmark script shares (it sources
# scripts/cluster.sh and sets ROOT, the checkout): a work folder removed (and
# the cluster stopped) on any exit, messages, the time and arithmetic helpers
# the scripts time with, the machine's description, the table most scripts
# measure, and the machine-readable result lines bench/report.sh collects.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/cluster.sh
. "$ROOT/scripts/cluster.sh"

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

# The file system type of the folder $1 (ext4, xfs, tmpfs, ...).
filesystem_of() { findmnt -n -o FSTYPE --target "$1" 2>/dev/null || stat -f -c %T "$1"; }

# Kernel, architecture, CPUs and memory, for the scripts' headers.
machine_summary() {
    echo "$(uname -r) ($(uname -m)), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
}

# find_t_files — T_PATH, the first segment file of table t's main fork in
# the data directory $DATA, and T_FILES, every segment file it has.
find_t_files() {
    local seg
    T_PATH=$DATA/$(sql -c "SELECT pg_relation_filepath('t')")
    T_FILES=("$T_PATH")
    for ((seg = 1; ; seg++)); do
        [ -e "$T_PATH.$seg" ] || break
        T_FILES+=("$T_PATH.$seg")
    done
}

# find_t_files_every_fork — T_PATH as find_t_files, and T_FILES, every file
# of table t: all segments of all its forks.
find_t_files_every_fork() {
    local f
    T_PATH=$DATA/$(sql -c "SELECT pg_relation_filepath('t')")
    T_FILES=()
    for f in "$T_PATH" "$T_PATH".[0-9]* "$T_PATH"_*; do
        [ -e "$f" ] && T_FILES+=("$f")
    done
}

# build_table_t BLOCKS — table t of BLOCKS 8 kB blocks (two ~4 KB rows a
# block, STORAGE PLAIN so nothing goes to TOAST), in one transaction, then a
# checkpoint.  Sets T_BLOCKS (as measured) and T_BUILD_S (seconds taken).
# psql runs in the background so a TERM reaches the script's trap at once.
build_table_t() {
    local t0 t1
    t0=$(now_us)
    (sql -v rows=$(($1 * 2)) <<'SQL'
BEGIN;
CREATE TABLE t (id int, pad text);
ALTER TABLE t ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO t SELECT g, repeat('x', 4040) FROM generate_series(1, :rows) g;
COMMIT;
CHECKPOINT;
SQL
    ) &
    wait $!
    t1=$(now_us)
    T_BLOCKS=$(sql -c "SELECT pg_relation_size('t') / current_setting('block_size')::int")
    T_BUILD_S=$(calc "($t1 - $t0) / 1e6")
}

# Machine-readable results, one tab-separated line each, for bench/report.sh.
# They go to the file $BENCH_TSV when it is set (bench/run_all.sh sets it),
# otherwise to the script's standard output as it was when bench_start ran
# (file descriptor 7), so a line emitted inside $(...) is not captured.
#   sample BENCH FIGURE SERIES X VALUE UNIT  one measurement (reports take medians)
#   goal   BENCH GOAL OURS ANCHOR RATIO VERDICT
#   info   BENCH KEY VALUE                    a premise of the run
bench_emit() {
    local line
    line=$(printf '%s\t' "$@")
    line=${line%$'\t'}
    if [ -n "${BENCH_TSV:-}" ]; then
        printf '%s\n' "$line" >>"$BENCH_TSV"
    else
        printf '%s\n' "$line" >&7
    fi
}
emit_sample() { bench_emit sample "$BENCH_NAME" "$@"; }
emit_goal() { bench_emit goal "$BENCH_NAME" "$@"; }
emit_info() { bench_emit info "$BENCH_NAME" "$@"; }
exec 7>&1

# fmt EXPR [DIGITS] — EXPR computed and rounded to DIGITS decimals (default 1)
fmt() { calc "sprintf(\"%.${2:-1}f\", $1)"; }

# device_of PATH — "SOURCE DEVICE": what is mounted under PATH and the block
# device whose queue limits apply (a partition's are those of its disk)
device_of() {
    local source dev
    source=$(findmnt -n -o SOURCE --target "$1" | head -n1)
    dev=$(basename "$(readlink -f "$source")")
    if [ ! -d "/sys/class/block/$dev/queue" ]; then
        dev=$(lsblk -n -o PKNAME "/dev/$dev" 2>/dev/null | head -n1)
    fi
    echo "$source $dev"
}

# num VALUE [DIGITS] — VALUE rounded to DIGITS decimals (default 3)
num() { calc "sprintf(\"%.${2:-3}f\", $1)"; }

# median V1 V2 ... — the median of the numbers given
median_of() {
    printf '%s\n' "$@" | sed '/^$/d' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# small_tables_sql — the SQL that makes tables s.r_FIRST .. s.r_LAST of one
# row each (psql variables first and last), committing every 1,000 tables:
# the lock table holds only so many new relations in one transaction.
small_tables_sql() {
    cat <<'SQL'
SET bench.first = :first;
SET bench.last = :last;
DO $$
BEGIN
    FOR i IN current_setting('bench.first')::int..current_setting('bench.last')::int LOOP
        EXECUTE format('CREATE TABLE s.r_%s (id int)', i);
        EXECUTE format('INSERT INTO s.r_%s VALUES (%s)', i, i);
        IF i % 1000 = 0 THEN
            COMMIT;
        END IF;
    END LOOP;
END $$;
CHECKPOINT;
SQL
}
