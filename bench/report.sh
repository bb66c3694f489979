#!/usr/bin/env bash
# bench/report.sh DIR — write DIR/REPORT.md and the plots from the
# machine-readable lines that bench/run_all.sh collected in DIR/results.tsv
# (formats in bench_common.sh).  Every figure is the median of its samples;
# each table of pg_cachectl against anchors adds the ratio "how many times
# better is ours" (anchor's time / ours, or our bandwidth / anchor's).  The
# plots are drawn by bench/plots/*.gp from per-series data files written to
# DIR/data/.  Needs awk and gnuplot (gnuplot-nox); without gnuplot the report
# is written and says the plots are missing.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=${1:?usage: report.sh DIR}
TSV=$DIR/results.tsv
[ -s "$TSV" ] || { echo "report.sh: no results in $TSV" >&2; exit 1; }
REPORT=$DIR/REPORT.md
DATA=$DIR/data
rm -rf "$DATA"
mkdir -p "$DATA"

# info KEY [BENCH] — a premise recorded by run_all (or by BENCH)
info() { awk -F'\t' -v b="${2:-run_all}" -v k="$1" '$1 == "info" && $2 == b && $3 == k { v = $4 } END { print v }' "$TSV"; }

# Medians: one line per (bench, figure, series, x) in the order first seen:
# bench figure series x median n min max unit
MEDIANS=$DATA/medians.tsv
awk -F'\t' -v OFS='\t' '$1 == "sample" {
        key = $2 OFS $3 OFS $4 OFS $5
        if (!(key in first)) first[key] = NR
        print first[key], key, $6, $7
    }' "$TSV" |
    sort -t$'\t' -k1,1n -k6,6g |
    awk -F'\t' -v OFS='\t' '
        function flush() {
            if (n == 0) return
            m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            print key, m, n, v[1], v[n], unit
        }
        { k = $2 OFS $3 OFS $4 OFS $5
          if (k != key) { flush(); key = k; n = 0 }
          v[++n] = $6; unit = $7 }
        END { flush() }' >"$MEDIANS"

