#!/usr/bin/env bash
# leaks.sh - no measured process outlives its run or the runner: a
# command that starts a daemon (setsid ... &) and exits has it killed after the run, named in
# the row's reason; kill -9 of the runner kills the measured process (run and exec).
# Each sleep has a duration unique to this test process, so other tests' sleeps are not seen.
source runner/tests/rtlib.bash

tag=$$
gone() { # gone PATTERN: true once no process has exactly this command line (waits up to 10 s)
    for _ in $(seq 200); do pgrep -fx "$1" >/dev/null || return 0; sleep 0.05; done
    return 1
}
appear() { # appear PATTERN: true once a process has this command line (waits up to 20 s)
    for _ in $(seq 400); do pgrep -fx "$1" >/dev/null && return 0; sleep 0.05; done
    return 1
}

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/d" -- sh -c "setsid sleep 57.$tag & sleep 0.3; exit 0" \
    >/dev/null 2>&1
t_check "a daemon started by the command is gone after exec" gone "sleep 57.$tag"
rt_check "the row names the process left behind" "$RT_TMP/d" '
assert len(runs) == 1 and "left 1 process behind, killed: sleep" in runs[0]["reason"], runs'
pkill -fx "sleep 57.$tag" 2>/dev/null

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/x" -- sleep "23.$tag" >/dev/null 2>&1 &
pid=$!
appear "sleep 23.$tag"
kill -9 "$pid"; wait "$pid" 2>/dev/null
t_check "kill -9 of exec kills the measured process" gone "sleep 23.$tag"
pkill -fx "sleep 23.$tag" 2>/dev/null

printf '#!/bin/sh\nexec sleep 24.%s\n' "$tag" > "$RT_TMP/sleeper"
chmod +x "$RT_TMP/sleeper"
"$HB" run -w sleeper --workload-bin "sleeper=$RT_TMP/sleeper" -a glibc -n 1 --warmup 0 -o "$RT_TMP/y" \
    >/dev/null 2>&1 &
pid=$!
appear "sleep 24.$tag"
kill -9 "$pid"; wait "$pid" 2>/dev/null
t_check "kill -9 of run kills the measured process" gone "sleep 24.$tag"
pkill -fx "sleep 24.$tag" 2>/dev/null
t_summary
