#!/usr/bin/env bash
# replayer.sh - issue 12's replayer target: its own cost per event on one thread (target
# <= 15 ns), measured by replaying a single-threaded trace (sqlite3's, recorded here) through
# build/lib/libhbnull.so, an allocator that does no work and touches no new memory, so what is
# left is the replayer (decoding, the object table, the call). Also shows the in-tree bump
# allocator (two sbrk system calls and a mutex per call: it measures the kernel, not the
# replayer) and glibc, for scale.
# usage: replay/bench/replayer.sh [ROUNDS]   (default 7)
# Prints per allocator and --touch mode the median and the minimum ns per event of the replay
# phase over interleaved rounds, and the load average before and after.
# Always holds: works in a temporary directory it removes.
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-7}
bp_tmp replayer-bench
mkdir -p "$TMP/work" "$TMP/tr"
bp_setup "$TMP/work" sqlite3
read -r -a cmd <<<"$(bp_command "$TMP/work" sqlite3)"
(cd "$TMP/work" && env HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$ROOT/build/lib/libhbrecord.so" "${cmd[@]}" >/dev/null)
T=$(ls "$TMP"/tr/*.hbt | head -n 1)
echo "trace: sqlite3, $(build/replay/hbtrace "$T" | sed -nE 's/^operations: //p') events, 1 thread"
cells=("null none $ROOT/build/lib/libhbnull.so" "null first $ROOT/build/lib/libhbnull.so" "glibc none -" "glibc first -")
[ "${BUMP:-0}" = 1 ] && cells+=("bump none $ROOT/build/lib/libbump.so")
for _ in $(seq "$ROUNDS"); do
    for c in "${cells[@]}"; do
        read -r name touch lib <<<"$c"
        pre=$([ "$lib" = - ] || echo "$lib")
        LD_PRELOAD=$pre build/replay/hbreplay --touch="$touch" "$T" |
            awk -F'\t' -v k="$name $touch" '$1 == "phase" && $2 == "replay" { printf "%s %.2f\n", k, 1e9 * $3 / $4 }' >>"$TMP/ns"
    done
done
printf '%-8s %-6s %12s %12s\n' alloc touch median_ns/op min_ns/op
for c in "${cells[@]}"; do
    read -r name touch lib <<<"$c"
    awk -v k="$name $touch" '$1 " " $2 == k { print $3 }' "$TMP/ns" | sort -g |
        awk -v n="$name" -v t="$touch" '{ v[NR] = $1 } END { printf "%-8s %-6s %12.1f %12.1f\n", n, t, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1] }'
done
bp_load after
