# residency.gp — OS residency time versus relation size (bench/os_residency.sh):
# dense relations in both folio states, and sparse ones; pg_cachectl and
# its anchors as curves, log-log.  Called by bench/report.sh with data_dir
# and out_dir set; one data file per series (header line = series name).
set terminal pngcairo size 1500,520 font ",10" noenhanced
set output out_dir."/residency.png"
set logscale xy
set grid
set key below font ",9" spacing 1.1
set ylabel "ms per call"
set format y "%g"
set format x "%g"
set multiplot layout 1,3 title "OS page-cache residency of one relation: time per call versus relation size in GiB (medians; lower is better)"
panel(name) = system("ls ".data_dir."/".name."--*.dat 2>/dev/null")
set title "dense, fully cached as PostgreSQL wrote it (small folios)"
plot for [f in panel("residency_written")] f using 1:2 with linespoints linewidth 2 title columnheader(2)
set title "dense, fully cached, read back by cat (large folios)"
plot for [f in panel("residency_readback")] f using 1:2 with linespoints linewidth 2 title columnheader(2)
set title "sparse 1 GiB segments, nothing cached"
plot for [f in panel("residency_sparse")] f using 1:2 with linespoints linewidth 2 title columnheader(2)
unset multiplot
