#!/usr/bin/env bash
# sitecost.sh - what call sites cost the recorder, against the same recorder without them
# (HEAPBENCH_RECORD_SITES=none), on the most malloc-heavy workload (bitmap-pool, one thread, malloc):
# per mode (none, one, sample, all) ROUNDS interleaved rounds of CPU time (user + sys, GNU time) next
# to a plain run, and callgrind's instruction counts (load-independent) of plain, none, one and
# sample (all with CALLGRIND_ALL=1: ~1,700 instructions per event, minutes under callgrind).
# Target: recording with call sites in the default mode (sample: the caller of every allocation, whole
# stacks for a sample) costs <= 1.3x the recorder without call sites, judged on instructions; the CPU
# ratios are printed beside it; the `all` mode's cost is measured and stated (no target).
# usage: [OPS=2000000] [CALLGRIND_ALL=0] replay/bench/sitecost.sh [ROUNDS]   (default 3; exit 1 when not met)
# Always holds: the recorder runs as heapbench record runs it (raw mode) into a temporary directory it
# removes; needs make (libhbrecord.so, hbtrace, the workloads); writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-3}
OPS=${OPS:-2000000}
CALLGRIND_ALL=${CALLGRIND_ALL:-0}
REC=$ROOT/build/lib/libhbrecord.so
CMD=("$ROOT/build/workloads/bitmap-pool" --threads=1 --alloc=malloc --ops="$OPS")
MODES=(none one sample all)
bp_tmp sitecost
# recorded MODE: the command line of CMD with the recorder in MODE writing into a fresh $TMP/tr
recorded() {
    rm -rf "$TMP/tr" && mkdir "$TMP/tr"
    RUN=(env HEAPBENCH_RECORD_SITES="$1" HEAPBENCH_RECORD_RAW=1 HEAPBENCH_RECORD_DIR="$TMP/tr" LD_PRELOAD="$REC" "${CMD[@]}")
}
: >"$TMP/rounds"
for _ in $(seq "$ROUNDS"); do
    line=$(bp_cpu "${CMD[@]}")
    for m in "${MODES[@]}"; do recorded "$m" && line+=" $(bp_cpu "${RUN[@]}")"; done
    echo "$line" >>"$TMP/rounds"
done
events=$(( 2 * OPS + 10 ))
ip=$(bp_instructions "${CMD[@]}")
echo "${CMD[*]#"$ROOT/"} ($events events, $ROUNDS rounds; plain: $(awk '{ print $1 }' "$TMP/rounds" | bp_median) s CPU, ${ip} instructions)"
echo "| mode | CPU s, median | CPU ratio to plain, median | CPU ratio to none, median (min-max) | callgrind M instructions | recorder instructions / event | instructions ratio to none |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
fails=0
for i in "${!MODES[@]}"; do
    m=${MODES[$i]} c=$((i + 2))
    med=$(awk -v c="$c" '{ print $c }' "$TMP/rounds" | bp_median)
    rp=$(awk -v c="$c" '$1 > 0 { print $c / $1 }' "$TMP/rounds" | bp_median)
    rn=$(awk -v c="$c" '$2 > 0 { print $c / $2 }' "$TMP/rounds" | sort -g)
    ins=-
    if [ "$m" != all ] || [ "$CALLGRIND_ALL" = 1 ]; then recorded "$m" && ins=$(bp_instructions "${RUN[@]}"); fi
    [ "$m" = none ] && in0=$ins
    printf '| %s | %.3f | %.2f | %.2f (%.2f-%.2f) | %s | %s | %s |\n' "$m" "$med" "$rp" "$(bp_median <<<"$rn")" \
        "$(head -n 1 <<<"$rn")" "$(tail -n 1 <<<"$rn")" \
        "$([ "$ins" = - ] && echo - || awk -v i="$ins" 'BEGIN { printf "%.0f", i / 1e6 }')" \
        "$([ "$ins" = - ] && echo - || awk -v i="$ins" -v p="$ip" -v e="$events" 'BEGIN { printf "%.0f", (i - p) / e }')" \
        "$([ "$ins" = - ] && echo - || awk -v i="$ins" -v n="$in0" 'BEGIN { printf "%.2f", i / n }')"
    if [ "$m" = sample ]; then
        sr=$(awk -v i="$ins" -v n="$in0" 'BEGIN { printf "%.2f", i / n }')
        awk -v r="$sr" 'BEGIN { exit !(r + 0 > 0 && r <= 1.3) }' || fails=1
    fi
done
bp_load after
[ "$fails" -eq 0 ] && echo "sample-mode cost: met (${sr}x the recorder without call sites in instructions, target <= 1.3x)" ||
    { echo "sample-mode cost: NOT MET (${sr}x the recorder without call sites in instructions, target <= 1.3x)"; exit 1; }
