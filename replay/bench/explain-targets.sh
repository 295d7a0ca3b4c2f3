#!/usr/bin/env bash
# explain-targets.sh - every target of heapbench explain in one command, at small sizes, one table and one
# met/not met line per target, then a summary of the verdicts and the time taken:
#   1. the parts add up (within +-5% of RSS) at the peak and the end, frag, parser, server, python3-alloc and
#      sqlite3 under each allocator (explain.sh), and 2. the pin on frag (explain.sh's second table);
#   3. the live bytes agree with heaptrack (heaptrack.sh: ideal within 1%, the same top 5 call sites);
#   4. two call sites that fragment differently, ranked as built (sitefrag.sh);
#   5. the sample mode's cost against the recorder without call sites (<= 1.3x, sitecost.sh, callgrind);
#   6. explain against a plain replay of the same trace (<= 2x, explaincost.sh on a parser trace).
# usage: [ALLOCS=glibc,jemalloc,...] [ROUNDS=3] [COST_ARGS='--scale=2 --files=2'] replay/bench/explain-targets.sh
# (exit 1 when a target is not met). COST_ARGS: the parser's arguments for the explain-against-replay trace; at
# the default size a replay takes ~0.06 s of CPU, near GNU time's 10 ms resolution, so there the callgrind
# instruction ratios are the figure (--scale=10 --files=4 gives CPU times of ~0.5 s).
# Sizes: frag --blocks=20000 (its pin kept), parser --scale=2 --files=2, server --quick, the program definitions
# at their own sizes; bitmap-pool --ops=2000000 for the recorder's cost (instructions judge it, not time).
# Always holds: each part runs in its own temporary directory and removes it; writes nothing else.
set -u
source "$(dirname "$0")/progs.sh"
bp_tmp explain-targets
export ALLOCS=${ALLOCS:-glibc,jemalloc,tcmalloc,tcmalloc-minimal,mimalloc,tbbmalloc}
ROUNDS=${ROUNDS:-3}
COST_ARGS=${COST_ARGS:---scale=2 --files=2}
B=replay/bench
start=$(date +%s)
: >"$TMP/verdicts"
part() { # part TITLE CMD...: runs a benchmark, keeps its met/not met lines
    echo; echo "## $1"; echo
    "${@:2}" 2>&1 | tee "$TMP/out"
    grep -E ': (met|NOT MET) ' "$TMP/out" >>"$TMP/verdicts" || echo "$1: NOT MET (no verdict: the benchmark failed, see above)" >>"$TMP/verdicts"
}
part "The parts add up; the pin on frag" env PLAIN=0 \
    PROGS='frag --blocks=20000;parser --scale=2 --files=2;server --quick;python3-alloc;sqlite3' $B/explain.sh
part "The live bytes against heaptrack" $B/heaptrack.sh
part "Two call sites that fragment differently" $B/sitefrag.sh
part "What the call sites cost the recorder" $B/sitecost.sh "$ROUNDS"
read -r -a cost_args <<<"$COST_ARGS"
HEAPBENCH_RECORD_SITES=all build/heapbench record -o "$TMP/parser.hbt" -- build/workloads/parser "${cost_args[@]}" >"$TMP/rec.log" 2>&1 &&
    part "explain against a plain replay (parser $COST_ARGS, recorded with whole stacks)" $B/explaincost.sh "$TMP/parser.hbt" "$ROUNDS" ||
    echo "explain against replay: NOT MET (recording parser failed: $(tail -n 1 "$TMP/rec.log"))" >>"$TMP/verdicts"
echo; echo "## Verdicts"; echo
cat "$TMP/verdicts"
echo "took $(( $(date +%s) - start )) s"
bp_load after
! grep -q 'NOT MET' "$TMP/verdicts"
