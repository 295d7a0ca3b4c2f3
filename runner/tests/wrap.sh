#!/usr/bin/env bash
# wrap.sh - --wrap runs every measured process under a wrapper command, and --count-instructions
# (callgrind) fills metric_instructions with counts that repeat to within a few instructions, while
# served_by still names the allocator asked for (the preload reaches the program under valgrind).
source runner/tests/rtlib.bash

printf '#!/bin/sh\necho "wrapped: $*" >> "$(dirname "$0")/wrapped.txt"\nshift\nexec "$@"\n' > "$RT_TMP/wrapper"
chmod +x "$RT_TMP/wrapper"
"$HB" run -w thread-churn -a glibc,jemalloc -t 1 -p '--mode=loop --ops=2000' -n 1 --warmup 0 \
    --wrap "$RT_TMP/wrapper --marker" -o "$RT_TMP/w" >/dev/null 2>&1
rt_check "--wrap runs each workload under the wrapper, rows ok and served by the allocator" "$RT_TMP/w" '
assert [r["status"] for r in runs] == ["ok", "ok"], runs
assert runs[1]["served_by"].endswith("libjemalloc.so.2"), runs[1]["served_by"]'
if [ "$(grep -c 'wrapped: --marker .*/thread-churn --threads=1 --mode=loop --ops=2000' "$RT_TMP/wrapped.txt")" = 2 ]; then
    t_pass "--wrap: the wrapper got its own arguments, then the workload's argv"
else
    t_fail "--wrap: the wrapper got its own arguments, then the workload's argv" "$(cat "$RT_TMP/wrapped.txt" 2>&1)"
fi

rt_usage "--wrap with an empty command is a usage error" run --wrap ''

if [ -x /usr/bin/valgrind ]; then
    # jemalloc purges on a clock (dirty/muzzy decay): with decay on, its count follows the machine's
    # speed (5,084,234 / 5,091,554 / 5,084,239 on a loaded VM); decay off, it repeats within 7.
    "$HB" run -w thread-churn -a glibc,jemalloc -t 1 -p '--mode=loop --ops=3000' -n 2 --warmup 0 \
        --env 'MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1' \
        --count-instructions -o "$RT_TMP/i" >/dev/null 2>&1
    rt_check "--count-instructions: metric_instructions repeats within 0.01%, allocator verified" "$RT_TMP/i" '
assert meta["metrics"] == {"instructions": "lower"}, meta["metrics"]
for alloc, lib in (("glibc", "libc.so.6"), ("jemalloc", "libjemalloc.so.2")):
    rows = [r for r in runs if r["allocator"] == alloc]
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
    assert all(r["served_by"].endswith(lib) for r in rows), rows
    counts = [r["metric_instructions"] for r in rows]
    assert all(isinstance(c, int) and c > 1000000 for c in counts), counts
    assert abs(counts[0] - counts[1]) <= counts[0] * 1e-4, counts
g = [r["metric_instructions"] for r in runs if r["allocator"] == "glibc"][0]
j = [r["metric_instructions"] for r in runs if r["allocator"] == "jemalloc"][0]
assert g != j, "two allocators gave the same count: the preload did not reach the program"'
else
    t_fail "--count-instructions" "valgrind is not installed (make deps installs it)"
fi
t_summary
