#!/usr/bin/env bash
# explaincost.sh - what an explanation costs against a plain replay of the same trace (target: <= 2x):
# per allocator, ROUNDS interleaved rounds of (plain hbreplay, hbreplay --explain --at=end, --at=peak),
# CPU time (user + sys, GNU time) of each; prints the medians and the median of the per-round ratios;
# with CALLGRIND=1 (default) also each one's instructions under callgrind (load-independent). Ends with one
# met/not met line: met when every allocator's median CPU ratios (end and peak) and instruction ratios are <= 2
# (exit 1 otherwise).
# usage: [ALLOCS=glibc,mimalloc,...] [CALLGRIND=0] replay/bench/explaincost.sh TRACE [ROUNDS]   (default 5)
# Always holds: works in a temporary directory it removes; reads TRACE only; needs make (hbreplay).
set -eu
source "$(dirname "$0")/progs.sh"
TRACE=$(realpath "${1:?usage: replay/bench/explaincost.sh TRACE [ROUNDS] (a trace written by heapbench record)}")
ROUNDS=${2:-5}
ALLOCS=${ALLOCS:-glibc,jemalloc,tcmalloc,tcmalloc-minimal,mimalloc,tbbmalloc}
CALLGRIND=${CALLGRIND:-1}
REPLAY=$ROOT/build/replay/hbreplay
bp_tmp explaincost
echo "| allocator | plain CPU s | explain end CPU s | ratio end (min-max) | explain peak CPU s | ratio peak (min-max) | callgrind: plain, end, peak M instructions, end ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
IFS=',' read -r -a AL <<<"$ALLOCS"
for a in "${AL[@]}"; do
    lib=$(bp_library "$a")
    : >"$TMP/rounds"
    for _ in $(seq "$ROUNDS"); do
        p=$(bp_cpu env LD_PRELOAD="$lib" "$REPLAY" --trace="$TRACE")
        e=$(bp_cpu env LD_PRELOAD="$lib" "$REPLAY" --explain="$TMP/x.tsv" --at=end --trace="$TRACE")
        k=$(bp_cpu env LD_PRELOAD="$lib" "$REPLAY" --explain="$TMP/x.tsv" --at=peak --trace="$TRACE")
        echo "$p $e $k" >>"$TMP/rounds"
    done
    col() { awk -v c="$1" '{ print $c }' "$TMP/rounds" | bp_median; }
    ratio() { awk -v c="$1" '$1 > 0 { print $c / $1 }' "$TMP/rounds" | sort -g; }
    ig="-"
    if [ "$CALLGRIND" = 1 ]; then
        ip=$(bp_instructions env LD_PRELOAD="$lib" "$REPLAY" --trace="$TRACE")
        ie=$(bp_instructions env LD_PRELOAD="$lib" "$REPLAY" --explain="$TMP/x.tsv" --at=end --trace="$TRACE")
        ik=$(bp_instructions env LD_PRELOAD="$lib" "$REPLAY" --explain="$TMP/x.tsv" --at=peak --trace="$TRACE")
        ig=$(awk -v p="$ip" -v e="$ie" -v k="$ik" 'BEGIN { printf "%.0f, %.0f, %.0f, %.2f", p / 1e6, e / 1e6, k / 1e6, e / p }')
        awk -v p="$ip" -v e="$ie" -v k="$ik" 'BEGIN { exit !(p > 0 && e / p <= 2 && k / p <= 2) }' || echo "$a" >>"$TMP/missed"
    fi
    awk -v e="$(ratio 2 | bp_median)" -v k="$(ratio 3 | bp_median)" 'BEGIN { exit !(e > 0 && e <= 2 && k <= 2) }' ||
        echo "$a" >>"$TMP/missed"
    printf '| %s | %.2f | %.2f | %.2f (%.2f-%.2f) | %.2f | %.2f (%.2f-%.2f) | %s |\n' "$a" "$(col 1)" "$(col 2)" \
        "$(ratio 2 | bp_median)" "$(ratio 2 | head -n 1)" "$(ratio 2 | tail -n 1)" "$(col 3)" \
        "$(ratio 3 | bp_median)" "$(ratio 3 | head -n 1)" "$(ratio 3 | tail -n 1)" "$ig"
done
bp_load after
if [ -s "$TMP/missed" ]; then
    echo "explain against replay: NOT MET ($(sort -u "$TMP/missed" | tr '\n' ' ')above 2x)"
    exit 1
fi
echo "explain against replay: met (median CPU$([ "$CALLGRIND" = 1 ] && echo " and instruction") ratios <= 2x under every allocator, end and peak)"
