#!/usr/bin/env bash
# order.sh - fidelity across allocators: does replaying a program's trace rank the
# allocators by peak RSS as running the program itself does, and is the program's own order
# above its rep-to-rep noise? For each program definition of PROGS (default python3-alloc and
# sqlite3; the multithreaded ones: xz zstd pigz pbzip2 python3-threads, and the pipelines pipe2-pipe5
# and pipe5t, below, whose every free is another thread's): records the program once (under
# glibc), then `heapbench exec` of the program, of its baseline command (the same binary doing
# nothing, also recorded once: its own start-up heap, its trace's peak live + mapped bytes, is
# taken off its peak to give the program's non-heap baseline) and of
# `hbreplay --trace --touch=T [--speed=S]` for each mode T or
# T:S of MODES, under every default allocator (or those of ALLOCS), N reps each;
# replay/bench/order_table.py prints the table (medians, the program's rep ranges, ranks, the
# strict count, the pair counts, and each allocator's replay heap against the program's heap).
# usage: [RAW=0|1] [PROGS='python3-alloc sqlite3'] [MODES='first none:recorded ...'] [ENVSET='K=V ...'] [ALLOCS=A1,A2,...] replay/bench/order.sh [REPS]
# (REPS default 3, MODES default first, ALLOCS default: heapbench exec's default allocators)
# ENVSET is given to the program both when it is recorded and under exec (--env), for example
# PYTHONMALLOC=malloc, which sends CPython's small objects through malloc.
# Always holds: works in a temporary directory it removes; reads the results with Python's csv.
set -eu
source "$(dirname "$0")/progs.sh"
REPS=${1:-3}
bp_tmp replay-order
ENVSET=${ENVSET:-}
# RAW=1 (default) records as `heapbench record` does: raw mode, then the post-pass hbconvert;
# RAW=0 with the in-process writer.
RAW=${RAW:-1}
convert() { [ "$RAW" = 0 ] || build/replay/hbconvert "$1" >/dev/null; }
alloc_opt=()
[ -n "${ALLOCS:-}" ] && alloc_opt=(-a "$ALLOCS")
# the program's non-heap baseline: the same binary starting and doing no work
base_command() {
    case $1 in
    python3-alloc | python3-threads) echo "/usr/bin/python3 -c pass" ;;
    sqlite3) echo "sqlite3 :memory: .quit" ;;
    xz | zstd | pigz) echo "$1 --version" ;;
    pbzip2) echo "pbzip2 -V" ;;
    pipe*) echo "build/tests/replay-pipeline 2 1 1" ;;
    *) echo "true" ;;
    esac
}
# The pipelines (replay/tests/pipeline.c: every free made by another thread than the block's maker),
# which have no program definition: pipeN of N stages, pipe5t of 5 stages for a fixed 1 s.
pipe_command() {
    case $1 in
    pipe2) echo "$ROOT/build/tests/replay-pipeline 2 400000 2000" ;;
    pipe3) echo "$ROOT/build/tests/replay-pipeline 3 300000 2000" ;;
    pipe4) echo "$ROOT/build/tests/replay-pipeline 4 250000 2000" ;;
    pipe5) echo "$ROOT/build/tests/replay-pipeline 5 200000 2000" ;;
    pipe5t) echo "$ROOT/build/tests/replay-pipeline 5 100000000 2000 1" ;;
    esac
}
for prog in ${PROGS:-python3-alloc sqlite3}; do
    W=$TMP/$prog
    mkdir -p "$W/work" "$W/tr"
    if [ -n "$(pipe_command "$prog")" ]; then
        read -r -a cmd <<<"$(pipe_command "$prog")"
    else
        bp_setup "$W/work" "$prog"
        read -r -a cmd <<<"$(bp_command "$W/work" "$prog")"
    fi
    read -r -a base <<<"$(base_command "$prog")"
    (cd "$W/work" && env $ENVSET HEAPBENCH_RECORD_DIR="$W/tr" HEAPBENCH_RECORD_RAW="$RAW" LD_PRELOAD="$ROOT/build/lib/libhbrecord.so" "${cmd[@]}" >/dev/null)
    convert "$W/tr"
    T=$(ls -S "$W"/tr/*.hbt | head -n 1) # the process with the most events
    mkdir -p "$W/btr"
    env $ENVSET HEAPBENCH_RECORD_DIR="$W/btr" HEAPBENCH_RECORD_RAW="$RAW" LD_PRELOAD="$ROOT/build/lib/libhbrecord.so" "${base[@]}" >/dev/null 2>&1
    convert "$W/btr"
    base_heap=$(build/replay/hbtrace "$(ls "$W"/btr/*.hbt | head -n 1)" | sed -nE 's/^peak live \+ mapped bytes: ([0-9]+) .*/\1/p')
    (cd "$W/work" && "$ROOT/build/heapbench" exec -w "$prog" -n "$REPS" "${alloc_opt[@]}" --env "$ENVSET" -o "$W/exec" -- "${cmd[@]}" >/dev/null 2>&1)
    "$ROOT/build/heapbench" exec -w "base:$prog" -n "$REPS" "${alloc_opt[@]}" --env "$ENVSET" -o "$W/base" -- "${base[@]}" >/dev/null 2>&1
    dirs=()
    for mode in ${MODES:-first}; do
        speed=max
        [ "${mode#*:}" != "$mode" ] && speed=${mode#*:}
        "$ROOT/build/heapbench" exec -w "replay:$prog" -n "$REPS" "${alloc_opt[@]}" -o "$W/replay-$mode" -- \
            build/replay/hbreplay --trace="$T" --touch="${mode%%:*}" --speed="$speed" >/dev/null 2>&1
        dirs+=("$W/replay-$mode")
    done
    PYTHONPATH=$ROOT/report /usr/bin/python3 replay/bench/order_table.py "$prog" "$W/exec" "$W/base" "$base_heap" "${dirs[@]}"
    bp_load "after $prog"
done
bp_load after
