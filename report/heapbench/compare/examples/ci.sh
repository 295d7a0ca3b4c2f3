#!/usr/bin/env bash
# ci.sh - the heapbench regression gate for any CI system (Jenkins, GitLab, Buildkite, a cron job): copy and adapt.
# Always holds: exits with heapbench ci's status - 0 no confirmed regression, 1 a regression seen in two
# independent batches, 2 a setup problem (no baseline, unbuilt runner, bad option) - and leaves the
# JUnit XML and Markdown summary in $OUT for the CI system to publish, whatever the verdict.
#
# Usage: report/heapbench/compare/examples/ci.sh [extra 'heapbench ci' options, e.g. -w thread-churn -a glibc,jemalloc]
# Env:   HEAPBENCH_BASELINE (default results/baseline; in the default relative mode it may be committed and
#                           made on another machine: ratios to glibc travel, absolute figures do not)
#        HEAPBENCH_OUT      (default results/ci) where batches, compare.csv, junit.xml, summary.md go
# First time, or after an intended change:  heapbench ci --update-baseline [same options]
# A gate against this machine's own past instead of one baseline: ci-history.sh.
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)" || exit 2
baseline=${HEAPBENCH_BASELINE:-results/baseline}
out=${HEAPBENCH_OUT:-results/ci}
make >/dev/null || { echo "ci.sh: 'make' failed; fix the build first" >&2; exit 2; }
[ -d "$out/batch1" ] && rm -rf "$out"   # only a previous gate output is removed
# Default: ratios to glibc in the same run (a slower CI machine is not a regression), wall time and peak RSS.
build/heapbench ci --baseline "$baseline" -o "$out" \
    --metrics wall_s,maxrss_kb --junit "$out/junit.xml" --markdown "$out/summary.md" "$@"
status=$?
case $status in
0) echo "heapbench gate: no confirmed regression" ;;
1) echo "heapbench gate: confirmed regression, see $out/summary.md" ;;
*) echo "heapbench gate: could not run (exit $status)" ;;
esac
exit $status
