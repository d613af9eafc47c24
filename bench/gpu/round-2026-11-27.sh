#!/usr/bin/env bash
# The lead's GPU round of 2026-11-27: bench/gpu/round.sh with the parts given (the results files of
# that day name this script and its parts).
exec bash "$(dirname "$0")/round.sh" "$@"
