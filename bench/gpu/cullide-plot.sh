#!/usr/bin/env bash
# The cullide bench's summary as a bar chart: median detect() ms per row on pile/100 and
# deforming/100, with peel's 1.5x (issue 9's bar) as a line per scene.
# Usage: bench/gpu/cullide-plot.sh RESULTS.txt OUT.png   (gnuplot-nox; rows as the file's
# "isc_bench_cullide summary" table names them)
set -euo pipefail
in=$1 out=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed -n '/# isc_bench_cullide summary/,/^$/p' "$in" | awk -F'|' 'NR > 3 && NF > 5 {
  gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); print $2, $3, $4 }' > "$tmp/rows"
for scene in pile/100 deforming/100; do
  f=$tmp/$(echo "$scene" | tr / _)
  awk -v s="$scene" '$1 == s { print $2, $3 }' "$tmp/rows" > "$f"
  awk -v s="$scene" '$1 == s && $2 == "peel" { print 1.5 * $3 }' "$tmp/rows" > "$f.bar"
done
title=$(head -1 "$in" | sed 's/^# //; s/"/'"'"'/g' | cut -c1-100)
gnuplot <<GP
set terminal pngcairo size 1000,440 font ",10" noenhanced
set output "$out"
set multiplot layout 1,2 title "$title"
set style fill solid 0.6 border -1
set boxwidth 0.6
set ylabel "median detect() ms"
set yrange [0:*]
set xtics rotate by -35
set key top left
do for [s in "pile_100 deforming_100"] {
  bar = real(system("cat $tmp/" . s . ".bar"))
  set title s
  plot "$tmp/" . s using 0:2:xtic(1) with boxes notitle, bar with lines lw 2 dt 2 title "1.5 x peel"
}
unset multiplot
GP
