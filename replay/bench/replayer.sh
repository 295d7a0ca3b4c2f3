#!/usr/bin/env bash
# replayer.sh - replayer target: its own cost per event on one thread (target
# <= 15 ns), measured by replaying a single-threaded trace (sqlite3's, recorded here) through
# the in-tree bump allocator (a thread-local pointer bump per size class; it never frees, so every
# page the replayer writes is a fresh page fault, but it writes nothing into its blocks itself, so
# --touch=none faults only its chunk headers) and through build/lib/libhbnull.so, an allocator
# that does no work and touches no new memory, so what is left there is the replayer (decoding,
# the object table, the call). glibc for scale.
# usage: [EXTRA="NAME=LIB.so ..."] replay/bench/replayer.sh [ROUNDS]   (default 7)
# EXTRA adds cells (both touch modes) for other allocator libraries, e.g. an older libbump.so
# built from another commit, interleaved with the others in every round.
# Prints per allocator and --touch mode, over interleaved rounds: the median and the minimum ns
# per event of the replay phase (wall), the median CPU (user + sys) of the whole process per
# event, and its median minor page faults; and the load average before and after.
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
cells=("bump none $ROOT/build/lib/libbump.so" "bump first $ROOT/build/lib/libbump.so"
    "null none $ROOT/build/lib/libhbnull.so" "null first $ROOT/build/lib/libhbnull.so" "glibc none -" "glibc first -")
for extra in ${EXTRA:-}; do
    [ -f "${extra#*=}" ] || { echo "replayer.sh: EXTRA library ${extra#*=} not found: give NAME=/path/lib.so" >&2; exit 2; }
    cells+=("${extra%%=*} none ${extra#*=}" "${extra%%=*} first ${extra#*=}")
done
for _ in $(seq "$ROUNDS"); do
    for c in "${cells[@]}"; do
        read -r name touch lib <<<"$c"
        pre=$([ "$lib" = - ] || echo "$lib")
        /usr/bin/time -o "$TMP/rusage" -f '%U %S %R' env LD_PRELOAD="$pre" build/replay/hbreplay --touch="$touch" "$T" >"$TMP/out"
        read -r user sys minflt <"$TMP/rusage"
        awk -F'\t' -v k="$name $touch" -v u="$user" -v s="$sys" -v flt="$minflt" '$1 == "phase" && $2 == "replay" {
            printf "%s %.2f %.2f %d\n", k, 1e9 * $3 / $4, 1e9 * (u + s) / $4, flt }' "$TMP/out" >>"$TMP/ns"
    done
done
# median of column $3 of the rows of cell $1 $2 in $TMP/ns (min too when $4 = min)
median() {
    awk -v k="$1 $2" -v f="$3" '$1 " " $2 == k { print $f }' "$TMP/ns" | sort -g |
        awk -v m="${4:-}" '{ v[NR] = $1 } END { printf "%12.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; if (m == "min") printf " %12.1f", v[1] }'
}
printf '%-8s %-6s %12s %12s %12s %12s\n' alloc touch median_ns/op min_ns/op cpu_ns/op minflt
for c in "${cells[@]}"; do
    read -r name touch _ <<<"$c"
    printf '%-8s %-6s %s %s %s\n' "$name" "$touch" "$(median "$name" "$touch" 3 min)" "$(median "$name" "$touch" 4)" "$(median "$name" "$touch" 5)"
done
bp_load after
