#!/usr/bin/env bash
# cgroup.sh - the run's cgroup (runner/measure/runcg.h, and --mem-limit): kill -9
# of the runner leaves no process of the measured command behind, not even one that left its
# process group (setsid), and no cgroup directory; --mem-limit through the cgroup gives status oom
# with the limit in the reason; the guard refuses a directory that is not a run's cgroup; `record`
# runs its command (plain and recorded) in such a cgroup too: a daemon it leaves is killed at the end
# of the run, and kill -9 of the runner in either run leaves nothing.
# Needs root and a writable cgroup fs (the real one): skipped with a SKIP line otherwise.
# Always holds: each sleep's duration names this test process ($$), so other tests' sleeps are never seen or killed;
# whatever a failed check leaves (sleeps, cgroup directories) is removed on exit.
source runner/tests/rtlib.bash

tag=$$
cg_dirs=()
cleanup() {
    pkill -fx "sleep 4242$tag" 2>/dev/null; pkill -fx "sleep 4243$tag" 2>/dev/null
    for p in $(pgrep -fx "sleep 424[4-8]$tag"); do kill -9 "$p"; done # record's, by pid
    for d in "${cg_dirs[@]}"; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
    rm -rf "$RT_TMP"
}
trap cleanup EXIT

# meta_cgroup DIR: the run's cgroup directory recorded in DIR/meta.json ("" when none).
meta_cgroup() {
    /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1] + "/meta.json")).get("cgroup") or "")' "$1"
}
# poll_gone SECONDS CMD...: true once CMD fails (polled every 50 ms, at most SECONDS).
poll_gone() {
    local n=$(($1 * 20)); shift
    for _ in $(seq "$n"); do "$@" || return 0; sleep 0.05; done
    return 1
}
alive() { pgrep -fx "sleep 4242$tag" >/dev/null || pgrep -fx "sleep 4243$tag" >/dev/null; }
both_up() { pgrep -fx "sleep 4242$tag" >/dev/null && pgrep -fx "sleep 4243$tag" >/dev/null; }

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/probe" -- true >/dev/null 2>&1
probe=$(meta_cgroup "$RT_TMP/probe")
if [ "$(id -u)" -ne 0 ] || [ -z "$probe" ]; then
    echo "SKIP cgroup tests: not root or no writable cgroup fs here (meta.json containment: $(grep -o '"containment": "[^"]*' "$RT_TMP/probe/meta.json"))"
    t_summary; exit
fi
cg_dirs+=("$probe")
t_check "a finished run removes its cgroup ($probe)" test ! -e "$probe"

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/k" -- sh -c "setsid sleep 4242$tag & sleep 4243$tag" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 400); do both_up && [ -s "$RT_TMP/k/meta.json" ] && break; sleep 0.05; done
dir=$(meta_cgroup "$RT_TMP/k")
cg_dirs+=("$dir")
t_check "the command and its setsid daemon are running in the run's cgroup" \
    grep -qx "$(pgrep -fx "sleep 4242$tag")" "$dir/cgroup.procs"
kill -9 "$pid"; wait "$pid" 2>/dev/null
if poll_gone 10 alive; then t_pass "kill -9 of the runner: neither sleep survives (the setsid one included)"
else t_fail "kill -9 of the runner: neither sleep survives" "$(pgrep -fa "sleep 424[23]$tag")"; fi
t_check "kill -9 of the runner: its cgroup is removed" poll_gone 10 test -e "$dir"
t_check "kill -9 of the runner: its guard has ended" poll_gone 10 pgrep -f "cgroup-guard $dir\$"

"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/oom" -- \
    /usr/bin/python3 -c 'x = b"x" * (1 << 30)' >/dev/null 2>&1; rc=$?
cg_dirs+=("$(meta_cgroup "$RT_TMP/oom")")
t_check "running out of --mem-limit in the cgroup exits 1" test "$rc" -eq 1
rt_check "... status oom, the limit and the cgroup in its reason; meta.json names the mechanism" "$RT_TMP/oom" '
r = runs[0]
assert r["status"] == "oom" and "256 MiB" in r["reason"] and "cgroup" in r["reason"], r
assert meta["mem_limit_bytes"] == 256 << 20 and "cgroup" in meta["mem_limit_how"], meta["mem_limit_how"]'
"$HB" exec -a glibc -n 1 --warmup 0 --mem-limit 256M -o "$RT_TMP/fits" -- \
    /usr/bin/python3 -c 'x = b"x" * (64 << 20)' >/dev/null 2>&1; rc=$?
cg_dirs+=("$(meta_cgroup "$RT_TMP/fits")")
t_check "a process within --mem-limit in the cgroup is ok (exit 0)" test "$rc" -eq 0

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/closed" -- true <&- >/dev/null 2>&1; rc=$?
cg_dirs+=("$(meta_cgroup "$RT_TMP/closed")")
rt_check "a runner started with stdin closed still has its cgroup and guard" "$RT_TMP/closed" '
assert meta["cgroup"] and runs[0]["status"] == "ok", (meta["cgroup"], runs[0]["reason"])'

HEAPBENCH_CGROUP=off "$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/off" -- true >/dev/null 2>&1
rt_check "HEAPBENCH_CGROUP=off: no cgroup, RLIMIT_DATA, and meta.json says so" "$RT_TMP/off" '
assert meta["cgroup"] is None and "HEAPBENCH_CGROUP=off" in meta["containment"], meta["containment"]
assert "RLIMIT_DATA" in meta["mem_limit_how"], meta["mem_limit_how"]'
t_check "no cgroup directory is left by any run" bash -c 'for d; do [ ! -e "$d" ] || exit 1; done' _ "${cg_dirs[@]}"
rt_usage "the guard refuses a directory that is not a run's cgroup" cgroup-guard /sys/fs/cgroup/memory

# heapbench record: both its runs (plain, then recorded) are contained as exec's are.
# in_run_cg PID RUNNER: true when process PID is in RUNNER's run cgroup (heapbench-RUNNER).
in_run_cg() { grep -q "/heapbench-$2\(-[0-9]*\)\?\$" "/proc/$1/cgroup" 2>/dev/null; }
# run_cg_left RUNNER: true while a cgroup directory of RUNNER's run exists.
run_cg_left() { [ -n "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "heapbench-$1*" -print -quit 2>/dev/null)" ]; }
# record_killed NAME DAEMON SLEEP CMD: starts record of CMD (which starts `setsid sleep DAEMON` and
# `sleep SLEEP`), kills the runner with -9 once both are up in its cgroup, and checks that both
# sleeps and the cgroup are gone.
record_killed() {
    local name=$1 daemon=$2 sleep=$3 pid up=0; shift 3
    "$HB" record -o "$RT_TMP/rec/$name.hbt" -- "$@" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 400); do
        d=$(pgrep -fx "sleep $daemon") && s=$(pgrep -fx "sleep $sleep") && in_run_cg "$d" "$pid" && in_run_cg "$s" "$pid" && { up=1; break; }
        sleep 0.05
    done
    t_check "record ($name): the command and its setsid daemon run in the run's cgroup" test "$up" -eq 1
    kill -9 "$pid"; wait "$pid" 2>/dev/null
    if poll_gone 10 pgrep -fx "sleep ($daemon|$sleep)" >/dev/null; then t_pass "record ($name): kill -9 of the runner: neither sleep survives"
    else t_fail "record ($name): kill -9 of the runner: neither sleep survives" "$(pgrep -fa "sleep ($daemon|$sleep)")"; fi
    t_check "record ($name): kill -9 of the runner: its cgroup is removed" poll_gone 10 run_cg_left "$pid"
}
mkdir -p "$RT_TMP/rec"
"$HB" record -o "$RT_TMP/rec/left.hbt" -- sh -c "setsid sleep 4244$tag & sleep 0.3" >/dev/null 2>&1; rc=$?
t_check "record: exits 0 and the daemon its command left behind in either run is gone (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && ! pgrep -fx 'sleep 4244$tag'"
record_killed plain "4245$tag" "4246$tag" sh -c "setsid sleep 4245$tag & sleep 4246$tag"
record_killed recorded "4247$tag" "4248$tag" \
    sh -c "[ -z \"\$HEAPBENCH_RECORD_DIR\" ] || { setsid sleep 4247$tag & sleep 4248$tag; }"
t_summary
