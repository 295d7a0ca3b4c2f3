#!/usr/bin/env bash
# shard.sh - `heapbench run --list-shard i/N` and the shard read from a scheduler's environment, end to end.
# Always holds: nothing is measured (--list-shard runs no cell; the refused command lines exit 2
# before any run), so the test is fast and writes nothing outside its temporary directory.
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=runner/tests/rtlib.bash
source runner/tests/rtlib.bash
# shellcheck disable=SC2054 # commas separate names inside one option value
M=(run --quick -w thread-churn,sizes,frag -a glibc,jemalloc)

# cells ARGS...: the cell lines (without the header and the group index) of a --list-shard, sorted.
cells() { "$HB" "$@" 2>/dev/null | tail -n +2 | cut -f2- | sort; }

cells "${M[@]}" --list-shard 1/1 >"$RT_TMP/all"
for i in 1 2 3; do cells "${M[@]}" --list-shard "$i/3"; done >"$RT_TMP/parts"
t_check "the cells of shards 1..3 are the whole matrix, each once" \
    bash -c "test -s '$RT_TMP/all' && sort '$RT_TMP/parts' | diff -q - '$RT_TMP/all' && test -z \"\$(sort '$RT_TMP/parts' | uniq -d)\""
# groups ALLOCATORS: the groups (index, workload, threads, params, env) of shard 2/3.
groups() { "$HB" "${M[@]:0:4}" -a "$1" --list-shard 2/3 2>/dev/null | tail -n +2 | cut -f1-5 | sort -u; }
groups glibc >"$RT_TMP/g1"
groups glibc,jemalloc,mimalloc >"$RT_TMP/g3"
t_check "a shard's groups do not change when allocators are added" \
    bash -c "test -s '$RT_TMP/g1' && diff '$RT_TMP/g1' '$RT_TMP/g3'"
# rt_usage runs \$HB ARGS: env runs heapbench with the scheduler's variables set.
HB_REAL=$HB
HB="env"
rt_usage "JOB_COMPLETION_INDEX without --shards N: exit 2, one line" JOB_COMPLETION_INDEX=0 "$HB_REAL" "${M[@]}" -o "$RT_TMP/x"
rt_usage "JOB_COMPLETION_INDEX=5 with --shards 3: exit 2, one line" JOB_COMPLETION_INDEX=5 "$HB_REAL" "${M[@]}" --shards 3 -o "$RT_TMP/y"
rt_usage "a Slurm array with a step: exit 2, one line" SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 \
    SLURM_ARRAY_TASK_MAX=5 SLURM_ARRAY_TASK_COUNT=3 "$HB_REAL" "${M[@]}" -o "$RT_TMP/z"
t_check "nothing was measured by the refused command lines" test ! -e "$RT_TMP/x" -a ! -e "$RT_TMP/y" -a ! -e "$RT_TMP/z"
t_summary
