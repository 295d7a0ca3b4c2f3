#!/usr/bin/env bash
# submit.sh - contrib/slurm/heapbench-array.sbatch's submitter checks the run options with the
# runner before it submits anything: run options the runner refuses are refused with the runner's
# own message (exit 2) and sbatch is never called; good options reach sbatch. Slurm itself is not
# needed: sbatch here is a recording stand-in on PATH (the real submission is slurm.sh's test).
# Always holds: everything is written under the temporary directory of runner/tests/rtlib.bash.
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=runner/tests/rtlib.bash
source runner/tests/rtlib.bash
SCRIPT=$PWD/contrib/slurm/heapbench-array.sbatch
export HEAPBENCH=$HB

# sbatch stand-in: appends its arguments to $RT_TMP/sbatch.calls and answers a job id, as
# `sbatch --parsable` does.
mkdir -p "$RT_TMP/bin"
cat >"$RT_TMP/bin/sbatch" <<STUB
#!/bin/sh
echo "\$*" >>"$RT_TMP/sbatch.calls"
echo 41
STUB
chmod +x "$RT_TMP/bin/sbatch"

# submit_with ARGS...: runs the submitter with the stand-in; its stderr in $RT_TMP/err, exit in rc.
submit_with() {
    rm -f "$RT_TMP/sbatch.calls"
    PATH=$RT_TMP/bin:$PATH "$SCRIPT" -N 2 -r "$RT_TMP/res" "$@" >"$RT_TMP/out" 2>"$RT_TMP/err"
    rc=$?
}

# A workload name the runner does not know: the runner's own message, exit 2, nothing submitted.
want=$("$HB" run --quick -w nosuch -a glibc --list-shard 1/2 2>&1 >/dev/null)
submit_with -- --quick -w nosuch -a glibc
if [ "$rc" -eq 2 ] && [ -n "$want" ] && grep -qxF "$want" "$RT_TMP/err" && [ ! -e "$RT_TMP/sbatch.calls" ]; then
    t_pass "a bad workload name is refused with the runner's message, exit 2, sbatch not called"
else
    t_fail "bad workload name refused before sbatch" "exit $rc; runner says '$want'; stderr: $(tr '\n' '|' <"$RT_TMP/err"); sbatch calls: $(cat "$RT_TMP/sbatch.calls" 2>/dev/null)"
fi

# A bad allocator name and a bad option value, the same way.
for bad in "-a nosuchalloc" "--latency sometimes"; do
    # shellcheck disable=SC2086 # the option and its value are two words
    submit_with -- --quick -w frag $bad
    if [ "$rc" -eq 2 ] && grep -q 'nothing submitted' "$RT_TMP/err" && [ ! -e "$RT_TMP/sbatch.calls" ]; then
        t_pass "run options '$bad' refused before sbatch (exit 2)"
    else
        t_fail "run options '$bad' refused before sbatch" "exit $rc; stderr: $(tr '\n' '|' <"$RT_TMP/err")"
    fi
done

# The options the script sets for each task.
submit_with -- --quick -w frag -o "$RT_TMP/mine"
if [ "$rc" -eq 2 ] && grep -q "leave -o, --shard and --resume out" "$RT_TMP/err" && [ ! -e "$RT_TMP/sbatch.calls" ]; then
    t_pass "-o among the run options is refused before sbatch (exit 2)"
else
    t_fail "-o among the run options refused" "exit $rc; stderr: $(tr '\n' '|' <"$RT_TMP/err")"
fi

# Good options are submitted: the array of 2 tasks, then the merge job that depends on it.
submit_with -- --quick -w frag -a glibc
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$RT_TMP/sbatch.calls" 2>/dev/null)" -eq 2 ] &&
    grep -q -- '--array=1-2' "$RT_TMP/sbatch.calls" && grep -q -- '--dependency=afterok:41' "$RT_TMP/sbatch.calls"; then
    t_pass "good run options: the array and its merge job are submitted"
else
    t_fail "good run options submitted" "exit $rc; stderr: $(tr '\n' '|' <"$RT_TMP/err"); calls: $(cat "$RT_TMP/sbatch.calls" 2>/dev/null)"
fi
t_summary
