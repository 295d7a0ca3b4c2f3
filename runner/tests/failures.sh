#!/usr/bin/env bash
# failures.sh - what goes wrong is recorded, never measured as something else: a library that
# does not define malloc gives a failed row (not a glibc row), a missing registry library gives
# skipped rows with the apt-get line, a crash is crashed with its signal, a sleeper past
# --timeout is timeout (and killed), a non-zero exit is failed with its code; the child's
# environment holds LD_PRELOAD, HEAPBENCH_PHASE_FD and the env set, and output goes to the log.
source runner/tests/rtlib.bash
# the sleeper's duration names this test run, so that the check below never sees the sleeper of
# another test run on the machine (two make test runs at once made it fail)
SLEEP_S=31.$$

root=$(rt_fake_root \
"glibc    | -                                          | libc6        | glibc             | glibc    | default
jemalloc | /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 | libjemalloc2 | dpkg:libjemalloc2 | jemalloc | default
ghost    | /nonexistent/libghost.so                   | ghost-pkg    | dpkg:ghost-pkg    | none     | default" \
"thread-churn | 1 | --ops=2000 | --ops=2000 | the real one
crash        | - |            |            | kills itself with SIGSEGV
sleeper      | - |            |            | sleeps 31 s (past its timeout)
exit3        | - |            |            | exits 3
envdump      | - |            |            | prints its environment")
w=$root/build/workloads
printf '#!/bin/sh\nkill -SEGV $$\n' > "$w/crash"
printf '#!/bin/sh\nexec sleep %s\n' "$SLEEP_S" > "$w/sleeper"
printf '#!/bin/sh\necho oops >&2\nexit 3\n' > "$w/exit3"
printf '#!/bin/sh\necho "PRELOAD=$LD_PRELOAD FD=$HEAPBENCH_PHASE_FD ARENA=$MALLOC_ARENA_MAX"\n' > "$w/envdump"
chmod +x "$w"/*
HB=$root/build/heapbench

"$HB" run -w thread-churn -a glibc,fake,ghost -n 2 --warmup 0 \
    --allocator fake=/usr/lib/x86_64-linux-gnu/libz.so.1 -o "$RT_TMP/f" >/dev/null 2>&1
rt_check "a .so without malloc gives failed rows 'LD_PRELOAD had no effect'" "$RT_TMP/f" '
fake = [r for r in runs if r["allocator"] == "fake"]
assert len(fake) == 2 and all(r["status"] == "failed" for r in fake), fake
assert all(r["reason"].startswith("LD_PRELOAD had no effect: malloc served by ") and "libc.so" in r["reason"] for r in fake)
assert [r["status"] for r in runs if r["allocator"] == "glibc"] == ["ok", "ok"]'
rt_check "a missing registry library gives skipped rows with the apt-get line" "$RT_TMP/f" '
ghost = [r for r in runs if r["allocator"] == "ghost"]
assert [r["status"] for r in ghost] == ["skipped", "skipped"], ghost
assert all(r["reason"] == "not installed: apt-get install ghost-pkg" for r in ghost)
assert all(r["wall_s"] is None and r["maxrss_kb"] is None and r["served_by"] == "" for r in ghost)
assert meta["allocators"]["ghost"]["status"] == "missing"'

start=$(date +%s.%N)
"$HB" run -w crash,sleeper,exit3 -a glibc,jemalloc -n 1 --warmup 0 --timeout 1 -o "$RT_TMP/c" >/dev/null 2>&1
took=$(echo "$(date +%s.%N) - $start" | bc)
rt_check "a crash is crashed with its signal" "$RT_TMP/c" '
rows = [r for r in runs if r["workload"] == "crash"]
assert len(rows) == 2 and all(r["status"] == "crashed" and r["signal"] == 11 and r["exit_code"] is None for r in rows), rows'
rt_check "a sleeper past --timeout is timeout" "$RT_TMP/c" '
rows = [r for r in runs if r["workload"] == "sleeper"]
assert len(rows) == 2 and all(r["status"] == "timeout" and 0.9 < r["wall_s"] < 5 for r in rows), rows'
rt_check "a non-zero exit is failed with its exit code" "$RT_TMP/c" '
rows = [r for r in runs if r["workload"] == "exit3"]
assert len(rows) == 2 and all(r["status"] == "failed" and r["exit_code"] == 3 for r in rows), rows'
# A sleeper not killed at its 1 s timeout alone holds the run up 31 s; the six runs' own start-up
# took 17 s at load 55 (2 cores), so the bound is just under one sleeper's time, not a speed claim.
t_check "timeouts did not hold the run up (took ${took}s)" test "$(echo "$took < 30" | bc)" -eq 1
t_check "the timed-out sleeper was killed" bash -c "! pgrep -fx 'sleep $SLEEP_S' >/dev/null"
t_check "a process's stderr goes to its log" grep -qx oops "$RT_TMP/c/logs/5.log"

"$HB" run -w envdump -a glibc,jemalloc -n 1 --warmup 0 --env 'MALLOC_ARENA_MAX=1' -o "$RT_TMP/e" >/dev/null 2>&1
t_check "glibc child: no LD_PRELOAD, phase fd 3, the env set" grep -qx 'PRELOAD= FD=3 ARENA=1' "$RT_TMP/e/logs/1.log"
t_check "jemalloc child: LD_PRELOAD is the library" grep -qx 'PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 FD=3 ARENA=1' "$RT_TMP/e/logs/2.log"
rt_check "the env set is the env column" "$RT_TMP/e" '
assert {r["env"] for r in runs} == {"MALLOC_ARENA_MAX=1"} and meta["envs"] == ["MALLOC_ARENA_MAX=1"]'
"$HB" run -w envdump -a glibc -n 1 --warmup 0 --env 'A=1 B=a;b&c$d ' -o "$RT_TMP/e2" >/dev/null 2>&1
rt_check "meta.json command_line is the argv, shell-quoted" "$RT_TMP/e2" '
import shlex
assert shlex.split(meta["command_line"]) == ["heapbench"] + meta["argv"], meta["command_line"]
assert "A=1 B=a;b&c$d " in meta["argv"]'
t_summary
