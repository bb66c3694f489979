#!/usr/bin/env bash
# bench/snapshot_poll.sh — what a standby's autowarm worker pays each second
# to ask whether its label has a newer snapshot (issue 28): the same with 10
# and 100,000 rows in the label.
#
# State: a throwaway cluster with pg_cachectl, the label "small" with 10 rows
# and the label "large" with 100,000 rows in cachectl.snapshot (synthetic
# rows: one per relation OID, an OS row of one block, taken_at spread over a
# day), the table analyzed.  Two queries, each REPS times in one session,
# timed inside the server with clock_timestamp():
#   - the poll since 1.1: the label's newest taken_at (ORDER BY taken_at DESC
#     LIMIT 1: one probe of the index on (label, taken_at));
#   - the poll of 1.0: count(*) and max(taken_at) over the label's rows.
# Prints microseconds per poll for each label and the ratio large / small:
# the goal is a ratio under 2 (the same cost) for the poll since 1.1.  A
# benchmark, not a test: exits 0 unless something broke.
#
# Settings (environment): REPS (default 2000), LARGE_ROWS (default 100000),
# PG_CONFIG, TMPDIR.  Run as root or as postgres.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=bench_common.sh
. "$HERE/bench_common.sh"

REPS=${REPS:-2000}
LARGE_ROWS=${LARGE_ROWS:-100000}

bench_start snapshot_poll
cluster_start "$WORK"
sql -c "CREATE EXTENSION pg_cachectl"

# rows label, count: synthetic rows the table's checks accept
add_rows() {
    sql -c "INSERT INTO cachectl.snapshot
              (label, taken_at, system_identifier, relation, relation_name, owner_table, owner_table_name,
               relfilenode, fork, layer, fork_blocks, block_count, blocks)
            SELECT '$1', now() - (g % 86400) * interval '1 second', cachectl_internal.system_identifier(),
                   g, 'r' || g, g, 'r' || g, g, 'main', 'os', 1, 1, '{[0,1)}'
              FROM generate_series(1, $2) AS g"
}
add_rows small 10
add_rows large "$LARGE_ROWS"
sql -c "ANALYZE cachectl.snapshot"

NEW_POLL="SELECT s.taken_at::text FROM cachectl.snapshot AS s WHERE s.label = \$1 ORDER BY s.taken_at DESC LIMIT 1"
OLD_POLL="SELECT count(*)::text || '/' || COALESCE(max(s.taken_at)::text, '') FROM cachectl.snapshot AS s WHERE s.label = \$1"

# poll_us QUERY LABEL — microseconds per poll, REPS polls in one session
poll_us() {
    sql -c "PREPARE poll(text) AS $1" -c "
DO \$\$
DECLARE
    started timestamptz;
    v text;
BEGIN
    EXECUTE 'EXECUTE poll(''$2'')' INTO v;   -- untimed: plans and caches
    started := clock_timestamp();
    FOR i IN 1 .. $REPS LOOP
        EXECUTE 'EXECUTE poll(''$2'')' INTO v;
    END LOOP;
    RAISE NOTICE 'us=%', round(extract(epoch FROM clock_timestamp() - started) * 1e6 / $REPS, 2);
END
\$\$" 2>&1 | sed -n 's/.*us=//p'
}

say "premises: PostgreSQL $(sql -c 'SHOW server_version'), rows: small 10, large $LARGE_ROWS, $REPS polls each, one session"
say "plan of the poll since 1.1 (large):"
large_literal="'large'"
sql -c "EXPLAIN (COSTS OFF) ${NEW_POLL//\$1/$large_literal}" | sed 's/^/    /'

declare -A US
for query in new old; do
    for label in small large; do
        if [ "$query" = new ]; then text=$NEW_POLL; else text=$OLD_POLL; fi
        US[$query.$label]=$(poll_us "$text" "$label")
        [ -n "${US[$query.$label]}" ] || die "the $query poll of $label did not run"
        emit_sample poll_us "$([ "$query" = new ] && echo 'poll since 1.1' || echo 'poll of 1.0')" \
            "$([ "$label" = small ] && echo 10 || echo "$LARGE_ROWS")" "${US[$query.$label]}" µs
    done
done

new_ratio=$(num "${US[new.large]} / ${US[new.small]}" 2)
old_ratio=$(num "${US[old.large]} / ${US[old.small]}" 2)
say "poll since 1.1: small ${US[new.small]} us, large ${US[new.large]} us, large / small $new_ratio"
say "poll of 1.0:    small ${US[old.small]} us, large ${US[old.large]} us, large / small $old_ratio"
verdict=$(calc "$new_ratio < 2 ? \"PASS\" : \"MISS\"")
say "goal: the poll costs the same with 10 and $LARGE_ROWS rows (large / small < 2): $verdict"
emit_goal "standby poll, $LARGE_ROWS rows vs 10, < 2x" "$new_ratio" 2 "$(num "2 / $new_ratio" 2)" "$verdict"
emit_info "old poll large / small" "$old_ratio"
