#!/usr/bin/env bash
# instr-count.sh - the deterministic counts of `heapbench run --count-instructions` (cachegrind,
# no cache simulation) and `--count-alloc-instructions` (callgrind's call graph, runner/measure/cgalloc.c)
# against callgrind's own figures, and what each costs, on a small-block loop: thread-churn, one
# thread, --mode=loop, 64-byte blocks, never touched (malloc then free at once, glibc's tcache path).
#  (1) agreement: heapbench run's metric_instructions and metric_alloc_instructions against
#      callgrind's total and callgrind_annotate --inclusive=yes of malloc + free (glibc's malloc and
#      free do not call each other, so their inclusive costs add up to the allocator's instructions;
#      the reference leaves out the few calloc and realloc calls of start-up, which heapbench counts);
#      the same under jemalloc, whose inclusive figures are read the same way;
#  (2) cost: CPU seconds (user + sys, /usr/bin/time) of the workload alone and under each valgrind
#      tool, ROUNDS interleaved rounds (default 3), median; CPU time, not wall, because the machine is shared.
# usage: [ROUNDS=N] [OPS=N (default 5000000)] runner/bench/instr-count.sh      (from the source tree, after make)
# Always holds: works in a temporary directory it removes; prints the load average first and last.
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-5000000}
tmp=$(mktemp -d /tmp/hb-instr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
params="--mode=loop --size=64 --check=no --ops=$OPS"
# shellcheck disable=SC2206
wl=(build/workloads/thread-churn --threads=1 $params)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)   commit $(git rev-parse --short HEAD)   $(valgrind --version)"

# (1) agreement, per allocator: heapbench's figures, then callgrind's
for alloc in glibc jemalloc; do
    build/heapbench run -w thread-churn -t 1 -p "$params" -a "$alloc" -n 1 --warmup 0 --count-alloc-instructions \
        -o "$tmp/$alloc" >/dev/null 2>&1
    read -r total own < <(/usr/bin/python3 -c '
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
print(r["metric_instructions"], r["metric_alloc_instructions"])' "$tmp/$alloc/runs.csv")
    build/heapbench run -w thread-churn -t 1 -p "$params" -a "$alloc" -n 1 --warmup 0 --count-instructions \
        -o "$tmp/$alloc-cg" >/dev/null 2>&1
    cache=$(/usr/bin/python3 -c '
import csv, sys
print(next(csv.DictReader(open(sys.argv[1])))["metric_instructions"])' "$tmp/$alloc-cg/runs.csv")
    pre=()
    [ "$alloc" = jemalloc ] && pre=(env LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2)
    "${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/$alloc.cg" "${wl[@]}" >/dev/null 2>&1
    ref_total=$(sed -n 's/^totals: //p' "$tmp/$alloc.cg")
    ref_own=$(callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$alloc.cg" |
        awk '/:(malloc|free) \[/ { gsub(",", "", $1); s += $1 } END { print s }')
    /usr/bin/python3 - "$alloc" "$total" "$own" "$cache" "$ref_total" "$ref_own" <<'PY'
import sys
a, total, own, cache, rt, ro = sys.argv[1], *map(float, sys.argv[2:])
print(f"{a}: allocator-only {own:,.0f} (heapbench) vs {ro:,.0f} (callgrind_annotate inclusive malloc+free): "
      f"{100 * (own - ro) / ro:+.3f}%;  program {total:,.0f} (callgrind) {cache:,.0f} (cachegrind) vs "
      f"{rt:,.0f} (plain callgrind): {100 * (total - rt) / rt:+.3f}% / {100 * (cache - rt) / rt:+.3f}%")
PY
done

# (2) cost: CPU seconds of each way, interleaved rounds
declare -A ways=(
    [native]=""
    [cachegrind]="valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null"
    [callgrind]="valgrind --tool=callgrind --callgrind-out-file=/dev/null")
for ((r = 1; r <= ROUNDS; r++)); do
    for way in native cachegrind callgrind; do
        # shellcheck disable=SC2086
        /usr/bin/time -f "$way %U %S" -a -o "$tmp/cpu" ${ways[$way]} "${wl[@]}" >/dev/null 2>&1
    done
done
/usr/bin/python3 - "$tmp/cpu" <<'PY'
import collections, statistics, sys
cpu = collections.defaultdict(list)
for line in open(sys.argv[1]):
    way, u, s = line.split()
    cpu[way].append(float(u) + float(s))
med = {w: statistics.median(v) for w, v in cpu.items()}
for w in ("native", "cachegrind", "callgrind"):
    print(f"{w:10s} CPU s median {med[w]:.2f} (of {', '.join(f'{x:.2f}' for x in cpu[w])})"
          + ("" if w == "native" else f", x{med[w] / med['native']:.0f} native"))
print(f"callgrind / cachegrind: x{med['callgrind'] / med['cachegrind']:.2f}")
PY
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
