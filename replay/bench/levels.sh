#!/usr/bin/env bash
# levels.sh - the run-to-run levels behind a pair of allocators that order.sh finds swapped (issue
# 12's order target; python3-alloc's jemalloc and mimalloc): records the program once (under
# glibc), then in interleaved rounds runs the program and `hbreplay` of its trace under each
# allocator of ALLOCS, with each mimalloc purge delay of DELAYS, and prints every run's peak RSS
# (KiB, GNU time's maximum resident set), so a two-level allocator shows which level each run took.
# usage: [PROG=python3-alloc] [ALLOCS='mimalloc jemalloc'] [DELAYS=-] [BUSY=0] [REPLAY_ARGS=...] replay/bench/levels.sh [ROUNDS]
# DELAYS: values of MIMALLOC_DECOMMIT_DELAY (ms; - = mimalloc's own default, 25) given to every run.
# BUSY=K: the measured processes and K busy loops share CPU 1 (an emulated load; it adds K
# processes' worth of load to the machine while it runs). ROUNDS default 8.
# Ends with, per delay: each allocator's median peak in the program and in the replay, and in how
# many rounds the first allocator of ALLOCS peaked above the second, in the program and in the replay.
# Always holds: works in a temporary directory it removes; stops only the busy loops it started.
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-8}
PROG=${PROG:-python3-alloc}
read -r -a allocs <<<"${ALLOCS:-mimalloc jemalloc}"
read -r -a replay_args <<<"${REPLAY_ARGS:-}"
BUSY=${BUSY:-0}
bp_tmp replay-levels
busy=()
trap '[ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT

declare -A libs # each allocator's library, from the registry (empty for the system malloc)
for a in "${allocs[@]}"; do
    libs[$a]=$(bp_library "$a") || exit 2
done
# peak DELAY NAME CMD...: CMD's peak RSS in KiB under allocator NAME (and the busy CPU when BUSY > 0).
peak() {
    local d=$1 l=${libs[$2]} pin=()
    shift 2
    [ "$BUSY" -gt 0 ] && pin=(taskset -c 1)
    local envs=(LD_PRELOAD="$l")
    [ "$d" != - ] && envs+=(MIMALLOC_DECOMMIT_DELAY="$d")
    (cd "$TMP/work" && env "${envs[@]}" /usr/bin/time -f %M -o "$TMP/peak" "${pin[@]}" "$@" >/dev/null 2>&1) || true
    tail -n 1 "$TMP/peak"
}

mkdir -p "$TMP/work" "$TMP/tr"
bp_setup "$TMP/work" "$PROG"
read -r -a cmd <<<"$(bp_command "$TMP/work" "$PROG")"
(cd "$TMP/work" && HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$ROOT/build/lib/libhbrecord.so" "${cmd[@]}" >/dev/null)
traces=("$TMP"/tr/*.hbt)
T=${traces[0]}
for _ in $(seq "$BUSY"); do
    taskset -c 1 sh -c 'while :; do :; done' &
    busy+=($!)
done
echo "round delay allocator program replay"
for r in $(seq "$ROUNDS"); do
    for d in ${DELAYS:--}; do
        for a in "${allocs[@]}"; do
            p=$(peak "$d" "$a" "${cmd[@]}")
            q=$(peak "$d" "$a" "$ROOT/build/replay/hbreplay" --trace="$T" "${replay_args[@]}")
            echo "$r $d $a $p $q" | tee -a "$TMP/rows"
        done
    done
done
for d in ${DELAYS:--}; do
    for a in "${allocs[@]}"; do
        echo "delay $d $a: median program $(awk -v d="$d" -v a="$a" '$2 == d && $3 == a { print $4 }' "$TMP/rows" | bp_median)," \
            "replay $(awk -v d="$d" -v a="$a" '$2 == d && $3 == a { print $5 }' "$TMP/rows" | bp_median)"
    done
    for c in 4 5; do
        awk -v d="$d" -v a="${allocs[0]}" -v b="${allocs[1]}" -v c="$c" '$2 == d && $3 == a { x[$1] = $c } $2 == d && $3 == b { y[$1] = $c }
            END { n = 0; k = 0; for (r in x) { n++; k += x[r] > y[r] } printf "delay %s: %s above %s in %d of %d rounds (%s)\n", d, a, b, k, n, c == 4 ? "program" : "replay" }' "$TMP/rows"
    done
done
bp_load after
