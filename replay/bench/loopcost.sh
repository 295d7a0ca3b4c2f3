#!/usr/bin/env bash
# loopcost.sh - the replay loop's cost per event, this tree's replayer against commit $BASE's (bp_base
# in progs.sh; default b804b1e: the replayer before streaming, which decoded every event at load),
# on the same traces: (1) instructions per event (callgrind, load-independent), the self pass and the
# replay pass apart; (2) wall ns per event of the `self` and `replay` phases, as information.
# Traces: a synthetic one of EVENTS events on THREADS threads (replay/bench/gentrace.c; format 3 for
# this tree, format 2 for BASE, which reads formats 1-2 only), and each program of PROGS (default
# sqlite3; exec/programs/ definitions) recorded once by each tree's recorder.
# (1) replays each trace with --touch=none under callgrind, collecting inside worker_main only, the
# profile cut after each pass (--dump-after=replay_run), under glibc (valgrind's launcher is a shell
# script that the null allocator breaks). "replayer" counts the replayer's own code (decoding, order,
# object table, the loop; files under replay/, workloads/ and contract/, where the decoder is), "all" adds glibc's calls.
# (2) ROUNDS interleaved rounds (default 5) through each tree's build/lib/libhbnull.so, --touch=none;
# the median and the range of each phase's seconds over its events.
# usage: [BASE=COMMIT] [PROGS="NAME..."] [ROUNDS=N] [OPTS="OPTION..."] [KEEP=DIR] replay/bench/loopcost.sh [EVENTS [THREADS]]
#        (default 300000 1; OPTS: options of this tree's replayer, e.g. --order=free, which is what
#        BASE does with several threads; KEEP: also copy the callgrind profiles to DIR, for callgrind_annotate)
# Always holds: works in a temporary directory it removes; needs valgrind.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-loopcost
n=${1:-300000} threads=${2:-1} rounds=${ROUNDS:-5} base=${BASE:-b804b1e}
make -s build/replay/hbreplay build/lib/libhbrecord.so build/lib/libhbnull.so build/bench/replay-gentrace
bp_base "$TMP/base"
mkdir -p "$TMP/new" "$TMP/old" "$TMP/work"
# traces: NAME and the trace of this tree ($TMP/new) and of BASE ($TMP/old) for it.
build/bench/replay-gentrace "$TMP/new/synthetic.hbt" "$n" 3 "$threads" >/dev/null
build/bench/replay-gentrace "$TMP/old/synthetic.hbt" "$n" 2 "$threads" >/dev/null
traces=("synthetic-${threads}t")
for prog in ${PROGS-sqlite3}; do
    bp_setup "$TMP/work" "$prog"
    read -r -a argv <<<"$(bp_command "$TMP/work" "$prog")"
    for side in new old; do
        lib=$ROOT/build/lib/libhbrecord.so
        [ "$side" = old ] && lib=$TMP/base/build/lib/libhbrecord.so
        mkdir -p "$TMP/rec"
        (cd "$TMP/work" && HEAPBENCH_RECORD_DIR="$TMP/rec" LD_PRELOAD="$lib" "${argv[@]}" >/dev/null)
        mv "$(ls -S "$TMP"/rec/*.hbt | head -n 1)" "$TMP/$side/$prog.hbt"
        rm -rf "$TMP/rec"
    done
    traces+=("$prog")
done
trace_of() { [ "$1" = "synthetic-${threads}t" ] && echo "$TMP/$2/synthetic.hbt" || echo "$TMP/$2/$1.hbt"; }
bin_of() { [ "$1" = new ] && echo "$ROOT/build/replay/hbreplay" || echo "$TMP/base/build/replay/hbreplay"; }
label() { [ "$1" = new ] && echo this || echo "$base"; }
read -r -a new_opts <<<"${OPTS:-}"
# args SIDE: the replayer's options for that side into the array args.
args_of() {
    args=(--touch=none)
    if [ "$1" = new ]; then args+=("${new_opts[@]}"); fi
}

echo "== instructions per event (callgrind, --touch=none, under glibc): replayer's own / all"
printf '%-14s %-8s %10s %9s %11s %9s\n' trace replayer events self_own replay_own replay_all
for t in "${traces[@]}"; do
    for side in old new; do
        f=$(trace_of "$t" "$side")
        events=$(build/replay/hbtrace "$f" | awk '$1 == "operations:" { print $2 }')
        args_of "$side"
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" --toggle-collect=worker_main --dump-after=replay_run \
            "$(bin_of "$side")" "${args[@]}" "$f" >/dev/null 2>"$TMP/vg.err" \
            || { cat "$TMP/vg.err" >&2; echo "loopcost.sh: callgrind failed (above)" >&2; exit 1; }
        [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$TMP"/cg.out.1 "$KEEP/$t-$(label "$side")-self.cg" && cp "$TMP"/cg.out.2 "$KEEP/$t-$(label "$side")-replay.cg"; }
        for pass in 1 2; do # 1: the self pass, 2: the replay pass
            callgrind_annotate --threshold=100 --show-percs=no "$TMP/cg.out.$pass" 2>/dev/null | awk -v ev="$events" '
                /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
                $2 ~ /(^|\/)(replay|workloads|contract)\/[^ :]*:/ { gsub(",", "", $1); own += $1 }
                END { printf "%.1f %.1f\n", own / ev, total / ev }'
        done | tr '\n' ' ' | awk -v t="$t" -v r="$(label "$side")" -v ev="$events" '
            { printf "%-14s %-8s %10d %9.1f %11.1f %9.1f\n", t, r, ev, $1, $3, $4 }'
        rm -f "$TMP"/cg.out*
    done
done

echo "== wall ns per event through the null allocator (--touch=none), $rounds interleaved rounds: median (min-max)"
for _ in $(seq "$rounds"); do
    for t in "${traces[@]}"; do
        for side in old new; do
            lib=$ROOT/build/lib/libhbnull.so
            [ "$side" = old ] && lib=$TMP/base/build/lib/libhbnull.so
            args_of "$side"
            env LD_PRELOAD="$lib" "$(bin_of "$side")" "${args[@]}" "$(trace_of "$t" "$side")" >"$TMP/out" 2>&1 || true
            awk -F'\t' -v k="$t $(label "$side")" '
                $1 == "phase" && $2 == "self" { self = $3 } $1 == "phase" && $2 == "replay" { rs = $3; ops = $4 }
                END { if (ops) printf "%s %.1f %.1f\n", k, 1e9 * self / ops, 1e9 * rs / ops }' "$TMP/out" >>"$TMP/ns"
        done
    done
done
printf '%-14s %-8s %-22s %-22s\n' trace replayer self_ns replay_ns
for t in "${traces[@]}"; do
    for side in old new; do
        k="$t $(label "$side")"
        printf '%-14s %-8s' "$t" "$(label "$side")"
        for col in 3 4; do
            vals=$(awk -v k="$k" -v f="$col" '$1 " " $2 == k { print $f }' "$TMP/ns")
            printf ' %-22s' "$(echo "$vals" | bp_median) ($(echo "$vals" | sort -g | head -n 1)-$(echo "$vals" | sort -g | tail -n 1))"
        done
        echo
    done
done
bp_load after
