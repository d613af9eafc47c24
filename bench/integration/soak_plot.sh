#!/usr/bin/env bash
# Plots a soak run of isc_bench_reliability (its tab-separated rows): resident memory and GL
# buffer bytes, and total energy with bodies in the world, against the step; the detector in
# use is in the title line of each switch. Usage:
#   bash bench/integration/soak_plot.sh bench/results/<machine>-<date>-soak.txt docs/plots/<machine>-soak.png
set -euo pipefail
in=${1:?usage: soak_plot.sh soak.txt out.png}
out=${2:?usage: soak_plot.sh soak.txt out.png}
data=$(mktemp)
grep -E '^[0-9]' "$in" > "$data"
# Newer runs also have resident memory after malloc_trim (column rss_trim_mib).
trim=""
col=$(grep -m1 '^step' "$in" | tr '\t' '\n' | grep -n '^rss_trim_mib$' | cut -d: -f1 || true)
[ -n "$col" ] && trim=", \\
     \"$data\" using 1:$col with linespoints title \"resident memory after malloc_trim (MiB)\""
# The step at which each detector starts, for labels.
labels=$(awk -F'\t' '$2 != last { printf "set label \"%s\" at %d, graph 0.95 rotate by 90 right font \",8\"\n", $2, $1; last = $2 }' "$data")
gnuplot <<GP
set terminal pngcairo size 1000,700 font ",10" noenhanced
set output "$out"
set datafile separator "\t"
set multiplot layout 2,1 title "Soak: $(basename "$in")"
set xlabel "step"
$labels
set ylabel "MiB"
set key top left
plot "$data" using 1:4 with linespoints title "resident memory (MiB)", \
     "$data" using 1:(\$5/1048576) with linespoints title "GL buffer bytes of bullet-isc (MiB)"$trim
set ylabel "J"
set y2label "bodies / NaN"
set y2tics
plot "$data" using 1:6 with linespoints title "total energy (J)", \
     "$data" using 1:3 axes x1y2 with steps title "bodies in the world", \
     "$data" using 1:7 axes x1y2 with steps title "bodies with NaN"
unset multiplot
GP
rm -f "$data"
echo "wrote $out"
