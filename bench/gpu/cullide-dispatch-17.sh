#!/usr/bin/env bash
# The lead's round of 2026-11-29 (seventh session): fewer dependent dispatches in cullide's
# cluster level, each behind its hook, and the level's passes timed one by one.
#   - ISC_CULLIDE_GROUP_UPDATE=1: the update pass's rule applied by the query pass's workgroups
#     (one workgroup per cluster item, marks ORed in shared memory; no update pass);
#   - ISC_CULLIDE_MERGED_SPLAT=1: the splat's modes 0 and 1 in one compare-and-swap pass (key and
#     second in one word per direction);
#   - ISC_CULLIDE_PASS_TIMES=1 (diagnostic): gpu_pass_{clear,splat0,splat1,splat2,update}_ms.
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1,
#      and again with both hooks on;
#   1. PROCS processes (default 5) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (main), cullide_gu, cullide_ms, cullide_gums (both), cullide_pt and cullide_gumspt
#      (pass times of main and of both), cpu and peel, in an order that changes with the process.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# (After this round the merged splat was taken out, b9f0423: its rows now run main's splat; code at c497ddc.)
# Writes $OUT/cullide-dispatch-17.tgz: tests-cullide.txt, accuracy-cullide.txt,
# accuracy-cullide-hooks.txt, cullide-p<N>.txt/.json, machine.txt, clocks.csv.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
name=cullide-dispatch-17
final=${OUT:-}
OUT=$(mktemp -d) setup_out "/tmp/$name-out"
cat "$out/machine.txt"
cullide_tests_and_accuracy "$out"
ISC_CULLIDE_GROUP_UPDATE=1 ISC_CULLIDE_MERGED_SPLAT=1 cullide_accuracy 200 | tee "$out/accuracy-cullide-hooks.txt" | grep -v "^$"
rows=(cullide cullide_gu cullide_ms cullide_gums cullide_pt cullide_gumspt cpu peel)
orders=()
for ((r = 0; r < ${#rows[@]}; r += 3)); do  # each process starts at another row, rotated
  o=""; for ((k = 0; k < ${#rows[@]}; k++)); do o+="${o:+,}${rows[$(((r + k) % ${#rows[@]}))]}"; done
  orders+=("$o")
done
cullide_processes "$out" "${PROCS:-5}" 100 80 \
  "cullide_gu:ISC_CULLIDE_GROUP_UPDATE=1;cullide_ms:ISC_CULLIDE_MERGED_SPLAT=1;cullide_gums:ISC_CULLIDE_GROUP_UPDATE=1,ISC_CULLIDE_MERGED_SPLAT=1;cullide_pt:ISC_CULLIDE_PASS_TIMES=1;cullide_gumspt:ISC_CULLIDE_GROUP_UPDATE=1,ISC_CULLIDE_MERGED_SPLAT=1,ISC_CULLIDE_PASS_TIMES=1"
: > "$out/marks.txt"
[ -n "$final" ] && tar -czf "$final/$name.tgz" -C "$out" .
