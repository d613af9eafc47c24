#!/usr/bin/env bash
# The fold was measured slower and taken out after this round (code at b788a95; cullide.md, "The lead's round of 2026-11-28, sixth session"): on later trees ISC_CULLIDE_FOLD_UPDATE is ignored and both rows run main's path.
# The lead's round of 2026-11-28 (sixth session): cullide's one-view levels with the update folded
# into the query pass (the query's last workgroup updates every member: one dispatch less per
# view; Passes::setFoldUpdate, hook ISC_CULLIDE_FOLD_UPDATE=0 for the code before).
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1;
#   1. AB_PROCS processes (default 6) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (folded), cullide_nofold (the code before), cpu and peel, in an order that changes
#      with the process (issue 9's "within 1.5x of peel").
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/cullide-fold-16.tgz: tests-cullide.txt, accuracy-cullide.txt, cullide-p<N>.txt/.json,
# machine.txt, clocks.csv.
# (Run through bench/gpu/cullide-ab.sh since the sixth session's review: the same parts and rows.)
exec bash "$(dirname "${BASH_SOURCE[0]}")/cullide-ab.sh" cullide_nofold ISC_CULLIDE_FOLD_UPDATE=0 cullide-fold-16
