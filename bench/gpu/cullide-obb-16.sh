#!/usr/bin/env bash
# The lead's round of 2026-11-28 (sixth session): cullide's pair pass with the oriented-box test
# (two rigid clusters whose world boxes meet are kept only when their posed local boxes meet too,
# chain.glsl; hook ISC_CULLIDE_OBB_PAIRS=0 for the world boxes alone, the code before).
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1;
#   1. AB_PROCS processes (default 6) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (oriented boxes), cullide_noobb (the code before), cpu and peel, in an order that
#      changes with the process (issue 9's "within 1.5x of peel").
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/cullide-obb-16.tgz: tests-cullide.txt, accuracy-cullide.txt, cullide-p<N>.txt/.json,
# machine.txt, clocks.csv.
# (Run through bench/gpu/cullide-ab.sh since the sixth session's review: the same parts and rows.)
exec bash "$(dirname "${BASH_SOURCE[0]}")/cullide-ab.sh" cullide_noobb ISC_CULLIDE_OBB_PAIRS=0 cullide-obb-16
