#!/usr/bin/env bash
# loadcheck.sh - the replayer's `load` (opening and checking the trace) against its `self` and `replay`
# passes on big traces, with the check walked (--check=full) and cached (FILE.check, the default after
# the first replay): wall seconds of each phase (the phase records) and CPU seconds of each (the
# process's utime + stime from /proc at the moment its phase record appears, 10 ms ticks).
# Traces: the synthetic 1-thread trace of EVENTS events (replay/bench/gentrace.c, ~5 bytes per event),
# and thread-churn on one thread in batch mode (EVENTS / 2 malloc/free pairs, BATCH blocks live at
# once, 2M by default: the live objects outlive their ring slots, the check's overflow table's worst
# case; one thread, so that the replay's order between threads does not enter the times) recorded in raw mode and converted (skipped with CHURN=0). ROUNDS interleaved rounds (default 3)
# of full, cached under glibc, --touch=none; the median of each column. BEFORE=BINARY: another build of
# hbreplay (a copy from before a change) run with --check=full in the same rounds, interleaved ("before"
# rows; it shares FILE.check's name, so the cached rounds follow this build's full one).
# REPLAYER=BINARY: the build measured (default build/replay/hbreplay).
# usage: [ROUNDS=N] [CHURN=0] [BATCH=N] [BEFORE=BINARY] [REPLAYER=BINARY] [TRACES="FILE..."] replay/bench/loadcheck.sh [EVENTS]   (default 66700000)
# Always holds: works in a temporary directory it removes; writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-loadcheck
n=${1:-66700000} rounds=${ROUNDS:-3}
make -s build/replay/hbreplay build/replay/hbconvert build/lib/libhbrecord.so build/bench/replay-gentrace build/workloads/thread-churn
read -r -a traces <<<"${TRACES:-}"
if [ -z "${TRACES:-}" ]; then
    build/bench/replay-gentrace "$TMP/synthetic.hbt" "$n" 3 1 >/dev/null
    traces=("$TMP/synthetic.hbt")
    if [ "${CHURN:-1}" != 0 ]; then
        mkdir -p "$TMP/rec"
        HEAPBENCH_RECORD_RAW=1 HEAPBENCH_RECORD_DIR="$TMP/rec" LD_PRELOAD=$ROOT/build/lib/libhbrecord.so \
            build/workloads/thread-churn --threads=1 --mode=batch --batch="${BATCH:-2000000}" --ops=$((n / 2)) >/dev/null
        build/replay/hbconvert "$TMP/rec" 2>/dev/null
        mv "$(ls -S "$TMP"/rec/*.hbt | head -n 1)" "$TMP/churn1.hbt"
        traces+=("$TMP/churn1.hbt")
    fi
fi
tick=$(getconf CLK_TCK)
# run CHECK TRACE [BINARY]: one replay (BINARY: REPLAYER); prints "load_wall self_wall replay_wall load_cpu self_cpu replay_cpu". The
# replay's CPU is the process's total (GNU time) less load's and self's (the process may be gone, reaped,
# when its last records are read).
run() {
    mkfifo "$TMP/fifo"
    /usr/bin/time -f '%U %S' -o "$TMP/time" stdbuf -oL "${3:-${REPLAYER:-build/replay/hbreplay}}" --touch=none --check="$1" --trace="$2" >"$TMP/fifo" 2>"$TMP/err" &
    local pid=$! line hb="" ticks=0 prev=0 walls=() cpus=()
    while IFS= read -r line; do
        [ -n "$hb" ] || hb=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | awk '{ print $1 }')
        case $line in
        phase$'\t'load$'\t'* | phase$'\t'self$'\t'*)
            read -r -a st <"/proc/$hb/stat"
            ticks=$((st[13] + st[14])) # utime + stime (the command has no space in it)
            cpus+=("$(awk -v c=$((ticks - prev)) -v t="$tick" 'BEGIN { printf "%.2f", c / t }')")
            prev=$ticks
            walls+=("$(cut -f3 <<<"$line")") ;;
        phase$'\t'replay$'\t'*) walls+=("$(cut -f3 <<<"$line")") ;;
        esac
    done <"$TMP/fifo"
    wait "$pid" || { cat "$TMP/err" >&2; echo "loadcheck.sh: hbreplay failed on $2 (above)" >&2; exit 1; }
    rm -f "$TMP/fifo"
    cpus+=("$(awk -v p="$prev" -v t="$tick" '{ printf "%.2f", $1 + $2 - p / t }' "$TMP/time")")
    echo "${walls[*]} ${cpus[*]}"
}
printf '%-12s %10s %6s %9s %9s %9s %9s %9s %9s\n' trace events check load_s self_s replay_s load_cpu self_cpu replay_cpu
for f in "${traces[@]}"; do
    events=$(build/replay/hbtrace "$f" | awk '$1 == "operations:" { print $2 }')
    rm -f "$f.check"
    for _ in $(seq "$rounds"); do
        [ -z "${BEFORE:-}" ] || echo "before $(run full "$f" "$BEFORE")" >>"$TMP/rows"
        for how in full cached; do echo "$how $(run "$how" "$f")" >>"$TMP/rows"; done
    done
    for how in ${BEFORE:+before} full cached; do
        printf '%-12s %10s %6s' "$(basename "$f" .hbt)" "$events" "$how"
        for col in 2 3 4 5 6 7; do printf ' %9s' "$(awk -v h="$how" -v c="$col" '$1 == h { print $c }' "$TMP/rows" | bp_median)"; done
        echo
    done
    rm -f "$TMP/rows" "$f.check"
done
bp_load after
