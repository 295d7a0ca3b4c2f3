#!/usr/bin/env bash
# memlimit.sh - --mem-limit: a process that runs out of the writable memory it
# is given, or whose workload reports running out of memory, is status oom with the limit in its
# reason (exit 1); the default limit is 3/4 of physical
# memory, recorded in meta.json; a malformed size is a usage error.
# These are the RLIMIT_DATA path's (no cgroup, HEAPBENCH_CGROUP=off); cgroup.sh has the cgroup's.
source runner/tests/rtlib.bash
export HEAPBENCH_CGROUP=off

"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/oom" -- \
    /usr/bin/python3 -c 'x = bytearray(2 << 30)' >/dev/null 2>&1; rc=$?
t_check "running out of --mem-limit exits 1" test "$rc" -eq 1
rt_check "running out of --mem-limit is status oom with the limit in its reason" "$RT_TMP/oom" '
r = runs[0]
assert r["status"] == "oom" and "256 MiB" in r["reason"] and "MemoryError" in r["reason"], r
assert meta["mem_limit_bytes"] == 256 << 20, meta["mem_limit_bytes"]'
"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/fits" -- /usr/bin/python3 -c 'x = bytearray(1 << 20)' \
    >/dev/null 2>&1; rc=$?
t_check "a process within --mem-limit is ok (exit 0)" test "$rc" -eq 0
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/dflt" -- true >/dev/null 2>&1
rt_check "the default limit is 3/4 of physical memory, in meta.json" "$RT_TMP/dflt" '
import os
phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
assert meta["mem_limit_bytes"] == phys // 4 * 3, (meta["mem_limit_bytes"], phys)
assert "default" in meta["mem_limit_how"], meta["mem_limit_how"]'
# A workload that reports its own out-of-memory (a failed verify record on the phase pipe, not a
# log line) far below the limit: oom all the same, and the reason keeps the workload's words.
"$HB" run -w frag -a jemalloc --quick -n 1 --warmup 0 --mem-limit 10M -o "$RT_TMP/wloom" >/dev/null 2>&1
rt_check "a workload's own out-of-memory report under --mem-limit is status oom, its line in the reason" "$RT_TMP/wloom" '
r = runs[0]
assert r["status"] == "oom", r
assert "10 MiB" in r["reason"] and "verify fail out of memory for the block table" in r["reason"], r["reason"]'
# Address space that is only reserved (PROT_NONE, as Scudo and Go reserve at start) is not memory:
# a process reserving 4 GiB under a 256 MiB limit runs; one writing 512 MiB of it is oom.
reserve='import mmap; m = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0)'
"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/reserve" -- /usr/bin/python3 -c "$reserve" \
    >/dev/null 2>&1; rc=$?
t_check "reserving 4 GiB of address space under --mem-limit 256M is ok (exit 0)" test "$rc" -eq 0
"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/write" -- \
    /usr/bin/python3 -c 'x = bytearray(512 << 20)' >/dev/null 2>&1; rc=$?
t_check "writing 512 MiB under --mem-limit 256M exits 1" test "$rc" -eq 1
if "$HB" list 2>/dev/null | grep -Eq '^ *scudo +found'; then
    "$HB" run -w sizes --quick -a scudo -n 1 --warmup 0 -o "$RT_TMP/scudo" >/dev/null 2>&1; rc=$?
    t_check "scudo (which reserves ~180 GB at start) runs under the default limit without a cgroup" test "$rc" -eq 0
fi
rt_usage "--mem-limit 12Q is a usage error" exec --mem-limit 12Q -- true
t_summary
