#!/usr/bin/env bash
# A cullide round of one hook, old against new (the lead's rounds of 2026-11-28, sixth session):
#   bash bench/gpu/cullide-ab.sh <old row name> <HOOK=value giving the code before> <archive name>
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1;
#   1. AB_PROCS processes (default 6) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (the default), <old row name> (the hook), cpu and peel, in an order that changes with
#      the process (issue 9's "within 1.5x of peel").
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/<archive name>.tgz: tests-cullide.txt, accuracy-cullide.txt, cullide-p<N>.txt/.json,
# machine.txt, clocks.csv.
set -uo pipefail
# (packed.sh reads its folder from its first argument: the packed binaries in .devrun.)
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
old=$1 hook=$2 name=$3
final=${OUT:-}
OUT=$(mktemp -d) setup_out "/tmp/$name-out"
cat "$out/machine.txt"
cullide_tests_and_accuracy "$out"
orders=("cullide,$old,cpu,peel" "peel,cpu,$old,cullide" "$old,peel,cullide,cpu"
        "cpu,cullide,peel,$old" "cullide,peel,$old,cpu" "$old,cpu,cullide,peel")
cullide_processes "$out" "${AB_PROCS:-6}" 100 80 "$old:$hook"
: > "$out/marks.txt"
[ -n "$final" ] && tar -czf "$final/$name.tgz" -C "$out" .
