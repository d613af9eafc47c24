#!/usr/bin/env bash
# A cullide round of one hook, old against new (the lead's rounds of 2026-11-28, sixth session):
#   bash bench/gpu/cullide-ab.sh <old row name> <HOOK=value giving the code before> <archive name>
# Since the seventh session one case of bench/gpu/cullide-rows.sh (the tests and accuracy on the
# driver, then AB_PROCS processes, default 6, of the rows cullide, <old row name>, cpu and peel on
# pile/100 and deforming/100, each process starting at another row). Writes $OUT/<archive name>.tgz.
exec env PROCS="${AB_PROCS:-6}" bash "$(dirname "${BASH_SOURCE[0]}")/cullide-rows.sh" "$3" "$1:$2"
