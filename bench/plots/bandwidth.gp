# bandwidth.gp — load bandwidth against the device references (cat, dd
# iflag=direct, raw WILLNEED): into the OS page cache (bench/os_prefetch.sh)
# and into shared buffers (bench/both_layers.sh), as bars.  Called by
# bench/report.sh with data_dir and out_dir set; files "label MB/s".
set terminal pngcairo size 1300,520 font ",10" noenhanced
set output out_dir."/bandwidth.png"
set style data boxes
set style fill solid 0.6 border -1
set boxwidth 0.6
set grid ytics
set yrange [0:*]
set ylabel "MB/s (higher is better)"
set xtics rotate by -25 font ",9"
unset key
# a panel for each script that ran (BENCH_ONLY may have left one out)
has_rows(file) = system("test -s '".file."' && echo 1 || echo 0") + 0
prefetch_data = data_dir."/bars_prefetch_bandwidth.dat"
shared_data = data_dir."/bars_load_shared_bandwidth.dat"
have_prefetch = has_rows(prefetch_data)
have_shared = has_rows(shared_data)
set multiplot layout 1,(have_prefetch + have_shared) title "Loading a cold relation: bandwidth (medians)"
if (have_prefetch) {
    set title "into the OS page cache, until 99% cached (os_prefetch.sh)"
    plot prefetch_data using 0:2:xtic(1) linecolor rgb "#4472c4", \
         "" using 0:2:(sprintf("%.0f", $2)) with labels offset 0,0.7 font ",9"
}
if (have_shared) {
    set title "into shared buffers, and references (both_layers.sh)"
    plot shared_data using 0:2:xtic(1) linecolor rgb "#ed7d31", \
         "" using 0:2:(sprintf("%.0f", $2)) with labels offset 0,0.7 font ",9"
}
unset multiplot