# What each figure is: its title, and the meaning of its x column.
declare -A TITLE=(
    [residency_written]="OS residency, dense relation fully cached as PostgreSQL wrote it (small folios): ms per call"
    [residency_readback]="OS residency, dense relation fully cached, read back by cat (large folios): ms per call"
    [residency_dropped]="OS residency, dense relation dropped from the OS cache: ms per call"
    [residency_sparse]="OS residency, sparse relation of 1 GiB segments (nothing cached): ms per call"
    [evict_table]="Eviction of one table from a fixed pool: ms"
    [evict_many]="Eviction of many small tables: ms"
    [evict_pool]="Eviction of half the pool, versus shared_buffers: ms"
    [evict_pool_per_buffer]="Eviction of half the pool, versus shared_buffers: µs per buffer"
    [prefetch]="Cold relation into the OS page cache: seconds until 99% cached"
    [prefetch_bandwidth]="Cold relation into the OS page cache: MB/s (to 99% cached)"
    [restore_half]="Half of a relation restored into the OS page cache from a map: seconds until 99%"
    [restore_half_bandwidth]="Half of a relation restored into the OS page cache from a map: MB/s"
    [os_map_sparse]="Block map of a sparse relation: ms"
    [os_map_sparse_memory]="Block map of a sparse relation: backend peak memory growth, MB"
    [status]="status() of a table with a quarter in each layer state, versus the hand join: ms per call"
    [load_shared]="Cold table loaded into shared buffers (and references): ms"
    [load_shared_bandwidth]="Cold table loaded into shared buffers (and references): MB/s"
    [reload_after_restart]="Reloading the shared blocks of a half-warm table after a restart: ms"
    [database_status]="database_status over many one-row tables: ms"
    [database_status_memory]="database_status over many one-row tables: backend peak memory growth, MiB"
    [database_summary]="One scrape: database_summary (per kind) of a database of many relations: ms"
    [top_relations]="One scrape: top_relations(10) of a database of many relations: ms"
    [database_status_for_scale]="database_status of the same database, for scale: ms"
    [metrics_floor]="Parts of the scrape's floor: catalog list + pool pass, fincore over the files, open+fstat+cachestat+close per file (C): ms"
    [failover_tps]="pgbench -S on the promoted standby, per second: TPS"
    [patroni_switchover_tps]="pgbench -S on the node a Patroni switchover promoted, per second: TPS"
    [patroni_failover_tps]="pgbench -S on the node Patroni promoted after the leader crashed, per second: TPS"
    [patroni_first5_share]="Patroni: the promoted node's first 5 s mean TPS, % of the steady state before"
    [patroni_seconds_to_90]="Patroni: seconds from the promotion to a second at 90% of the steady state (-1: not within the run)"
    [patroni_writable_after]="Patroni: seconds from the event to a server that accepts writes"
    [reboot_tps]="pgbench -S after a restart with the files dropped from the OS cache, per second: TPS"
    [first10_share]="Coming back warm: the first 10 s's mean TPS, % of the steady state"
    [seconds_to_90]="Coming back warm: seconds until 90% of the steady state (3-second mean; never: not within the run)"
    [snapshot_cpu]="One snapshot() of the whole database: backend CPU, ms"
    [snapshot_wal]="One snapshot() of the whole database: WAL, kB"
    [snapshot_wall]="One snapshot() of the whole database: wall time, ms"
    [poll_us]="A standby's poll for a newer snapshot of its label: µs per poll"
    [load_seconds]="The same snapshot loaded after a cold restart, by the autowarm worker and by CALL restore(): seconds"
    [state_blocks]="explain_reads() of a seq scan, its Query row: where the blocks came from"
    [state_device_mb]="The same scan's device reads: explain_reads() against pg_stat_kcache, MB"
    [cost]="What measuring costs: explain_reads() against EXPLAIN (ANALYZE, BUFFERS, TIMING OFF), ms"
    [tps_ratio]="pgbench -S, cachectl.track_reads on / off: TPS ratio of a round (off / off: the noise floor)"
    [cpu_ratio]="pgbench -S, alternating runs, by the backends' CPU per transaction: the off run's over the other's (as a throughput ratio)"
    [instructions_per_statement]="User-space instructions per pgbench -S statement (callgrind, single-user backend)"
)
declare -A XNAME=(
    [residency_written]="GiB" [residency_readback]="GiB" [residency_dropped]="GiB" [residency_sparse]="GiB"
    [evict_table]="blocks" [evict_many]="tables" [evict_pool]="shared_buffers MB"
    [evict_pool_per_buffer]="shared_buffers MB" [prefetch]="GB" [prefetch_bandwidth]="GB"
    [restore_half]="GB" [restore_half_bandwidth]="GB" [os_map_sparse]="GiB" [os_map_sparse_memory]="GiB"
    [status]="blocks" [load_shared]="blocks" [load_shared_bandwidth]="blocks"
    [reload_after_restart]="blocks" [database_status]="tables" [database_status_memory]="tables"
    [database_summary]="relations" [top_relations]="relations" [database_status_for_scale]="relations"
    [metrics_floor]="relations"
    [failover_tps]="second" [reboot_tps]="second" [first10_share]="event" [seconds_to_90]="event"
    [patroni_switchover_tps]="second" [patroni_failover_tps]="second" [patroni_first5_share]="event"
    [patroni_seconds_to_90]="event" [patroni_writable_after]="event"
    [snapshot_cpu]="GiB cached" [snapshot_wal]="GiB cached" [snapshot_wall]="GiB cached"
    [poll_us]="rows in the label" [load_seconds]="MiB table"
    [state_blocks]="state" [state_device_mb]="state" [cost]="query"
    [tps_ratio]="working set" [cpu_ratio]="working set" [instructions_per_statement]="working set"
)
# Figures drawn only (a column per second): no table, the plot named.
declare -A PLOT_ONLY=([failover_tps]=autowarm.png [reboot_tps]=autowarm.png
    [patroni_switchover_tps]=autowarm.png [patroni_failover_tps]=autowarm.png)
# Figures whose first series is pg_cachectl and the others its anchors.
RATIO_FIGURES=" residency_written residency_readback residency_dropped residency_sparse evict_many prefetch
    prefetch_bandwidth restore_half restore_half_bandwidth os_map_sparse status load_shared
    load_shared_bandwidth reload_after_restart cost "

