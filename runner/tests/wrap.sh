#!/usr/bin/env bash
# wrap.sh - --wrap runs every measured process under a wrapper command, and --count-instructions
# (cachegrind) fills metric_instructions with counts that repeat to within a few instructions, while
# served_by still names the allocator asked for (the preload reaches the program under valgrind);
# --count-alloc-instructions (callgrind) adds metric_alloc_instructions, the allocator's share, and
# leaves no valgrind file behind; the wrap and the counts are one at a time; without valgrind a
# count is a usage error that says to install it.
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
    "$HB" run -w thread-churn -a glibc,jemalloc -t 1 -p '--mode=loop --size=64 --check=no --ops=20000' -n 1 \
        --warmup 0 --env 'MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1' \
        --count-alloc-instructions -o "$RT_TMP/a" >/dev/null 2>&1
    rt_check "--count-alloc-instructions: the program's and the allocator's instructions, the allocator a share" "$RT_TMP/a" '
assert meta["metrics"] == {"instructions": "lower", "alloc_instructions": "lower"}, meta["metrics"]
for r in runs:
    assert r["status"] == "ok", r
    total, own = r["metric_instructions"], r["metric_alloc_instructions"]
    # 20000 malloc/free pairs of 64 bytes: tens of instructions each, and less than the whole program
    assert 20000 * 20 < own < total, (r["allocator"], own, total)
g, j = [r["metric_alloc_instructions"] for r in runs]
assert g != j, (g, j)'
    t_check "--count-alloc-instructions leaves no valgrind output file in logs/" test -z "$(ls "$RT_TMP/a/logs" | grep -v '\.log$')"
else
    t_fail "--count-instructions" "valgrind is not installed (make deps installs it)"
fi
# Without valgrind, a count is refused before anything runs: one line saying to install it, exit 2.
for words in "run -w thread-churn -n 1 --warmup 0 --count-instructions" \
             "run -w thread-churn -n 1 --warmup 0 --count-alloc-instructions" "exec -n 1 --count-instructions -- true"; do
    name="no valgrind: $words is one line saying 'make deps', exit 2, nothing written"
    # shellcheck disable=SC2086 # words are separate arguments
    err=$(scripts/without-valgrind "$HB" $words -o "$RT_TMP/novg" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "SKIP $name: $err"
    elif [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"needs valgrind"*"make deps"* ]] \
            && [ ! -e "$RT_TMP/novg" ]; then
        t_pass "$name"
    else
        t_fail "$name" "exit $rc, stderr: $err"
    fi
done
rt_usage "--wrap then --count-instructions is a usage error" run --wrap 'taskset -c 0' --count-instructions
rt_usage "--count-alloc-instructions then --wrap is a usage error" run --count-alloc-instructions --wrap 'taskset -c 0'
t_summary
