# A horizontal bar chart of a demonstration's rows: time per item in
# microseconds. Input (tab-separated): label, value. Arguments: data file,
# output, title, axis label, "log" for a logarithmic axis.
set terminal svg size 760,300 dynamic font "sans,12" background rgb "white"
set output ARG2
set datafile separator "\t"
set title ARG3 font ",12" noenhanced
set xlabel ARG4 noenhanced
set style fill solid 0.85 border -1
set ytics nomirror noenhanced scale 0
set xtics nomirror
set border 3
set grid xtics lc rgb "#dddddd"
set offsets 0, 0, 0.5, 0.5
# bars start at the axis: 0, or on a log axis a tenth of the smallest value
stats ARG1 using 2 nooutput
left = (ARG5 eq "log") ? STATS_min / 10.0 : 0
if (ARG5 eq "log") { set logscale x 10; set xrange [left:STATS_max * 8] } else { set xrange [0:STATS_max * 1.25] }
set yrange [STATS_records - 0.5:-0.5]
plot ARG1 using (left):0:(left):2:($0 - 0.35):($0 + 0.35):yticlabels(1) with boxxyerror lc rgb "#4878a8" notitle, \
     ''   using 2:0:(sprintf(" %.3g", $2)) with labels left font ",10" notitle
