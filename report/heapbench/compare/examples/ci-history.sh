#!/bin/sh
# ci-history.sh - the heapbench gate against this machine's own history, for any CI (the GitHub and GitLab examples call it).
# Always holds: exits with heapbench ci's status - 0 pass (the run was added to the history when ADD=1),
# 1 a regression confirmed on a re-run, 3 undecided (too few points or reps), 2 a setup problem - except on
# a testbed the history does not know yet (a new runner type, a new kernel): then it seeds that testbed with
# SEEDS runs added without gating and exits 0, saying so; nothing is gated on that first job.
#
# Usage: report/heapbench/compare/examples/ci-history.sh [extra 'heapbench ci' options, e.g. -w thread-churn -a glibc,jemalloc]
# Env:   HEAPBENCH_HISTORY  the history: an SQLite file (default results/history.sqlite, kept by the CI's
#                           cache) or postgresql://user@host/db (one history for many runners)
#        HEAPBENCH_OUT      where the gate writes (default results/ci); ADD=1 adds a passing run (main branch)
#        LABEL              the label of the added run (default: git describe of the checkout)
#        SEEDS              runs added when a testbed is new (default 3: the gate decides from 3 points)
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)" || exit 2
# The history reaches heapbench through the environment, never the command line (where ps would show
# a PostgreSQL URL's password).
HEAPBENCH_HISTORY=${HEAPBENCH_HISTORY:-results/history.sqlite}
export HEAPBENCH_HISTORY
out=${HEAPBENCH_OUT:-results/ci}
label=${LABEL:-$(git describe --always --dirty 2>/dev/null || echo unlabelled)}
mkdir -p "$out"
# Memory counts (page faults, peak RSS) of the quick matrix: they do not follow the runner's load.
set -- --history --metrics minflt,maxrss_kb "$@"
if [ "${ADD:-0}" = 1 ]; then
    build/heapbench ci "$@" -o "$out" --junit "$out/junit.xml" --markdown "$out/summary.md" \
        --add --label "$label" 2>"$out/gate.err"
else
    build/heapbench ci "$@" -o "$out" --junit "$out/junit.xml" --markdown "$out/summary.md" 2>"$out/gate.err"
fi
status=$?
cat "$out/gate.err" >&2
if [ $status -eq 2 ] && grep -q "has no run of this machine's testbed" "$out/gate.err"; then
    echo "heapbench gate: this testbed is new to the history; seeding it with ${SEEDS:-3} runs (nothing gated)"
    i=0
    while [ $i -lt "${SEEDS:-3}" ]; do
        i=$((i + 1))
        build/heapbench ci "$@" --update-baseline -o "$out/seed-$i" || exit 2
    done
    exit 0
fi
case $status in
0) echo "heapbench gate: no confirmed regression against this testbed's history" ;;
1) echo "heapbench gate: confirmed regression, see $out/summary.md" ;;
3) echo "heapbench gate: undecided (too few points or reps), see $out/summary.md" ;;
*) echo "heapbench gate: could not run (exit $status)" ;;
esac
exit $status
