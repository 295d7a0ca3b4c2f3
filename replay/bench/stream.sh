#!/usr/bin/env bash
# stream.sh - memory target: the replayer's `load` RSS (its own baseline) must not
# grow with the trace: <= 64 MiB on a 20 M-event trace and no more on a 200 M-event one. Writes
# synthetic traces (replay/bench/gentrace.c: one thread, 1,024 blocks live, and two threads with
# cross-thread frees) of each length and replays them through build/lib/libhbnull.so with
# --touch=none, so that the RSS is the replayer's own; the replayer of commit $BASE (bp_base in
# progs.sh) replays the same trace written in format 2 beside it, for lengths up to OLD_MAX
# events (default 20000000: it holds ~23 bytes per event). The two-thread trace replays in the
# recorded order up to ORDER_MAX events (default 20000000: its threads alternate at every event,
# the order's worst case, which costs ~0.5-2.5 us per event on a loaded machine), beyond that
# with --order=free only (the order's cost: replay/bench/ordering.sh).
# usage: [BASE=COMMIT] [OLD_MAX=N] [ORDER_MAX=N] replay/bench/stream.sh [EVENTS...]   (default 20000000 200000000)
# Prints per trace: events, file MB, load RSS (KiB), peak RSS of the whole process (KiB), load
# seconds, replay ns per event (wall), CPU (user + sys) ns per event of the whole process.
# Always holds: works in a temporary directory it removes, one trace on disk at a time (~1 GB
# for 200 M events).
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-stream
make -s build/replay/hbreplay build/lib/libhbnull.so build/bench/replay-gentrace
bp_base "$TMP/base"
NULL=$ROOT/build/lib/libhbnull.so
# run NAME REPLAYER NULLLIB TRACE [OPTION...]: one replay, one output line.
run() {
    /usr/bin/time -o "$TMP/rusage" -f '%U %S %M' env LD_PRELOAD="$3" "$2" --touch=none "${@:5}" "$4" >"$TMP/out"
    read -r user sys maxrss <"$TMP/rusage"
    awk -F'\t' -v n="$1" -v mb="$(($(stat -c %s "$4") / 1000000))" -v u="$user" -v s="$sys" -v m="$maxrss" '
        $1 == "phase" && $2 == "load" { load = $6; ls = $3 }
        $1 == "phase" && $2 == "replay" { ops = $4; rs = $3 }
        $1 == "verify" { ok = $2 }
        END { printf "%-34s %11d %7d %10d %10d %8.2f %10.1f %10.1f %s\n", n, ops, mb, load, m, ls, 1e9 * rs / ops, 1e9 * (u + s) / ops, ok }' "$TMP/out"
}
printf '%-34s %11s %7s %10s %10s %8s %10s %10s %s\n' trace events file_MB load_KiB peak_KiB load_s replay_ns cpu_ns verify
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(20000000 200000000)
for n in "${sizes[@]}"; do
    for threads in 1 2; do
        build/bench/replay-gentrace "$TMP/t.hbt" "$n" 3 "$threads" >/dev/null
        if [ "$threads" = 1 ] || [ "$n" -le "${ORDER_MAX:-20000000}" ]; then
            run "this tree, $threads thread(s), format 3" build/replay/hbreplay "$NULL" "$TMP/t.hbt"
        fi
        [ "$threads" = 2 ] && run "this tree --order=free, format 3" build/replay/hbreplay "$NULL" "$TMP/t.hbt" --order=free
        rm -f "$TMP/t.hbt"
        if [ "$n" -le "${OLD_MAX:-20000000}" ]; then
            build/bench/replay-gentrace "$TMP/t.hbt" "$n" 2 "$threads" >/dev/null
            run "${BASE:-b804b1e}, $threads thread(s), format 2" "$TMP/base/build/replay/hbreplay" "$TMP/base/build/lib/libhbnull.so" "$TMP/t.hbt"
            rm -f "$TMP/t.hbt"
        fi
    done
done
bp_load after