# figure_table BENCH FIGURE — a table: a row per series, a column per x, the
# medians; then, for RATIO_FIGURES, a row per anchor with ours' advantage.
figure_table() {
    awk -F'\t' -v b="$1" -v f="$2" -v ratios="$([[ $RATIO_FIGURES == *" $2 "* ]] && echo 1 || echo 0)" '
        function fmt(v) { return (v >= 100 || v == int(v)) ? sprintf("%.0f", v) : (v >= 10 ? sprintf("%.1f", v) : (v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v))) }
        $1 == b && $2 == f {
            if (!($3 in sseen)) { sseen[$3] = 1; series[++ns] = $3 }
            if (!($4 in xseen)) { xseen[$4] = 1; xs[++nx] = $4 }
            med[$3, $4] = $5; unit = $9
            if (nmin == "" || $6 < nmin) nmin = $6
            if (nmax == "" || $6 > nmax) nmax = $6
        }
        END {
            if (ns == 0) exit
            head = "| series (" unit ") |"; rule = "|---|"
            for (i = 1; i <= nx; i++) { head = head " " xs[i] " |"; rule = rule "---:|" }
            print head; print rule
            for (s = 1; s <= ns; s++) {
                line = "| " series[s] " |"
                for (i = 1; i <= nx; i++) {
                    cell = "–"
                    if ((series[s], xs[i]) in med) cell = (unit == "s" && med[series[s], xs[i]] < 0) ? "never" : fmt(med[series[s], xs[i]])
                    line = line " " cell " |"
                }
                print line
            }
            if (ratios == 1) {
                ours = series[1]
                for (s = 2; s <= ns; s++) {
                    line = "| **" ours " vs " series[s] "** |"
                    for (i = 1; i <= nx; i++) {
                        o = med[ours, xs[i]]; a = med[series[s], xs[i]]
                        if (((ours, xs[i]) in med) && ((series[s], xs[i]) in med) && o > 0 && a > 0) {
                            r = (unit == "MB/s") ? o / a : a / o
                            line = line " " sprintf("%.2f×", r) " |"
                        } else line = line " – |"
                    }
                    print line
                }
            }
            print ""
            print "Samples per cell: " (nmin == nmax ? nmin : nmin "–" nmax) "." (ratios == 1 ? " Ratio rows: how many times better the first series is (its time divided into the anchor'"'"'s, or its bandwidth over the anchor'"'"'s)." : "")
        }' "$MEDIANS"
}

# Data files for the plots: DATA/FIGURE--N.dat, one per series, a header
# line naming the series (gnuplot's columnheader) and "x median" rows.
awk -F'\t' -v d="$DATA" '
    { f = $2; s = $3
      if (!((f, s) in idx)) { idx[f, s] = ++count[f]; file = d "/" f "--" count[f] ".dat"; files[f, s] = file
                               printf "x \"%s\"\n", s > file }
      print $4, $5 >> files[f, s] }' "$MEDIANS"
# Bars: DATA/bars_FIGURE.dat, "label median" rows, for the bandwidth charts.
for figure in prefetch_bandwidth load_shared_bandwidth; do
    awk -F'\t' -v f="$figure" '$2 == f { printf "\"%s\" %s\n", $3, $5 }' "$MEDIANS" >"$DATA/bars_$figure.dat"
done

# The scripts whose results each plot draws (a new plot needs its entry):
# a plot none of them fed (a BENCH_ONLY run) is left out and said so, not
# counted as failed.
declare -A PLOT_SOURCES=([residency]="os_residency" [evict]="evict_sweep" [bandwidth]="os_prefetch both_layers"
    [autowarm]="autowarm")
