# A timeline of traced steps: one row per warp (or per kernel), one box per
# step, coloured by the step's kind. Input (tab-separated): start us, end us,
# row, RGB colour, row label. Arguments: data file, output, title, x range
# end (us), a gnuplot file that sets `legend` (keyentry clauses, one per
# kind shown), box opacity (1: solid; lower where boxes of concurrent blocks
# share a row, so that overlaps show darker).
stats ARG1 using 3 nooutput
rows = STATS_max + 1
set terminal svg size 900, (120 + 15 * rows) dynamic font "sans,11" background rgb "white"
set output ARG2
set datafile separator "\t"
set title ARG3 font ",12" noenhanced
set xlabel "microseconds since the first traced step"
set xrange [0:ARG4 + 0]
set yrange [rows - 0.5:-0.5]
set ytics nomirror noenhanced scale 0 font ",9"
set xtics nomirror
set border 3
set grid xtics lc rgb "#eeeeee"
set key outside bottom center horizontal noenhanced samplen 1.5 font ",10"
opacity = ARG6 + 0
set style fill transparent solid opacity noborder
load ARG5
eval "plot ARG1 using (($1 + $2) / 2):3:1:2:($3 - 0.4):($3 + 0.4):4:ytic(5) with boxxyerror fc rgb variable notitle, " . legend
