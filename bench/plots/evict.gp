# evict.gp — eviction time versus shared_buffers (bench/evict_sweep.sh): half
# of the pool evicted, clean and dirty, and the bare pass over the pool; on
# PostgreSQL 18 also core's pg_buffercache_evict_relation.  Called by
# bench/report.sh with data_dir and out_dir set.
set terminal pngcairo size 1200,480 font ",10" noenhanced
set output out_dir."/evict.png"
set logscale x 2
set logscale y
set grid
set key below font ",9" spacing 1.1
set format y "%g"
set multiplot layout 1,2 title "Evicting half of shared buffers, versus shared_buffers in MB (medians; lower is better)"
panel(name) = system("ls ".data_dir."/".name."--*.dat 2>/dev/null")
set title "time of one call"
set ylabel "ms"
plot for [f in panel("evict_pool")] f using 1:2 with linespoints linewidth 2 title columnheader(2)
set title "time per evicted buffer"
set ylabel "µs per buffer"
unset logscale y
set yrange [0:*]
plot for [f in panel("evict_pool_per_buffer")] f using 1:2 with linespoints linewidth 2 title columnheader(2)
unset multiplot
