#!/usr/bin/env bash
# slurm.sh - contrib/slurm/heapbench-array.sbatch on a real Slurm: a one-node cluster (munged,
# slurmctld, slurmd on localhost) started here, a 3-shard array of a small quick matrix, its merge.
# Always holds: the daemons run from a temporary directory (their own slurm.conf, munge socket,
# ports the kernel gave free, state and spool) and are stopped by pid at the end, every job
# cancelled first, so that no daemon or job step is left; when the daemons cannot start, the
# test says SKIP with the reason and asserts nothing (never a faked pass). Results go to the
# private root of runner/tests/rtlib.bash, never to the checkout's results/.
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=runner/tests/rtlib.bash
source runner/tests/rtlib.bash
SCRIPT=$PWD/contrib/slurm/heapbench-array.sbatch
# The matrix: 3 groups (thread-churn's two quick param sets at 1 thread, sizes) x 2 allocators x 2 reps.
# shellcheck disable=SC2054 # commas separate names inside one option value
MATRIX=(--quick -w thread-churn,sizes -a glibc,jemalloc -t 1 --warmup 0 --interval 0)
PIDS=()

# Cancels every job, waits for them to leave, stops the daemons by pid (TERM, then KILL), removes the tree.
sl_stop() {
    if [ -n "${SLURM_CONF:-}" ] && [ ${#PIDS[@]} -gt 0 ]; then
        scancel --full --quiet --user=root 2>/dev/null
        sl_wait_empty 60 >/dev/null
    fi
    local pid n
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$RT_TMP"
}
trap sl_stop EXIT

# Polls squeue until no job is left (or $1 seconds pass); 0 when empty.
sl_wait_empty() {
    local limit=$1 t=0
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ] || ! squeue -h >/dev/null 2>&1; do
        [ "$t" -ge $((limit * 2)) ] && return 1
        sleep 0.5; t=$((t + 1))
    done
}

# Polls until job $1 (all its tasks) has left the queue; 0 when it did within $2 seconds.
sl_wait_job() {
    local job=$1 limit=$2 t=0
    while [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; do
        [ "$t" -ge $((limit * 2)) ] && return 1
        sleep 0.5; t=$((t + 1))
    done
}

# Two TCP ports free right now, from the kernel.
sl_ports() {
    /usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))'
}

# Writes slurm.conf for this host into $1.
sl_conf() {
    local d=$1 host ports
    host=$(hostname -s)
    read -r -a ports <<<"$(sl_ports)"
    cat >"$d/slurm.conf" <<CONF
ClusterName=hbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=hbtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

# Starts munged, slurmctld and slurmd (their pids in PIDS); 0 when the node is idle within 60 s,
# else 1 with the reason in SL_WHY. Not to be called in a subshell (PIDS, SLURM_CONF).
sl_start() {
    local d=$RT_TMP/slurm
    for cmd in munged slurmctld slurmd sbatch squeue sinfo scancel; do
        command -v "$cmd" >/dev/null || { SL_WHY="$cmd is not installed (apt-get install slurm-wlm munge)"; return 1; }
    done
    [ "$(id -u)" -eq 0 ] || { SL_WHY="the daemons need root"; return 1; }
    [ -r /etc/munge/munge.key ] || { SL_WHY="/etc/munge/munge.key is missing (munge package)"; return 1; }
    mkdir -p "$d/state" "$d/spool" && chmod 711 "$RT_TMP" "$d"
    install -m 600 /etc/munge/munge.key "$d/munge.key"
    sl_conf "$d"
    export SLURM_CONF=$d/slurm.conf
    munged -F --force --socket="$d/munge.sock" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
        --seed-file="$d/munged.seed" --log-file="$d/munged.log" >"$d/munged.out" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 50); do [ -S "$d/munge.sock" ] && break; sleep 0.2; done
    slurmctld -D -i -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
    PIDS+=($!)
    slurmd -D -N "$(hostname -s)" -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 120); do
        [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && return 0
        sleep 0.5
    done
    SL_WHY="the node did not become idle: $(tail -n 2 "$d"/slurm*.log "$d"/*.out 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
    return 1
}

# rows DIR: the (run, cell, rep) rows of a results directory, one per line, sorted.
rows() {
    PYTHONPATH=$PWD/report /usr/bin/python3 -c 'import sys
from heapbench import results
for r in sorted(results.load(sys.argv[1])["runs"], key=lambda r: r["run"]):
    print(r["run"], *results.cell_key(r)[1:], r["rep"])' "$1"
}

# submit OUTDIR ARGS...: submits the array with the script; prints the array job id.
submit() {
    local out=$1; shift
    "$SCRIPT" -N 3 -r "$out" -- "$@" | sed -n 's/^submitted array job \([0-9]*\).*/\1/p'
}

SL_WHY=
if ! sl_start; then
    echo "SKIP slurm: cannot start a one-node Slurm here: $SL_WHY"
    t_summary
    exit
