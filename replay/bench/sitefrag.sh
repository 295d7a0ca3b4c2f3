#!/usr/bin/env bash
# sitefrag.sh - explain's ranking of two call sites that fragment differently: replay/tests/sitefrag.c
# (wide_pin's 32 blocks each keep 64 freed blocks of 4,000 bytes below them resident under glibc,
# narrow_pin's 32 blocks 4 each) recorded once by heapbench record with whole stacks, explained at
# the end under each allocator. Target (glibc): wide_pin ranked first and narrow_pin second among
# the pinning sites, each pinning the bytes built in (wide: 100-105%, narrow: 100-110%, the rest
# being glibc's chunk headers). The other allocators' rows are printed for comparison.
# usage: [ALLOCS=glibc,jemalloc,...] replay/bench/sitefrag.sh   (exit 1 when the target is not met)
# Always holds: works in a temporary directory it removes; builds build/tests/replay-sitefrag if missing;
# every figure is read from hbreplay --explain's file and hbtrace --sites.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp sitefrag
ALLOCS=${ALLOCS:-glibc,jemalloc,tcmalloc,tcmalloc-minimal,mimalloc,tbbmalloc}
PROG=build/tests/replay-sitefrag
make -s "$PROG" >/dev/null || { echo "sitefrag.sh: cannot build $PROG: run make" >&2; exit 2; }
HEAPBENCH_RECORD_SITES=all build/heapbench record -o "$TMP/sf.hbt" -- "$PROG" >"$TMP/rec.log" 2>&1 ||
    { echo "sitefrag.sh: recording $PROG failed: $(tail -n 1 "$TMP/rec.log")" >&2; exit 1; }
read -r wide narrow < <("$PROG" | sed -nE 's/^expect wide=([0-9]+) narrow=([0-9]+)$/\1 \2/p')
build/replay/hbtrace --sites "$TMP/sf.hbt" >"$TMP/sites"
site() { awk -F'\t' -v f="$1" 'index($3, f " (") == 1 { print $2; exit }' "$TMP/sites"; }
sw=$(site wide_pin) sn=$(site narrow_pin)
echo "| allocator | wide_pin pins bytes (built $wide) | narrow_pin pins bytes (built $narrow) | top two pinning sites |"
echo "| --- | --- | --- | --- |"
fails=0
IFS=',' read -r -a AL <<<"$ALLOCS"
for a in "${AL[@]}"; do
    LD_PRELOAD=$(bp_library "$a") build/replay/hbreplay --explain="$TMP/x.tsv" --at=end --trace="$TMP/sf.hbt" >/dev/null 2>&1 ||
        { echo "| $a | replay failed | | |"; fails=1; continue; }
    pinned() { awk -F'\t' -v id="$1" '$1 == "site" && $2 == id { print $5; exit }' "$TMP/x.tsv"; }
    pw=$(pinned "$sw") pn=$(pinned "$sn")
    top=$(awk -F'\t' '$1 == "site" && $5 > 0 { print $5, $2 }' "$TMP/x.tsv" | sort -rn | head -n 2 |
        while read -r _ id; do awk -F'\t' -v id="$id" '$2 == id { split($3, f, " "); printf "%s ", f[1] }' "$TMP/sites"; done)
    echo "| $a | ${pw:-0} | ${pn:-0} | ${top% } |"
    if [ "$a" = glibc ]; then
        awk -v w="$wide" -v n="$narrow" -v pw="${pw:-0}" -v pn="${pn:-0}" \
            'BEGIN { exit !(pw >= w && pw <= 1.05 * w && pn >= n && pn <= 1.1 * n) }' && [ "$top" = "wide_pin narrow_pin " ] || fails=1
    fi
done
bp_load after
[ -n "$sw" ] && [ -n "$sn" ] && [ "$fails" -eq 0 ] &&
    echo "two fragmenting sites: met (under glibc wide_pin ranked first, narrow_pin second, with the bytes built in)" ||
    { echo "two fragmenting sites: NOT MET (rows above)"; exit 1; }
