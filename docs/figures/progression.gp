# The GEMM progression: each chapter's lesson kernel as % of cuBLAS (FP32,
# same run), at 4096^3 and 8192^3, and its tensor-core kernel as % of cuBLAS
# BF16 (same run), where it has one. Input: progression.dat, which
# docs/figures.sh extracts from docs/results/<gpu>.csv.
set terminal svg size 1150,400 dynamic font "sans,12" background rgb "white"
set output ARG2
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:135]
set ytics 0,20,100 nomirror
set grid ytics lc rgb "#dddddd"
set ylabel "% of cuBLAS (same run, same line)"
set key top left Left reverse noautotitle noenhanced font ",10"
set xtics nomirror scale 0 noenhanced font ",10"
set border 3
set arrow from graph 0, first 100 to graph 1, first 100 nohead dt 2 lc rgb "#444444"
set label "cuBLAS" at graph 0.995, first 103 right font ",10"
set title ARG3 font ",12" noenhanced
plot ARG1 using 3:xtic(1) title "FP32, 4096^3 (vs cuBLAS SGEMM)" lc rgb "#4878a8", \
     ''   using 4        title "FP32, 8192^3" lc rgb "#9ab8d8", \
     ''   using 5        title "tensor cores, 4096^3 (vs cuBLAS BF16)" lc rgb "#e8a040", \
     ''   using 6        title "tensor cores, 8192^3" lc rgb "#f4d090"
