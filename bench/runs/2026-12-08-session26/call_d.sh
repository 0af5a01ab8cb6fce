#!/usr/bin/env bash
# Session 26's second device call: the whole mixed suite (44 cases in four shards) on one machine, with the 4-bit
# upcasts' shifts as multiply-highs and i8 in the fast byte order, so issue 38's table stands on one device and date.
# Usage: LLGEN_COMMIT=<hash> bench/runs/2026-12-08-session26/call_d.sh
cd "$(dirname "$0")/../../.."  # the repository root
PRESHUFFLE_S=0 SHARD_S=${SHARD_S:-115} bench/mixed_run.sh 25