fi
export HEAPBENCH=$HB

# The unsharded reference: the same matrix in one run.
"$HB" run "${MATRIX[@]}" -o "$RT_TMP/whole" >/dev/null 2>&1
t_check "reference run of the matrix" test -f "$RT_TMP/whole/runs.csv"
rows "$RT_TMP/whole" >"$RT_TMP/whole.rows"

# 1. A clean 3-shard array: merged = the reference rows; each task took its shard from Slurm.
start=$(date +%s.%N)
job=$(submit "$RT_TMP/A" "${MATRIX[@]}")
t_check "the array and its merge job were submitted" test -n "$job"
merge_job=$(cat "$RT_TMP/A/$job/merge-job" 2>/dev/null)
sl_wait_job "$job" 600 && sl_wait_job "$merge_job" 600
wall=$(echo "$(date +%s.%N) - $start" | bc)
merged=$RT_TMP/A/$job/merged
if rows "$merged" 2>/dev/null | diff -q - "$RT_TMP/whole.rows" >/dev/null; then
    t_pass "3-shard Slurm array merged = the unsharded run's rows (run, cell, rep)"
else
    t_fail "3-shard Slurm array merged = the unsharded run's rows" \
        "$(rows "$merged" 2>&1 | diff - "$RT_TMP/whole.rows" | head -5 | tr '\n' ' ') $(tail -n 3 "$RT_TMP/A"/*.out | tr '\n' ' ')"
fi
t_check "the merge job rendered the report" test -s "$merged/report.html"
t_check "every task read its shard from SLURM_ARRAY_TASK_ID" \
    test "$(grep -l '"shard_source": "SLURM_ARRAY_TASK_ID"' "$RT_TMP/A/$job"/task-*/meta.json | wc -l)" -eq 3
echo "# 3-shard array wall time: $(printf '%.1f' "$wall") s (submit to merged report, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"

# 2. Task 2 is killed (SIGKILL of its runner at its 3rd process), re-run with --resume: nothing lost or doubled.
cat >"$RT_TMP/killer" <<'KILL'
#!/bin/sh
# Measured-process wrapper: in array task 2, the 3rd process kills its runner with SIGKILL, once.
if [ "${SLURM_ARRAY_TASK_ID:-}" = 2 ]; then
    echo x >>"$HB_KILL_COUNT"
    if [ "$(wc -l <"$HB_KILL_COUNT")" -eq 3 ]; then kill -KILL "$PPID"; exit 1; fi
fi
exec "$@"
KILL
chmod +x "$RT_TMP/killer"
export HB_KILL_COUNT=$RT_TMP/kill-count
job=$(submit "$RT_TMP/B" "${MATRIX[@]}" --wrap "$RT_TMP/killer")
sl_wait_job "$job" 600
t_check "task 2 was killed mid-run (its meta.json says incomplete)" \
    sh -c "! grep -q '\"complete\": true' '$RT_TMP/B/$job/task-2/meta.json'"
t_check "the merge job did not run after a failed task" test ! -e "$RT_TMP/B/$job/merged/runs.csv"
"$SCRIPT" --resume "$job" -r "$RT_TMP/B" >"$RT_TMP/resume.out" 2>&1
t_check "--resume re-submitted only task 2" grep -q "(tasks 2)" "$RT_TMP/resume.out"
merge_job=$(cat "$RT_TMP/B/$job/merge-job" 2>/dev/null)
sl_wait_empty 600
if rows "$RT_TMP/B/$job/merged" 2>/dev/null | diff -q - "$RT_TMP/whole.rows" >/dev/null; then
    t_pass "after the kill and --resume, merged = the unsharded rows: no cell lost or duplicated"
else
    t_fail "after the kill and --resume, merged = the unsharded rows" \
        "$(rows "$RT_TMP/B/$job/merged" 2>&1 | diff - "$RT_TMP/whole.rows" | head -5 | tr '\n' ' ')"
fi

# 3. Run options the runner refuses are refused before anything is queued (exit 2).
"$SCRIPT" -N 3 -r "$RT_TMP/C" -- --quick -w nosuch -a glibc >"$RT_TMP/bad.out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "unknown workload 'nosuch'" "$RT_TMP/bad.out" && [ -z "$(squeue -h -o %i 2>/dev/null)" ]; then
    t_pass "a bad workload name: refused with the runner's message, exit 2, no job queued"
else
    t_fail "a bad workload name refused before sbatch" "exit $rc: $(tr '\n' ' ' <"$RT_TMP/bad.out"); queue: $(squeue -h 2>&1 | tr '\n' ' ')"
fi

# 4. Nothing is left running.
sl_stop_pids=("${PIDS[@]}")
trap - EXIT
sl_stop
left=0
for pid in "${sl_stop_pids[@]}"; do kill -0 "$pid" 2>/dev/null && left=$((left + 1)); done
t_check "no daemon left (munged, slurmctld, slurmd stopped by pid)" test "$left" -eq 0
t_summary
