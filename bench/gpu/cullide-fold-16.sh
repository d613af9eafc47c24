#!/usr/bin/env bash
# The fold was measured slower and taken out after this round (code at b788a95; cullide.md, "The lead's round of 2026-11-28, sixth session"): on later trees ISC_CULLIDE_FOLD_UPDATE is ignored and both rows run main's path.
# The lead's round of 2026-11-28 (sixth session): cullide's one-view levels with the update folded
# into the query pass (the query's last workgroup updates every member: one dispatch less per
# view; Passes::setFoldUpdate, hook ISC_CULLIDE_FOLD_UPDATE=0 for the code before).
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1;
#   1. FOLD_PROCS processes (default 6) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (folded), cullide_nofold (the code before), cpu and peel, in an order that changes
#      with the process (issue 9's "within 1.5x of peel").
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/cullide-fold-16.tgz: tests-cullide.txt, accuracy-cullide.txt, cullide-p<N>.txt/.json,
# machine.txt, clocks.csv.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/cullide-fold-16-out
cat "$out/machine.txt"
cullide_tests_and_accuracy "$out"
orders=("cullide,cullide_nofold,cpu,peel" "peel,cpu,cullide_nofold,cullide" "cullide_nofold,peel,cullide,cpu"
        "cpu,cullide,peel,cullide_nofold" "cullide,peel,cullide_nofold,cpu" "cullide_nofold,cpu,cullide,peel")
cullide_processes "$out" "${FOLD_PROCS:-6}" 100 80 "cullide_nofold:ISC_CULLIDE_FOLD_UPDATE=0"
: > "$out/marks.txt"
[ -n "$final" ] && tar -czf "$final/cullide-fold-16.tgz" -C "$out" .
