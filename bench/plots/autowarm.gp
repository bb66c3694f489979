# autowarm.gp — pgbench -S TPS per second after a failover (the promoted
# standby) and after a restart with the files dropped from the OS cache
# (bench/autowarm.sh): (a) nothing, (b) pg_prewarm's autoprewarm, (c)
# pg_cachectl's autowarm, and the steady state they are judged against;
# and after a Patroni switchover and failover, autowarm off and on.
# Called by bench/report.sh with data_dir and out_dir set; one data file per
# series (header line = series name), "second tps" rows.
set grid
set key below font ",9" spacing 1.1
set xlabel "seconds after promotion / start"
set ylabel "TPS (pgbench -S)"
set yrange [0:*]
set format y "%g"
panel(name) = system("ls ".data_dir."/".name."--*.dat 2>/dev/null")
has(name) = strlen(panel(name)) > 0
# the steady-state series dashed, the measured ones solid
dash(f) = strstrt(system("head -n1 ".f), "steady") > 0 ? 2 : 1
panels = has("failover_tps") + has("reboot_tps") + has("patroni_switchover_tps") + has("patroni_failover_tps")
set terminal pngcairo size 700 * panels,520 font ",10" noenhanced
set output out_dir."/autowarm.png"
set multiplot layout 1,panels title "Coming back warm: pgbench -S TPS per second (higher is better)"
if (has("failover_tps")) {
    set title "failover: the promoted standby (dashed: the primary's steady state)"
    plot for [f in panel("failover_tps")] f using 1:2 with lines linewidth 2 \
        dashtype dash(f) title columnheader(2)
}
if (has("reboot_tps")) {
    set title "restart, files dropped from the OS cache (dashed: steady state before it)"
    plot for [f in panel("reboot_tps")] f using 1:2 with lines linewidth 2 \
        dashtype dash(f) title columnheader(2)
}
if (has("patroni_switchover_tps")) {
    set title "Patroni switchover: the promoted node (dashed: the leader's steady state)"
    plot for [f in panel("patroni_switchover_tps")] f using 1:2 with lines linewidth 2 \
        dashtype dash(f) title columnheader(2)
}
if (has("patroni_failover_tps")) {
    set title "Patroni failover (leader killed): the promoted node"
    plot for [f in panel("patroni_failover_tps")] f using 1:2 with lines linewidth 2 \
        dashtype dash(f) title columnheader(2)
}
unset multiplot
