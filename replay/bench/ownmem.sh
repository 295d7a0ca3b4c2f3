#!/usr/bin/env bash
# ownmem.sh - the replayer's own memory: through the null allocator (build/lib/libhbnull.so, which adds
# nothing) with --touch=none, the peak RSS of the `self` pass and of the replay (the `peak` record)
# against the `load` RSS, on every trace given and on traces made here: the 5-thread pipeline whose
# every free and realloc is another thread's (replay/tests/pipeline.c, 6 M events, queues of 60,000
# blocks: ~200,000 objects outlive their ring slot), the same with queues of 1,000, the 2-thread
# producer/consumer, the 26-thread churn, and a synthetic 2-thread trace (gentrace, 20 M events).
# The target: neither peak more than 1 MiB (1024 KiB) above `load`, in the recorded order (the
# default, what every cell replays). With --order=free (FREE=1) the replay holds more objects at once
# than the program did (a producer runs ahead of its consumer), and the replayer's table of them
# grows: hbreplay warns, and those lines are information, not part of the target.
# usage: [FREE=1] replay/bench/ownmem.sh [TRACE...]   (for example results/traces/*.hbt)
# Prints one line per trace and order: events, load KiB, self peak - load, replay peak - load; the
# last line says whether every one met the target (exit 1 when not).
# Always holds: works in a temporary directory it removes.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-ownmem
make -s build/replay/hbreplay build/replay/hbconvert build/lib/libhbnull.so build/lib/libhbrecord.so \
    build/tests/replay-pipeline build/tests/replay-prodcons build/tests/replay-churn build/bench/replay-gentrace
rec() { # rec NAME CMD...: records CMD in raw mode into $TMP/NAME, prints the trace's path
    local d=$TMP/$1; shift; mkdir -p "$d"
    HEAPBENCH_RECORD_RAW=1 HEAPBENCH_RECORD_DIR=$d LD_PRELOAD=$ROOT/build/lib/libhbrecord.so "$@" >/dev/null
    build/replay/hbconvert "$d" >/dev/null 2>&1
    ls -S "$d"/*.hbt | head -n 1
}
traces=("$@")
traces+=("$(rec pipe5big build/tests/replay-pipeline 5 1200000 60000)")
traces+=("$(rec pipe5 build/tests/replay-pipeline 5 1200000 1000)")
traces+=("$(rec prodcons build/tests/replay-prodcons 400000 1000)")
traces+=("$(rec churn build/tests/replay-churn 25 2000)")
build/bench/replay-gentrace "$TMP/synthetic.hbt" 20000000 >/dev/null
traces+=("$TMP/synthetic.hbt")
bad=0
for t in "${traces[@]}"; do
    for order in recorded ${FREE:+free}; do
        out=$(LD_PRELOAD=$ROOT/build/lib/libhbnull.so build/replay/hbreplay --touch=none --order=$order --trace="$t" 2>&1) || true
        line=$(awk -F'\t' -v t="$(basename "$(dirname "$t")")/$(basename "$t")" -v o="$order" '
            $1 == "phase" && $2 == "load" { l = $6 } $1 == "phase" && $2 == "self" { s = $6 }
            $1 == "phase" && $2 == "peak" { p = $6 } $1 == "phase" && $2 == "replay" { n = $4 } $1 == "verify" { v = $2 }
            END { if (o == "free") { v = v " (information)" }
                  printf "%s --order=%s: %d events, load %d KiB, self peak %+d KiB, replay peak %+d KiB, verify %s\n", t, o, n, l, s - l, p - l, v
                  exit !(o == "free" || (v == "ok" && s - l <= 1024 && p - l <= 1024)) }' <<<"$out") || bad=$((bad + 1))
        echo "$line"
    done
done
bp_load after
[ "$bad" -eq 0 ] && echo "ownmem: every self and replay peak within 1 MiB of load" && exit 0
echo "ownmem: $bad replay(s) above load by more than 1 MiB (or not verified)"
exit 1
