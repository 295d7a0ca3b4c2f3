#!/usr/bin/env bash
# overhead.sh - recorder targets on real programs: wall time with the recorder over
# wall time without it (target <= 1.5x) and trace bytes per operation (target <= 12), for the
# python3-alloc, sqlite3 and gcc program definitions.
# usage: replay/bench/overhead.sh [ROUNDS]   (default 5)
# Runs plain and recorded interleaved (plain, recorded, plain, recorded ...) so that the
# machine's drift hits both alike; prints per program the median wall and CPU (user + sys, the
# process and its children) times, the median of the per-round ratios, events, processes and
# bytes per event, and the load average before and after. On a loaded machine the CPU ratio is
# the steadier figure: wall time then mostly measures the other processes.
# Always holds: works in a temporary directory it removes; needs make (libhbrecord.so, hbtrace).
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-5}
REC=$PWD/build/lib/libhbrecord.so
bp_tmp replay-bench

# times CMD...: "wall cpu" seconds of CMD and its children (GNU time; output discarded).
times() { /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$@" >/dev/null 2>&1 || true; awk '{ print $1, $2 + $3 }' "$TMP/time"; }
printf '%-14s %8s %8s %6s %8s %8s %6s %9s %5s %8s\n' program wall_s rec_s ratio cpu_s rec_s ratio events procs bytes/op
for prog in python3-alloc sqlite3 gcc; do
    work=$TMP/$prog
    mkdir -p "$work"
    bp_setup "$work" "$prog"
    read -r -a cmd <<<"$(bp_command "$work" "$prog")"
    : >"$TMP/rounds"
    for _ in $(seq "$ROUNDS"); do
        read -r pw pc <<<"$(cd "$work" && times "${cmd[@]}")"
        rm -rf "$TMP/tr"; mkdir "$TMP/tr"
        read -r qw qc <<<"$(cd "$work" && times env HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$REC" "${cmd[@]}")"
        echo "$pw $qw $pc $qc" >>"$TMP/rounds"
    done
    events=0 bytes=0 procs=0
    for f in "$TMP"/tr/*.hbt; do
        n=$(build/replay/hbtrace "$f" | sed -nE 's/^operations: ([0-9]+)/\1/p')
        events=$((events + n)); bytes=$((bytes + $(wc -c <"$f") - 4096)); procs=$((procs + 1))
    done
    col() { awk -v c="$1" '{ print $c }' "$TMP/rounds" | bp_median; }
    ratio() { awk -v a="$1" -v b="$2" '{ print $b / $a }' "$TMP/rounds" | bp_median; }
    printf '%-14s %8.3f %8.3f %6.2f %8.3f %8.3f %6.2f %9d %5d %8.2f\n' "$prog" "$(col 1)" "$(col 2)" "$(ratio 1 2)" \
        "$(col 3)" "$(col 4)" "$(ratio 3 4)" "$events" "$procs" "$(awk -v b="$bytes" -v e="$events" 'BEGIN { print b / e }')"
done
bp_load after
