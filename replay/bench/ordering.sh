#!/usr/bin/env bash
# ordering.sh - order targets. (1) Live bytes: multithreaded programs recorded here
# (replay/tests' producer/consumer through a 1,000-block queue and thread-churn program, the
# project's cross-thread and thread-churn workloads) replayed under glibc with the recorded
# order and with --order=free: the replay's most live requested bytes (its `live` samples)
# against the trace's ideal (target: within 15% with the recorded order), and the most threads
# alive at once against the program's. (2) Cost: the replayer's own ns per event (`self` and
# `replay` phases, wall, and the whole process's CPU) through build/lib/libhbnull.so and
# build/lib/libbump.so (--touch=none), for the recorded order, --order=free, and the replayer of
# commit $BASE (bp_base in progs.sh: decoding at load, each thread's own order only) on the same
# programs recorded by that commit's recorder (format 2), interleaved in every round. (3) The
# recorder's added cost: each program recorded ROUNDS times by each recorder, interleaved.
# Part 1 also takes the multithreaded program definitions of exec/programs/ that no one here
# wrote (xz, zstd, pigz, pbzip2, python3-threads; those not installed are left out, named).
# usage: [BASE=COMMIT] [RECORDER_ONLY=1 | LIVE_ONLY=1] replay/bench/ordering.sh [ROUNDS]
# (default 5; RECORDER_ONLY: part 3 alone; LIVE_ONLY: part 1 alone, each program recorded once)
# Always holds: works in a temporary directory it removes.
set -eu
source "$(dirname "$0")/progs.sh"
ROUNDS=${1:-5}
bp_tmp replay-ordering
make -s all build/tests/replay-prodcons build/tests/replay-churn
[ -n "${LIVE_ONLY:-}" ] && ROUNDS=1 || bp_base "$TMP/base"
mkdir -p "$TMP/work"
bp_setup "$TMP/work" sqlite3
read -r -a sq <<<"$(bp_command "$TMP/work" sqlite3)"
# progs: NAME and command line of each program recorded.
progs=("prodcons build/tests/replay-prodcons 400000 1000" "churn build/tests/replay-churn 25 2000"
    "cross-thread build/workloads/cross-thread --threads=2" "thread-churn build/workloads/thread-churn --threads=4 --mode=batch --ops=2000000"
    "sqlite3 ${sq[*]}")
# mt: the multithreaded program definitions (part 1 only), each in a work directory of its own.
mt=()
[ -n "${RECORDER_ONLY:-}" ] || for name in xz zstd pigz pbzip2 python3-threads; do
    read -r -a argv <<<"$(bp_command "$TMP/work-$name" "$name")"
    if ! command -v "${argv[0]}" >/dev/null; then
        echo "$(basename "$0"): ${argv[0]} is not installed: $name left out (make deps installs it)" >&2
        continue
    fi
    mkdir -p "$TMP/work-$name" && bp_setup "$TMP/work-$name" "$name"
    mt+=("$name ${argv[*]}")
