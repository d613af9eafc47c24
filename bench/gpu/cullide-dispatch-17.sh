#!/usr/bin/env bash
# The lead's round of 2026-11-29 (seventh session): fewer dependent dispatches in cullide's
# cluster level, each behind its hook, and the level's passes timed one by one.
#   - ISC_CULLIDE_GROUP_UPDATE=1: the update pass's rule applied by the query pass's workgroups
#     (one workgroup per cluster item, marks ORed in shared memory; no update pass);
#   - ISC_CULLIDE_MERGED_SPLAT=1: the splat's modes 0 and 1 in one compare-and-swap pass (key and
#     second in one word per direction; taken out after this round, b9f0423: its rows now run
#     main's splat; code at c497ddc);
#   - ISC_CULLIDE_PASS_TIMES=1 (diagnostic): gpu_pass_{clear,splat0,splat1,splat2,update}_ms.
# Through bench/gpu/cullide-rows.sh: the tests and accuracy on the driver (again with both hooks
# on), then PROCS processes (default 5) of the rows cullide, cullide_gu, cullide_ms, cullide_gums,
# cullide_pt, cullide_gumspt, cpu and peel. Writes $OUT/cullide-dispatch-17.tgz.
exec env PROCS="${PROCS:-5}" bash "$(dirname "${BASH_SOURCE[0]}")/cullide-rows.sh" cullide-dispatch-17 \
  "cullide_gu:ISC_CULLIDE_GROUP_UPDATE=1;cullide_ms:ISC_CULLIDE_MERGED_SPLAT=1;cullide_gums:ISC_CULLIDE_GROUP_UPDATE=1,ISC_CULLIDE_MERGED_SPLAT=1;cullide_pt:ISC_CULLIDE_PASS_TIMES=1;cullide_gumspt:ISC_CULLIDE_GROUP_UPDATE=1,ISC_CULLIDE_MERGED_SPLAT=1,ISC_CULLIDE_PASS_TIMES=1" \
  "ISC_CULLIDE_GROUP_UPDATE=1 ISC_CULLIDE_MERGED_SPLAT=1"
