#!/usr/bin/env bash
# The lead's round of 2026-11-29 (fifteenth session): what the dispatcher's default detector
# (`auto`) costs while it measures, on a real GPU. `isc demo bunny-pile --bodies 100 --steps 180
# --headless --detector-stats` (auto: every exact detector timed on the first calls with pairs, again
# when the calls grow dearer), the rigid pile and with --deform, with the packed `isc` (after) and
# $AW_BEFORE (default .devrun/bin/isc_before: an earlier build copied there before packing), each
# AW_RUNS times (default 2), alternating. Prints auto's lines (its choices and the medians they rest
# on) and the running mean of the step at steps 18, 36, 54 and 180. On the lent machine from the
# repository root. Writes $OUT/auto-warmup.tgz: machine.txt, <form>-<scene>-r<N>.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
round_begin auto-warmup
before=${AW_BEFORE:-$bin/isc_before}
for ((r = 1; r <= ${AW_RUNS:-2}; r++)); do
  for scene in rigid deform; do
    flag=""
    [ $scene = deform ] && flag=--deform
    forms="after before"
    ((r % 2)) || forms="before after"
    for form in $forms; do
      exe=$bin/isc
      [ $form = before ] && exe=$before
      timeout 150 "$exe" demo bunny-pile --bodies 100 --steps 180 --headless $flag --detector-stats \
        --out "$out/pile.png" > "$out/$form-$scene-r$r.txt" 2>&1
      echo "$form $scene run $r: rc $?"
    done
  done
done
for f in "$out"/*-r*.txt; do
  echo "## $(basename "$f")"
  grep -E "^detector: auto" "$f"
  grep -E "^step +(18|36|54|180)/180" "$f"
  grep -E "^summary" "$f"
done | tee "$out/summary.txt"
round_end auto-warmup
