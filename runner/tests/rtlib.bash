# rtlib.bash - shared helpers of the runner's integration tests (sourced by runner/tests/*.sh).
# Always holds: every test works in its own temporary directory, removed on exit; results are
# checked through heapbench.results (report/, the project's one Python reader of results directories).
source scripts/testlib.sh
RT_TMP=$(mktemp -d /tmp/hb-runner-test.XXXXXX)
trap 'rm -rf "$RT_TMP"' EXIT

# rt_check NAME DIR PYCODE: loads DIR with results.load() (heapbench.results) as d (runs = d["runs"], meta =
# d["meta"]) and runs PYCODE; PASS when no assertion fails, FAIL with the assertion otherwise.
rt_check() {
    local name=$1 dir=$2 code=$3 out
    local prelude='import sys
from heapbench import results
d = results.load(sys.argv[1])
runs, meta = d["runs"], d["meta"]'
    if out=$(PYTHONPATH=$PWD/report /usr/bin/python3 -c "$prelude
$code" "$dir" 2>&1); then
        t_pass "$name"
    else
        t_fail "$name" "$(printf '%s' "$out" | tail -n 3)"
    fi
}

# rt_usage NAME ARGS...: heapbench ARGS must exit 2 with exactly one line on stderr.
rt_usage() {
    local name=$1; shift
    local err rc
    err=$("$HB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ -n "$err" ]; then
        t_pass "$name"
    else
        t_fail "$name" "exit $rc, stderr: $err"
    fi
}

# rt_fake_root REGISTRY LIST: a project root in $RT_TMP/fake holding a copy of heapbench, the
# real libraries and thread-churn, and the given registry.txt and LIST texts; prints its path.
rt_fake_root() {
    local root=$RT_TMP/fake
    mkdir -p "$root/build/workloads" "$root/allocators" "$root/workloads"
    cp "$PWD/build/heapbench" "$root/build/heapbench"
    ln -s "$PWD/build/lib" "$root/build/lib"
    ln -s "$PWD/build/workloads/thread-churn" "$root/build/workloads/thread-churn"
    printf '%s\n' "$1" > "$root/allocators/registry.txt"
    printf '%s\n' "$2" > "$root/workloads/LIST"
    echo "$root"
}

# Every test runs heapbench from a private root (the real registry, LIST, programs, binaries
# and libraries) so that its results/ and results/latest are its own, not the checkout's.
mkdir -p "$RT_TMP/root/build" "$RT_TMP/root/allocators" "$RT_TMP/root/workloads"
cp build/heapbench "$RT_TMP/root/build/heapbench"
ln -s "$PWD/build/lib" "$RT_TMP/root/build/lib"
ln -s "$PWD/build/workloads" "$RT_TMP/root/build/workloads"
ln -s "$PWD/build/replay" "$RT_TMP/root/build/replay" # record's post-pass (hbconvert)
cp allocators/registry.txt "$RT_TMP/root/allocators/"
cp workloads/LIST "$RT_TMP/root/workloads/"
[ -d exec ] && ln -s "$PWD/exec" "$RT_TMP/root/exec"
ln -s "$PWD/report" "$RT_TMP/root/report" # the Python package heapbench hands over to (exec --hyperfine, report, ...)
HB=$RT_TMP/root/build/heapbench
