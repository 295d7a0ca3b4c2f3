#!/usr/bin/env bash
# recorder.sh - recorder target: CPU time recorded over CPU time plain (target <= 1.5x)
# on the tree's most malloc-heavy workloads, those that make the most malloc-API calls per second
# of CPU (the default cells of LIST, the threaded ones also at 1 thread; bitmap-pool with 10x its
# --ops, as its default cell takes 20 ms of CPU, twice the resolution of the CPU times).
# usage: [CALLGRIND=0] [RAW=0] [BEFORE=LIB] [PREFIX='chrt -f 10'] [WORKLOADS='name args;...'] replay/bench/recorder.sh [ROUNDS]   (default 7)
# PREFIX: a command every timed run goes through (plain and recorded alike), e.g. `chrt -f 10` (root):
# at real-time priority a multithreaded workload's threads run at once on the CPUs even on a loaded
# machine, which is when threads contend for what they share (the recorder's order).
# BEFORE=LIB: another build of libhbrecord.so (a copy of the library before a change) recorded in
# the same rounds, interleaved (plain, LIB, this build), in the same mode (RAW), with its own ratio column.
# Per workload: ROUNDS interleaved pairs (plain, recorded) timed with GNU time (user + sys, the
# process and its children; the recorder is preloaded into the workload only); prints the events
# recorded, the plain run's median CPU, its malloc-API calls per CPU microsecond (how malloc-heavy
# it is; the list is sorted by it, the heaviest first), the recorded run's median CPU, the median
# of the per-pair ratios with their min-max, and the recorder's own CPU ns per event. With
# CALLGRIND=1 (default) also one run of each under callgrind, plain and recorded: instructions
# (load-independent) and their ratio, and the recorder's instructions per event. The load average
# is printed before and after: on a loaded machine the CPU ratio still moves by ~0.1.
# The recorder runs as heapbench record runs it, in raw mode (HEAPBENCH_RECORD_RAW=1; RAW=0: the
# in-process format-3 writer); the post-pass that then converts its raw files (build/replay/hbconvert)
# is extra work outside the program: its CPU is its own column (median of the rounds), not in the ratio.
# Always holds: works in a temporary directory it removes; needs make (libhbrecord.so, hbtrace,
# the workloads); writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-7}
REC=$ROOT/build/lib/libhbrecord.so
CALLGRIND=${CALLGRIND:-1}
RAW=${RAW:-1}
CONV=$ROOT/build/replay/hbconvert
bp_tmp replay-recorder
DEFAULT='bitmap-pool --threads=1 --alloc=malloc --ops=6000000;thread-churn --threads=1 --mode=loop --ops=800000;'
DEFAULT+='thread-churn --threads=1 --mode=batch --ops=400000;list --alloc=malloc --nodes=2000000;'
DEFAULT+='parser --alloc=malloc --scale=10 --files=4;pool --alloc=malloc --blocks=250000;cross-thread --threads=1 --ops=700000;'
DEFAULT+='churn-random --steps=300000;thread-churn --threads=4 --mode=loop --ops=800000;cross-thread --threads=2 --ops=700000'
IFS=';' read -r -a WL <<<"${WORKLOADS:-$DEFAULT}"

# cpu CMD...: user + sys seconds of CMD and its children (GNU time; output discarded).
read -r -a PRE <<<"${PREFIX:-}"
cpu() { bp_cpu "${PRE[@]}" "$@"; }

: >"$TMP/table"
for w in "${WL[@]}"; do
    read -r -a cmd <<<"$w"
    cmd[0]=$ROOT/build/workloads/${cmd[0]}
    : >"$TMP/rounds"
    for _ in $(seq "$ROUNDS"); do
        p=$(cpu "${cmd[@]}")
        b=$p
        if [ -n "${BEFORE:-}" ]; then
            rm -rf "$TMP/tr" && mkdir "$TMP/tr"
            b=$(cpu env HEAPBENCH_RECORD_RAW="$RAW" HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$BEFORE" "${cmd[@]}")
        fi
        rm -rf "$TMP/tr" && mkdir "$TMP/tr"
        r=$(cpu env HEAPBENCH_RECORD_RAW="$RAW" HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$REC" "${cmd[@]}")
        c=$(cpu "$CONV" "$TMP/tr")
        echo "$p $r $b $c" >>"$TMP/rounds"
    done
    events=0
    for f in "$TMP"/tr/*.hbt; do
        events=$((events + $(build/replay/hbtrace "$f" | sed -nE 's/^operations: ([0-9]+)/\1/p')))
    done
    col() { awk -v c="$1" '{ print $c }' "$TMP/rounds" | bp_median; }
    ratios() { awk '$1 > 0 { print $2 / $1 }' "$TMP/rounds"; }
    before=$(awk '$1 > 0 { print $3 / $1 }' "$TMP/rounds" | bp_median)
    ig="- - -"
    if [ "$CALLGRIND" = 1 ]; then
        ip=$(bp_instructions "${cmd[@]}")
        rm -rf "$TMP/cgtr" && mkdir "$TMP/cgtr"
        ir=$(bp_instructions env HEAPBENCH_RECORD_RAW="$RAW" HEAPBENCH_RECORD_DIR="$TMP/cgtr" LD_PRELOAD="$REC" "${cmd[@]}")
        ig=$(awk -v p="$ip" -v r="$ir" -v e="$events" 'BEGIN { printf "%.0fM %.0fM %.2f %.0f", p / 1e6, r / 1e6, r / p, (r - p) / e }')
    fi
    printf '%s|%d|%.3f|%.1f|%.3f|%.2f (%.2f-%.2f)|%.1f|%s|%s|%.3f\n' "$w" "$events" "$(col 1)" \
        "$(awk -v e="$events" -v c="$(col 1)" 'BEGIN { print (c > 0 ? e / c / 1e6 : 0) }')" "$(col 2)" \
        "$(ratios | bp_median)" "$(ratios | sort -g | head -n 1)" "$(ratios | sort -g | tail -n 1)" \
        "$(awk -v e="$events" -v p="$(col 1)" -v r="$(col 2)" 'BEGIN { print (r - p) / e * 1e9 }')" "$ig" \
        "$([ -n "${BEFORE:-}" ] && printf "%.2f" "$before" || echo -)" "$(col 4)" >>"$TMP/table"
done
echo "| workload | events | plain CPU s | calls / CPU us | recorded CPU s | CPU ratio, median (min-max) | recorder CPU ns / event | callgrind: plain, recorded instructions, ratio, recorder instructions / event | BEFORE's CPU ratio, median | post-pass CPU s (outside the program) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
sort -t'|' -k4 -g -r "$TMP/table" | awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
heavy=$(sort -t'|' -k4 -g -r "$TMP/table" | head -n 1)
echo "most malloc-heavy: $(cut -d'|' -f1 <<<"$heavy"): CPU ratio $(cut -d'|' -f6 <<<"$heavy") against the target 1.5x"
bp_load after
