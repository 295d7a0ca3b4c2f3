#!/usr/bin/env bash
# order.sh - issue 12's fidelity across allocators: does replaying a program's trace rank the
# allocators by peak RSS as running the program itself does? For python3-alloc and sqlite3:
# records the program once (under glibc), then `heapbench exec` of the program and `heapbench
# exec` of `hbreplay --trace` under every default allocator (N reps each, interleaved by
# exec), and prints per allocator the median peak RSS of the program, of the replay, and the
# replay's heap (peak RSS minus its `load` phase baseline), with each column's rank.
# usage: [PROGS='python3-alloc sqlite3'] [ENVSET='K=V ...'] replay/bench/order.sh [REPS]   (default 3)
# ENVSET is given to the program both when it is recorded and under exec (--env), for example
# PYTHONMALLOC=malloc, which sends CPython's small objects through malloc.
# Always holds: works in a temporary directory it removes; reads the results with Python's csv.
set -eu
source "$(dirname "$0")/progs.sh"
REPS=${1:-3}
bp_tmp replay-order
ENVSET=${ENVSET:-}
for prog in ${PROGS:-python3-alloc sqlite3}; do
    mkdir -p "$TMP/$prog/work" "$TMP/$prog/tr"
    bp_setup "$TMP/$prog/work" "$prog"
    read -r -a cmd <<<"$(bp_command "$TMP/$prog/work" "$prog")"
    (cd "$TMP/$prog/work" && env $ENVSET HEAPBENCH_RECORD_DIR="$TMP/$prog/tr" LD_PRELOAD="$ROOT/build/lib/libhbrecord.so" "${cmd[@]}" >/dev/null)
    T=$(ls "$TMP/$prog"/tr/*.hbt | head -n 1)
    (cd "$TMP/$prog/work" && "$ROOT/build/heapbench" exec -w "$prog" -n "$REPS" --env "$ENVSET" -o "$TMP/$prog/exec" -- "${cmd[@]}" >/dev/null 2>&1)
    "$ROOT/build/heapbench" exec -w "replay:$prog" -n "$REPS" -o "$TMP/$prog/replay" -- build/replay/hbreplay --trace="$T" >/dev/null 2>&1
    /usr/bin/python3 - "$prog" "$TMP/$prog/exec" "$TMP/$prog/replay" <<'PY'
import csv, statistics, sys
prog, ex, rp = sys.argv[1:4]
def rows(d, name):
    return [r for r in csv.DictReader(open(f"{d}/{name}")) if r.get("status", "ok") == "ok"]
def med(rs, key):
    by = {}
    for r in rs:
        by.setdefault(r["allocator"], []).append(float(r[key]))
    return {a: statistics.median(v) for a, v in by.items()}
prog_rss = med(rows(ex, "runs.csv"), "maxrss_kb")
rep_rows = rows(rp, "runs.csv")
rep_rss = med(rep_rows, "maxrss_kb")
load = {(r["allocator"], r["run"]): float(r["rss_kb"]) for r in rows(rp, "phases.csv") if r["phase"] == "load"}
heap = {}
for r in rep_rows:
    heap.setdefault(r["allocator"], []).append(float(r["maxrss_kb"]) - load[(r["allocator"], r["run"])])
heap = {a: statistics.median(v) for a, v in heap.items()}
rank = lambda m: {a: i + 1 for i, a in enumerate(sorted(m, key=m.get))}
rp_, rr, rh = rank(prog_rss), rank(rep_rss), rank(heap)
print(f"\n{prog}: peak RSS in KiB (rank 1 = smallest), median of the ok runs")
print(f"| allocator | program (exec) | rank | replay | rank | replay heap | rank |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for a in sorted(prog_rss, key=prog_rss.get):
    print(f"| {a} | {prog_rss[a]:.0f} | {rp_[a]} | {rep_rss.get(a, 0):.0f} | {rr.get(a, '-')} | {heap.get(a, 0):.0f} | {rh.get(a, '-')} |")
same = [a for a in prog_rss if rp_[a] == rr.get(a)]
print(f"same rank in program and replay: {len(same)} of {len(prog_rss)}")
PY
done
bp_load after