script_ran() { awk -F'\t' -v b="$1" '$2 == b { found = 1 } END { exit !found }' "$TSV"; }
PLOTS_NOTE=''
PLOTS_SKIPPED=''
if command -v gnuplot >/dev/null; then
    for gp in "$HERE"/plots/*.gp; do
        name=$(basename "$gp" .gp)
        fed=no
        for source in ${PLOT_SOURCES[$name]}; do
            script_ran "$source" && fed=yes
        done
        if [ "$fed" = no ]; then
            rm -f "$DIR/$name.png"
            PLOTS_SKIPPED+=" $name.png (${PLOT_SOURCES[$name]} not run)"
            continue
        fi
        (cd "$DIR" && gnuplot -e "data_dir='data'; out_dir='.'" "$gp") || PLOTS_NOTE+=" $(basename "$gp") failed."
    done
else
    PLOTS_NOTE=" gnuplot is not installed (Debian package gnuplot-nox): no plots were drawn."
fi

MODE=$(info mode)
{
    echo "# pg_cachectl benchmark report$([ "$MODE" = QUICK ] && echo " — QUICK run (small sizes, one run each: not the figures to quote)")"
    echo
    echo "Written by \`make bench$([ "$MODE" = QUICK ] && echo " QUICK=1")\` (bench/run_all.sh, bench/report.sh) on $(info date), pg_cachectl at \`$(info commit)\`."
    echo "Every figure is the **median** of $(info runs) run(s) of its measurement, taken in the same run as the"
    echo "anchors it is compared with, on throwaway clusters. Logs of each script (human-readable, every round):"
    echo "[logs/](logs/); every sample: [results.tsv](results.tsv); medians: [data/medians.tsv](data/medians.tsv)."
    echo
    echo "## Machine"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| CPUs | $(info cpus) |"
    echo "| memory | $(info memory) |"
    echo "| kernel | $(info kernel) |"
    echo "| file system of the data directories | $(info filesystem) |"
    echo "| backing device | $(info device) |"
    echo "| measured read bandwidth (\`dd iflag=direct\`) | $(info dd_direct) |"
    echo "| load average (1, 5, 15 min) at start | $(info load_start) |"
    echo "| load average at end | $(info load_end) |"
    echo "| PostgreSQL | $(info postgresql) |"
    awk -F'\t' '$1 == "info" && $3 == "shared_buffers" { printf "| shared_buffers, %s.sh | %s |\n", $2, $4 }' "$TSV"
    echo "| wall time of the benchmarks | $(info wall_seconds) s |"
    echo
    echo "The machine is shared with other work (the load average above): CPU-bound figures move with it."
    echo
    echo "## Goals"
    echo
    echo "Ratios as each script states them (most: anchor's time / ours)."
    echo
    echo "| script | goal | ours | anchor | ratio | result |"
    echo "|---|---|---|---|---:|---|"
    awk -F'\t' '$1 == "goal" { printf "| %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, ($7 == "PASS" ? "PASS" : ($7 == "MISS" ? "**MISS**" : $7)) }' "$TSV"
    echo
    echo "## Plots"
    echo
    if [ -z "$PLOTS_NOTE" ]; then
        for png in residency evict bandwidth autowarm; do
            [ -f "$DIR/$png.png" ] && echo "![$png]($png.png)" && echo
        done
        [ -f "$DIR/bandwidth.png" ] &&
            echo "A load that never reached 99% cached (pgfadvise_willneed: one WILLNEED per 1 GiB segment) has no bar." && echo
        [ -n "$PLOTS_SKIPPED" ] && echo "Not drawn, for want of data:$PLOTS_SKIPPED." && echo
    else
        echo "Not drawn:$PLOTS_NOTE"
        echo
    fi
    echo "## Figures"
    # the scripts in run_all.sh's order; a script's figures not in TITLE are
    # shown under their own names
    for bench in os_residency evict evict_sweep os_prefetch both_layers metrics autowarm snapshot_poll \
        snapshot_load read_sources relation_reads; do
        figures=$(awk -F'\t' -v b="$bench" '$1 == b && !seen[$2]++ { print $2 }' "$MEDIANS")
        [ -n "$figures" ] || continue
        echo
        echo "### $bench.sh"
        for figure in $figures; do
            echo
            if [ -n "${PLOT_ONLY[$figure]:-}" ]; then
                echo "**${TITLE[$figure]}**: plotted in [${PLOT_ONLY[$figure]}](${PLOT_ONLY[$figure]}) (every second in [data/medians.tsv](data/medians.tsv))."
                continue
            fi
            echo "**${TITLE[$figure]:-$figure}** (columns: ${XNAME[$figure]:-x})"
            echo
            figure_table "$bench" "$figure"
        done
    done
    echo
    echo "## Scripts"
    echo
    echo "| script | exit status | seconds | log |"
    echo "|---|---:|---:|---|"
    awk -F'\t' '$1 == "info" && $3 == "script" { split($4, a, " "); printf "| %s.sh | %s | %s | [logs/%s.log](logs/%s.log) |\n", a[1], a[2], a[3], a[1], a[1] }' "$TSV"
    echo
    echo "A non-zero exit status means a check failed or something broke (see the log), not a missed goal."
    echo "What each benchmark measures, and how, is in [bench/README.md]($(realpath --relative-to="$DIR" "$HERE/README.md"))."
} >"$REPORT"
echo "report.sh: wrote $REPORT$([ -n "$PLOTS_NOTE" ] && echo " ($PLOTS_NOTE)")"
