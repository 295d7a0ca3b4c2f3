#!/usr/bin/env bash
# heaptrack.sh - heapbench's live bytes against an independent tool, Debian's heaptrack: per program,
# heaptrack's peak heap consumption against the trace's ideal (its peak live requested bytes, what
# `heapbench explain` and the replays call ideal; target: within 1%), and heaptrack's top 5 call
# stacks by bytes live at the peak against hbtrace's top 5 call sites (target: the same, in order).
# usage: [PROGS='name args;...'] replay/bench/heaptrack.sh     (names: workloads of build/workloads)
# Per program: one recording as `heapbench explain` records (raw mode, HEAPBENCH_RECORD_SITES=all,
# then hbconvert), one run under heaptrack, then heaptrack_print's peak flame-graph stacks (exact
# bytes per stack at heaptrack's peak). A stack heaptrack saw in a library constructor (_dl_init)
# of libstdc++ is left out when the program does not link libstdc++: heaptrack's own preload library
# brings libstdc++ into a C program, and its constructor's 72,704-byte pool is heaptrack's, not the
# program's (printed apart, never hidden). Two sites are the same when their bytes agree within 1%
# and heaptrack's stack holds the function hbtrace names innermost (heaptrack names inlined frames
# that addr2line folds into their caller, so whole stacks are not compared word for word).
# Prints one table row per program and a verdict line per target.
# Always holds: works in a temporary directory it removes; needs make and heaptrack (TEST_PKGS).
set -eu
source "$(dirname "$0")/progs.sh"
command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null ||
    { echo "heaptrack.sh: heaptrack is not installed: apt-get install heaptrack (make deps)" >&2; exit 2; }
bp_tmp replay-heaptrack
IFS=';' read -r -a PROG <<<"${PROGS:-parser --alloc=malloc --scale=2 --files=2;frag --pin=yes --blocks=20000;server --quick}"
echo "| program | ideal bytes (hbtrace) | heaptrack peak bytes | left out (heaptrack's libstdc++) | difference | top 5 the same |"
echo "| --- | --- | --- | --- | --- | --- |"
fails=0
for p in "${PROG[@]}"; do
    read -r -a cmd <<<"$p"
    cmd[0]=$ROOT/build/workloads/${cmd[0]}
    rm -rf "$TMP/tr" "$TMP/ht" && mkdir "$TMP/tr" "$TMP/ht"
    HEAPBENCH_RECORD_SITES=all HEAPBENCH_RECORD_RAW=1 HEAPBENCH_RECORD_DIR=$TMP/tr LD_PRELOAD=$ROOT/build/lib/libhbrecord.so \
        "${cmd[@]}" >/dev/null 2>&1 || { echo "heaptrack.sh: $p failed when recorded: check its arguments (${cmd[0]} --help)" >&2; exit 2; }
    "$ROOT/build/replay/hbconvert" "$TMP/tr" 2>/dev/null
    tr=$(ls -S "$TMP"/tr/*.hbt | head -n 1)
    "$ROOT/build/replay/hbtrace" "$tr" >"$TMP/stats"
    ideal=$(sed -nE 's/^peak live bytes: ([0-9]+).*/\1/p' "$TMP/stats")
    # ours: "BYTES FUNCTION" of the top 5 call sites (innermost frame's function)
    sed -n '/^top call sites/,$p' "$TMP/stats" | sed -nE 's/^  ([0-9]+) bytes .*: site [0-9]+: ([^ ]+) .*/\1 \2/p' | head -n 5 >"$TMP/ours"
    (cd "$TMP/ht" && heaptrack -o "$TMP/ht/h" "${cmd[@]}" >/dev/null 2>&1)
    heaptrack_print -f "$TMP"/ht/h.* -p 0 -a 0 -T 0 -F "$TMP/fg" --flamegraph-cost-type peak >/dev/null 2>&1
    stdcxx=0; ldd "${cmd[0]}" | grep -q 'libstdc++' && stdcxx=1
    # heaptrack's stacks: "BYTES STACK" (frames outermost first, ';'-joined), its own constructor's apart
    awk -v cxx="$stdcxx" '{ b = $NF; $NF = ""; if (!cxx && $0 ~ /_dl_init/) { out += b; next } print b, $0 }
        END { print out + 0 > "/dev/stderr" }' "$TMP/fg" 2>"$TMP/out" | sort -rn >"$TMP/theirs"
    out=$(cat "$TMP/out")
    peak=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/theirs")
    same=yes
    for i in 1 2 3 4 5; do
        read -r ob of < <(sed -n "${i}p" "$TMP/ours") || { ob=; of=; }
        tl=$(sed -n "${i}p" "$TMP/theirs")
        [ -z "$ob" ] && [ -z "$tl" ] && continue
        tb=${tl%% *}
        [ -n "$ob" ] && [ -n "$tb" ] && awk -v a="$ob" -v b="$tb" 'BEGIN { exit !(a >= 0.99 * b && a <= 1.01 * b) }' &&
            grep -qF "$of " <<<"$tl" || { same="no (rank $i: hbtrace $ob $of, heaptrack ${tb:-none})"; break; }
    done
    diff=$(awk -v a="$ideal" -v b="$peak" 'BEGIN { printf "%+.2f%%", (b > 0 ? (a - b) / b * 100 : 0) }')
    echo "| $p | $ideal | $peak | $out | $diff | $same |"
    awk -v a="$ideal" -v b="$peak" 'BEGIN { exit !(b > 0 && a >= 0.99 * b && a <= 1.01 * b) }' || fails=$((fails + 1))
    [ "$same" = yes ] || fails=$((fails + 1))
done
bp_load after
[ "$fails" -eq 0 ] && echo "heaptrack agreement: met (ideal within 1% of heaptrack's peak and the same top 5 call sites on every program)" ||
    { echo "heaptrack agreement: NOT MET ($fails target(s) missed, rows above)"; exit 1; }
