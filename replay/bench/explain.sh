#!/usr/bin/env bash
# explain.sh - heapbench explain's targets: do the measured parts add up to RSS (within 5%), at the peak and at the
# end, for each allocator, on the frag, parser and server workloads and the python3-alloc and sqlite3 program
# definitions; and is glibc's pinned free memory on frag (--pin=yes, at the moment before its pin is freed: --at=-2)
# attributed to the pin's call site (>= 90%), while an allocator that returns memory has that site pin < 1 MiB.
# usage: [ALLOCS=glibc,jemalloc,...] [PROGS='frag parser server python3-alloc sqlite3'] replay/bench/explain.sh
# Prints one row per program, moment and allocator: RSS MiB, the parts' sum, unexplained % of RSS, the replay's own
# wall seconds against a plain replay of the same trace; then the pinning rows; the load average before and after.
# Always holds: each program is recorded once (heapbench record, whole stacks) in a temporary directory it removes;
# every figure is read from hbreplay --explain's file (docs/DATA.md "Explanations"); writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp explain
HB=$ROOT/build/heapbench
REPLAY=$ROOT/build/replay/hbreplay
ALLOCS=${ALLOCS:-glibc,jemalloc,tcmalloc,tcmalloc-minimal,mimalloc,tbbmalloc}
PROGS=${PROGS:-frag parser server python3-alloc sqlite3}
# the part lines' sum and the rss of an explanation file: "RSS SUM"
sums() { awk -F'\t' '$1 == "part" { s += $3 } $1 == "total" && $2 == "rss" { r = $3 } END { print r, s }' "$1"; }

record() { # record NAME TRACE
    case $1 in
    frag) set -- "$1" "$2" "$ROOT/build/workloads/frag" --pin=yes ;;
    parser | server) set -- "$1" "$2" "$ROOT/build/workloads/$1" ;;
    *) mkdir -p "$TMP/work.$1" && bp_setup "$TMP/work.$1" "$1" && read -r -a c <<<"$(bp_command "$TMP/work.$1" "$1")" &&
        set -- "$1" "$2" "${c[@]}" ;;
    esac
    local name=$1 trace=$2
    shift 2
    (cd "$TMP/work.$name" 2>/dev/null || cd "$TMP"; HEAPBENCH_RECORD_SITES=all "$HB" record -o "$trace" -- "$@" >"$TMP/rec.log" 2>&1) ||
        { echo "explain.sh: recording $name failed: $(tail -n 1 "$TMP/rec.log")" >&2; exit 1; }
}

echo "| program | moment | allocator | RSS MiB | parts MiB | unexplained % of RSS | explain s | plain replay s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
IFS=',' read -r -a AL <<<"$ALLOCS"
for p in $PROGS; do
    record "$p" "$TMP/$p.hbt"
    for a in "${AL[@]}"; do
        lib=$(bp_library "$a")
        t0=$(date +%s.%N)
        LD_PRELOAD=$lib "$REPLAY" --trace="$TMP/$p.hbt" >/dev/null 2>&1 || true
        plain=$(echo "$(date +%s.%N) - $t0" | bc)
        for at in peak end; do
            t0=$(date +%s.%N)
            LD_PRELOAD=$lib "$REPLAY" --explain="$TMP/x.tsv" --at=$at --trace="$TMP/$p.hbt" >/dev/null 2>"$TMP/err" ||
                { echo "| $p | $at | $a | replay failed: $(tail -n 1 "$TMP/err") | | | | |"; continue; }
            s=$(echo "$(date +%s.%N) - $t0" | bc)
            read -r rss sum < <(sums "$TMP/x.tsv")
            awk -v p="$p" -v at="$at" -v a="$a" -v r="$rss" -v s="$sum" -v t="$s" -v pl="$plain" \
                'BEGIN { printf "| %s | %s | %s | %.1f | %.1f | %+.2f | %.2f | %.2f |\n", p, at, a, r / 1048576, s / 1048576, 100 * (r - s) / r, t, pl }'
        done
    done
done
if [[ " $PROGS " == *" frag "* ]]; then
    echo
    echo "| frag --pin=yes at -2 | free resident MiB (gaps + free + lazyfree) | pinned by the pin's site MiB | share |"
    echo "| --- | --- | --- | --- |"
    pin=$("$ROOT/build/replay/hbtrace" --sites "$TMP/frag.hbt" | awk -F'\t' '$3 ~ /frag\.c:61/ { print $2; exit }')
    for a in "${AL[@]}"; do
        LD_PRELOAD=$(bp_library "$a") "$REPLAY" --explain="$TMP/x.tsv" --at=-2 --trace="$TMP/frag.hbt" >/dev/null 2>&1 || continue
        awk -F'\t' -v pin="$pin" -v a="$a" '$1 == "part" && ($2 == "gaps" || $2 == "free" || $2 == "lazyfree") { f += $3 }
            $1 == "site" && $2 == pin { s = $5 }
            END { printf "| %s | %.1f | %.2f | %.1f%% |\n", a, f / 1048576, s / 1048576, f ? 100 * s / f : 0 }' "$TMP/x.tsv"
    done
fi
bp_load after
