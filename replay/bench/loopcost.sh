#!/usr/bin/env bash
# loopcost.sh - the replay loop's instructions per event (callgrind, load-independent): writes a
# synthetic trace (replay/bench/gentrace.c, format 3) of EVENTS events on THREADS threads and
# replays it under callgrind with --touch=none, collecting inside worker_main only (the self
# and the replay passes), under glibc (valgrind's launcher is a shell script that the null
# allocator breaks).
# usage: [KEEP=FILE] replay/bench/loopcost.sh [EVENTS [THREADS]]   (default 300000 1; KEEP: also
# copy the callgrind profile to FILE, for callgrind_annotate)
# Prints the replayer's own instructions (hbreplay's code: decoding, order, live-object rings)
# per event and pass, and all instructions (glibc's calls included) per event and pass.
# Always holds: works in a temporary directory it removes; needs valgrind.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-loopcost
n=${1:-300000} threads=${2:-1}
make -s build/replay/hbreplay build/bench/replay-gentrace
events=$(build/bench/replay-gentrace "$TMP/t.hbt" "$n" 3 "$threads")
valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" --toggle-collect=worker_main \
    build/replay/hbreplay --touch=none "$TMP/t.hbt" >/dev/null 2>"$TMP/vg.err" \
    || { cat "$TMP/vg.err" >&2; echo "loopcost.sh: callgrind failed (above)" >&2; exit 1; }
[ -z "${KEEP:-}" ] || cp "$TMP/cg.out" "$KEEP"
callgrind_annotate --threshold=100 --show-percs=no "$TMP/cg.out" 2>/dev/null | awk -v ev="$events" '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
    $2 ~ /^(\/[^ ]*\/)?(replay|workloads)\// { gsub(",", "", $1); own += $1 }
    END { printf "events %d x 2 passes: replayer %.1f instructions per event and pass, all %.1f\n", ev, own / (2 * ev), total / (2 * ev) }'
