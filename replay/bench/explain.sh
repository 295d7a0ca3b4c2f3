#!/usr/bin/env bash
# explain.sh - heapbench explain's targets: do the measured parts add up to RSS (within 5%), at the peak and at the
# end, for each allocator, on the frag, parser and server workloads and the python3-alloc and sqlite3 program
# definitions; and is glibc's pinned free memory on frag (--pin=yes, at the moment before its pin is freed: --at=-2)
# attributed to the pin's call site (>= 90%), while an allocator that returns memory has that site pin < 1 MiB.
# usage: [ALLOCS=glibc,jemalloc,...] [PROGS='frag;parser;server;python3-alloc;sqlite3'] [PLAIN=0] replay/bench/explain.sh
# PROGS: ';'-separated workloads of build/workloads with their arguments (frag always gets --pin=yes) or program
# definitions of exec/programs (their own sizes), e.g. PROGS='frag --blocks=20000;parser --scale=2 --files=2'.
# Prints one row per program, moment and allocator: RSS MiB, the parts' sum, unexplained % of RSS, the replay's own
# wall seconds against a plain replay of the same trace (PLAIN=0: no plain replay, "-"); then the pinning rows; a
# met/not met line per target (exit 1 when one is not met); the load average before and after.
# Always holds: each program is recorded once (heapbench record, whole stacks) in a temporary directory it removes;
# every figure is read from hbreplay --explain's file (docs/DATA.md "Explanations"); writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp explain
HB=$ROOT/build/heapbench
REPLAY=$ROOT/build/replay/hbreplay
ALLOCS=${ALLOCS:-glibc,jemalloc,tcmalloc,tcmalloc-minimal,mimalloc,tbbmalloc}
PROGS=${PROGS:-frag;parser;server;python3-alloc;sqlite3}
PLAIN=${PLAIN:-1}
# the part lines' sum and the rss of an explanation file: "RSS SUM"
sums() { awk -F'\t' '$1 == "part" { s += $3 } $1 == "total" && $2 == "rss" { r = $3 } END { print r, s }' "$1"; }

record() { # record NAME TRACE [ARGS...]
    case $1 in
    frag) set -- "$1" "$2" "$ROOT/build/workloads/frag" --pin=yes "${@:3}" ;;
    parser | server) set -- "$1" "$2" "$ROOT/build/workloads/$1" "${@:3}" ;;
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
IFS=';' read -r -a PL <<<"$PROGS"
names=" "
for spec in "${PL[@]}"; do
    read -r -a pa <<<"$spec"
    p=${pa[0]}
    names+="$p "
    record "$p" "$TMP/$p.hbt" "${pa[@]:1}"
    for a in "${AL[@]}"; do
        lib=$(bp_library "$a")
        plain=-
        if [ "$PLAIN" = 1 ]; then
            t0=$(date +%s.%N)
            LD_PRELOAD=$lib "$REPLAY" --trace="$TMP/$p.hbt" >/dev/null 2>&1 || true
            plain=$(echo "$(date +%s.%N) - $t0" | bc)
        fi
        for at in peak end; do
            t0=$(date +%s.%N)
            LD_PRELOAD=$lib "$REPLAY" --explain="$TMP/x.tsv" --at=$at --trace="$TMP/$p.hbt" >/dev/null 2>"$TMP/err" ||
                { echo "| $p | $at | $a | replay failed: $(tail -n 1 "$TMP/err") | | | | |"; echo x >>"$TMP/missed"; continue; }
            s=$(echo "$(date +%s.%N) - $t0" | bc)
            read -r rss sum < <(sums "$TMP/x.tsv")
            awk -v p="$p" -v at="$at" -v a="$a" -v r="$rss" -v s="$sum" -v t="$s" -v pl="$plain" -v m="$TMP/missed" \
                'BEGIN { u = 100 * (r - s) / r; printf "| %s | %s | %s | %.1f | %.1f | %+.2f | %.2f | %s |\n", p, at, a, r / 1048576, s / 1048576, u, t, pl
                         if (u > 5 || u < -5) print "x" >>m }'
        done
    done
done
rows=$(( ${#PL[@]} * ${#AL[@]} * 2 ))
missed=$(cat "$TMP/missed" 2>/dev/null | wc -l)
[ "$missed" -eq 0 ] && echo "parts add up: met (all $rows rows within +-5% of RSS)" ||
    echo "parts add up: NOT MET ($missed of $rows rows outside +-5% of RSS or failed)"
fails=$((missed > 0))
if [[ "$names" == *" frag "* ]]; then
    echo
    echo "| frag --pin=yes at -2 | free resident MiB (gaps + free + lazyfree) | pinned by the pin's site MiB | share |"
    echo "| --- | --- | --- | --- |"
    pin=$("$ROOT/build/replay/hbtrace" --sites "$TMP/frag.hbt" | awk -F'\t' '$3 ~ /frag\.c:61/ { print $2; exit }')
    for a in "${AL[@]}"; do
        LD_PRELOAD=$(bp_library "$a") "$REPLAY" --explain="$TMP/x.tsv" --at=-2 --trace="$TMP/frag.hbt" >/dev/null 2>&1 || continue
        awk -F'\t' -v pin="$pin" -v a="$a" '$1 == "part" && ($2 == "gaps" || $2 == "free" || $2 == "lazyfree") { f += $3 }
            $1 == "site" && $2 == pin { s = $5 }
            END { printf "| %s | %.1f | %.2f | %.1f%% |\n", a, f / 1048576, s / 1048576, f ? 100 * s / f : 0 }' "$TMP/x.tsv" | tee -a "$TMP/pins"
    done
    # glibc: >= 90% of its free resident bytes on the pin's site; every other allocator: the site pins < 1 MiB
    if awk -F'|' '{ a = $2; gsub(/ /, "", a); s = $4 + 0; sh = $5 + 0; n++ }
        a == "glibc" { g = 1; if (sh < 90) bad++ } a != "glibc" && s >= 1 { bad++ }
        END { exit !(g && !bad && n == '"${#AL[@]}"') }' "$TMP/pins"; then
        echo "pin on frag: met (glibc's free resident bytes >= 90% on the pin's site, < 1 MiB under every other allocator)"
    else
        echo "pin on frag: NOT MET (rows above)"; fails=1
    fi
fi
bp_load after
exit "$fails"
