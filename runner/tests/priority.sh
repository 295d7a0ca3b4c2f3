#!/usr/bin/env bash
# priority.sh - run/exec --priority: the measured process runs at SCHED_FIFO (rt) or nice -20 (nice),
# the runner itself one step above it under rt, and meta.json records the level; without the
# permission (no CAP_SYS_NICE: setpriv drops it) the level is refused with one line and exit 2
# before anything is written; a measured program spinning on every CPU at rt is still killed at
# its --timeout (the runner preempts it).
source runner/tests/rtlib.bash

# The program writes its own scheduling policy and nice value, and its parent's (the runner's)
# policy and real-time priority, into a file: "policy nice parent_policy parent_rtprio".
probe='set -- $(cut -d" " -f19,41 /proc/$$/stat); s=$(cut -d" " -f40,41 /proc/$PPID/stat); echo "$2 $1 $s" >> '
for level in rt nice normal; do
    "$HB" exec -a glibc -n 1 --warmup 0 --priority "$level" -o "$RT_TMP/$level" -- \
        sh -c "$probe$RT_TMP/$level.txt" >/dev/null 2>&1
done
# /proc/PID/stat: field 19 nice, 40 rt_priority, 41 policy (0 SCHED_OTHER, 1 SCHED_FIFO)
t_check "--priority rt: the program runs at SCHED_FIFO (policy 1), the runner at SCHED_FIFO priority 2 above it" \
    grep -qx '1 0 2 1' "$RT_TMP/rt.txt"
t_check "--priority nice: the program runs at SCHED_OTHER, nice -20; the runner is not real-time" \
    grep -qx '0 -20 0 0' "$RT_TMP/nice.txt"
t_check "--priority normal: SCHED_OTHER, nice 0 for the program and the runner" grep -qx '0 0 0 0' "$RT_TMP/normal.txt"
rt_check "meta.json records the priority level of the run (rt)" "$RT_TMP/rt" 'assert meta["priority"] == "rt", meta.get("priority")'
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/dflt" -- true >/dev/null 2>&1
rt_check "without --priority meta.json records normal" "$RT_TMP/dflt" 'assert meta["priority"] == "normal", meta.get("priority")'

# The refusal: the same command without CAP_SYS_NICE (dropped from the bounding and inheritable
# sets, so that root's exec does not regain it; RLIMIT_RTPRIO and RLIMIT_NICE are 0).
for level in rt nice; do
    err=$(prlimit --rtprio=0 --nice=0 setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice \
          "$HB" exec -a glibc -n 1 --warmup 0 --priority "$level" -o "$RT_TMP/refused-$level" -- true 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"--priority $level is not permitted"* ]] &&
       [[ "$err" == *"--priority normal"* ]] && [ ! -e "$RT_TMP/refused-$level" ]; then
        t_pass "--priority $level without CAP_SYS_NICE: one line saying what to do, exit 2, nothing written"
    else
        t_fail "--priority $level without CAP_SYS_NICE: one line saying what to do, exit 2, nothing written" \
            "exit $rc, stderr: $err, dir: $(ls "$RT_TMP/refused-$level" 2>&1)"
    fi
done
rt_usage "--priority high is a usage error" exec --priority high -- true

# A program spinning on every CPU at SCHED_FIFO: the runner, above it, still kills it at --timeout.
ncpu=$(nproc)
spin="for i in \$(seq $ncpu); do while :; do :; done & done; wait"
start=$(date +%s)
"$HB" exec -a glibc -n 1 --warmup 0 --priority rt --timeout 1 -o "$RT_TMP/spin" -- sh -c "$spin" >/dev/null 2>&1
took=$(( $(date +%s) - start ))
rt_check "--priority rt: a program spinning on all $ncpu CPUs is killed at its --timeout (status timeout)" "$RT_TMP/spin" '
r = runs[0]
assert r["status"] == "timeout" and r["wall_s"] < 5, (r["status"], r["wall_s"])'
t_check "--priority rt: the spinning run ended within 30 s of its start (took ${took} s)" test "$took" -lt 30
t_summary