done
# rec DIR LIB KEY CMD...: the trace CMD leaves under recorder LIB, in DIR (emptied first); the
# recording's CPU seconds (user + sys) go to $TMP/rec as "KEY SECONDS".
rec() {
    local dir=$1 lib=$2 key=$3; shift 3
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "${WORK:-$TMP/work}" && /usr/bin/time -o "$TMP/rtime" -f '%U %S' env HEAPBENCH_RECORD_DIR="$dir" LD_PRELOAD="$lib" "$@" >/dev/null)
    awk -v k="$key" '{ print k, $1 + $2 }' "$TMP/rtime" >>"$TMP/rec"
    ls -S "$dir"/*.hbt | head -n 1
}
declare -A new old
for _ in $(seq "$ROUNDS"); do # the last round's traces are replayed below
    for p in "${progs[@]}"; do
        read -r name cmd <<<"$p"
        read -r -a argv <<<"$cmd"
        [[ ${argv[0]} == build/* ]] && argv[0]=$ROOT/${argv[0]} # the recording runs in the work directory
        new[$name]=$(rec "$TMP/new-$name" "$ROOT/build/lib/libhbrecord.so" "$name new" "${argv[@]}")
        [ -n "${LIVE_ONLY:-}" ] ||
            old[$name]=$(rec "$TMP/old-$name" "$TMP/base/build/lib/libhbrecord.so" "$name old" "${argv[@]}")
    done
done
for p in "${mt[@]}"; do
    read -r name cmd <<<"$p"
    read -r -a argv <<<"$cmd"
    new[$name]=$(WORK=$TMP/work-$name rec "$TMP/new-$name" "$ROOT/build/lib/libhbrecord.so" "$name new" "${argv[@]}")
done
[ -n "${LIVE_ONLY:-}" ] || {
echo "== the recorder's CPU (user + sys, s), this tree's (the global order, thread events) against ${BASE:-b804b1e}'s, median of $ROUNDS interleaved rounds"
printf '%-13s %9s %9s %7s\n' program base this ratio
for p in "${progs[@]}"; do
    read -r name _ <<<"$p"
    o=$(awk -v k="$name old" '$1 " " $2 == k { print $3 }' "$TMP/rec" | bp_median)
    n=$(awk -v k="$name new" '$1 " " $2 == k { print $3 }' "$TMP/rec" | bp_median)
    awk -v p="$name" -v o="$o" -v n="$n" 'BEGIN { printf "%-13s %9.3f %9.3f %7.3f\n", p, o, n, (o > 0 ? n / o : 0) }'
done
}

[ -n "${RECORDER_ONLY:-}" ] && { bp_load after; exit 0; }
echo "== live bytes against the ideal, under glibc (--touch=first)"
printf '%-15s %-9s %9s %12s %12s %7s %9s %s\n' program order events ideal max_live ratio threads verify
for p in "${progs[@]}" "${mt[@]}"; do
    read -r name _ <<<"$p"
    t=${new[$name]}
    for order in recorded free; do
        build/replay/hbreplay --order=$order "$t" >"$TMP/out" 2>&1 || true
        awk -F'\t' -v n="$name" -v o="$order" '
            $1 == "phase" && $2 == "live" && $5 > m { m = $5 }
            $1 == "phase" && $2 == "ideal" { ideal = $5 }
            $1 == "phase" && $2 == "replay" { ops = $4 }
            $1 == "verify" { ok = $2; th = $3; sub(/.*threads_alive=/, "", th) }
            END { printf "%-15s %-9s %9d %12d %12d %7.3f %9s %s\n", n, o, ops, ideal, m, ideal ? m / ideal : 0, th, ok }' "$TMP/out"
    done
done
[ -n "${LIVE_ONLY:-}" ] && { bp_load after; exit 0; }

echo "== the replayer's own cost, ns per event, $ROUNDS interleaved rounds (median; --touch=none)"
# cells: PROGRAM ALLOCATOR LABEL REPLAYER OPTION TRACES (new: this tree's recorder, old: BASE's)
cells=()
for name in prodcons cross-thread sqlite3; do
    for lib in null bump; do
        cells+=("$name $lib base-${BASE:-b804b1e} $TMP/base/build/replay/hbreplay - old")
        cells+=("$name $lib free $ROOT/build/replay/hbreplay --order=free new")
        cells+=("$name $lib recorded $ROOT/build/replay/hbreplay --order=recorded new")
    done
done
for _ in $(seq "$ROUNDS"); do
    for c in "${cells[@]}"; do
        read -r name lib label bin opt set <<<"$c"
        t=$([ "$set" = new ] && echo "${new[$name]}" || echo "${old[$name]}")
        so=$ROOT/build/lib/lib${lib/null/hbnull}.so
        [ "$set" = old ] && [ "$lib" = null ] && so=$TMP/base/build/lib/libhbnull.so
        args=(--touch=none)
        [ "$opt" = - ] || args+=("$opt")
        /usr/bin/time -o "$TMP/rusage" -f '%U %S' env LD_PRELOAD="$so" "$bin" "${args[@]}" "$t" >"$TMP/out" 2>&1 || true
        read -r user sys <"$TMP/rusage"
        awk -F'\t' -v k="$name $lib $label" -v u="$user" -v s="$sys" '
            $1 == "phase" && $2 == "self" { self = $3 } $1 == "phase" && $2 == "replay" { rs = $3; ops = $4 }
            END { if (ops) printf "%s %.1f %.1f %.1f\n", k, 1e9 * self / ops, 1e9 * rs / ops, 1e9 * (u + s) / ops }' "$TMP/out" >>"$TMP/ns"
    done
done
printf '%-13s %-5s %-16s %10s %10s %10s\n' program alloc replayer self_ns replay_ns cpu_ns
for c in "${cells[@]}"; do
    read -r name lib label _ <<<"$c"
    printf '%-13s %-5s %-16s' "$name" "$lib" "$label"
    for col in 4 5 6; do
        printf ' %10s' "$(awk -v k="$name $lib $label" -v f="$col" '$1 " " $2 " " $3 == k { print $f }' "$TMP/ns" | bp_median)"
    done
    echo
done
bp_load after
