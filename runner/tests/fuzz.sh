#!/usr/bin/env bash
# fuzz.sh - a short libFuzzer session of build/tests/fuzz-runner (runner/fuzz/runner_fuzz.c: the
# registry, LIST, .prog, --params/--env splitting, CSV rows, meta.json, the phase protocol, --metric,
# results directories through check/repair, a workload's --describe and trace files), seeded with
# the project's own files, after running each parser's worst-case input (runner/fuzz/worstcase.py)
# once. PASS when no crash, leak, hang or exit was found. FUZZ_SECONDS (default
# 20) sets its length; the long runs and their figures are in docs/measurements/fuzz-runner.md.
# Always holds: a finding is written to FUZZ_FINDINGS, never only to the temporary directory.
source runner/tests/rtlib.bash

fuzzer=$PWD/build/tests/fuzz-runner
secs=${FUZZ_SECONDS:-20}
if [ ! -x "$fuzzer" ]; then
    t_fail "fuzz" "$fuzzer is missing: make build/tests/fuzz-runner (needs clang)"
    t_summary; exit
fi
corpus=${FUZZ_CORPUS:-$RT_TMP/corpus} # FUZZ_CORPUS: a corpus kept between long runs
mkdir -p "$corpus"
seed() { # seed SELECTOR FILE...: one seed, the selector byte then the files joined by NUL bytes
    local sel=$1 name; shift
    name=$corpus/seed-$sel-$(basename "$1")
    printf "\\x$(printf %02x "$sel")" > "$name"
    local first=1
    for f in "$@"; do
        [ $first -eq 1 ] || printf '\0' >> "$name"
        first=0
        cat "$f" >> "$name"
    done
}
seed 0 allocators/registry.txt
seed 1 workloads/LIST
for p in exec/programs/*.prog; do seed 2 "$p"; done
printf '\x03--ops=1000 --size=64,X=1 GLIBC_TUNABLES=glibc.malloc.tcache_count=0;a' > "$corpus/seed-3"
b=results/baseline
[ -f $b/runs.csv ] && seed 4 $b/runs.csv
[ -f $b/meta.json ] && seed 5 $b/meta.json
printf '\x06served_by\t/lib/x86_64-linux-gnu/libc.so.6\nphase\tfill\t0.5\t100\t4096\t2000\nsize\t24\t24\nverify\tok\t-\n' \
    > "$corpus/seed-6"
printf '\x07rps=([0-9.]+) req/s,higher\nserved 1234.5 req/s\n' > "$corpus/seed-7"
"$HB" run -w sizes --quick -a glibc -n 1 --warmup 0 -o "$RT_TMP/r" >/dev/null 2>&1
seed 8 "$RT_TMP/r/runs.csv" "$RT_TMP/r/phases.csv" "$RT_TMP/r/rss.csv" "$RT_TMP/r/sizes.csv"
head -c 3000 "$corpus/seed-8-runs.csv" > "$corpus/seed-8-short"
sed -e 's/ allocstats\.csv=[0-9]*//; s/ latency\.csv=[0-9]*//' "$RT_TMP/r/runs.csv" > "$RT_TMP/old-runs.csv"
printf '\x01' > "$RT_TMP/absent" # an older directory: no allocstats.csv, no latency.csv
seed 8 "$RT_TMP/old-runs.csv" "$RT_TMP/r/phases.csv" "$RT_TMP/r/rss.csv" "$RT_TMP/r/sizes.csv" "$RT_TMP/absent" "$RT_TMP/absent"
{ printf '\x09'; build/workloads/thread-churn --describe; } > "$corpus/seed-9"
"$HB" record -o "$RT_TMP/sort.hbt" -- sort /etc/services >/dev/null 2>&1 && seed 10 "$RT_TMP/sort.hbt"
[ -f "$corpus/seed-10-sort.hbt" ] && head -c 700 "$corpus/seed-10-sort.hbt" > "$corpus/seed-10-cut"
# a trace with the program's own mappings (mmap, munmap events: format version 2)
"$HB" record -o "$RT_TMP/mapper.hbt" -- build/tests/replay-mapper 1 >/dev/null 2>&1 && seed 10 "$RT_TMP/mapper.hbt"

# a finding is kept where the test's temporary directory is not: FUZZ_FINDINGS (default build/fuzz-findings)
findings=${FUZZ_FINDINGS:-$PWD/build/fuzz-findings}
mkdir -p "$findings"

# each parser's worst-case input (runner/fuzz/worstcase.py) must finish: run once each under a
# generous -timeout (a hang is what fails, not a speed), then kept in the corpus as seeds
worst=$RT_TMP/worst
/usr/bin/python3 runner/fuzz/worstcase.py "$worst"
out=$(cd "$RT_TMP" && TMPDIR=$RT_TMP timeout 900 "$fuzzer" -timeout=60 -rss_limit_mb=2048 \
      -artifact_prefix="$findings/" "$worst"/* 2>&1); rc=$?
n=$(grep -c '^Executed' <<<"$out")
slowest=$(awk '/^Executed/ {n = split($2, p, "/"); print $4, "ms (" p[n] ")"}' <<<"$out" | sort -n | tail -n 1)
echo "# worst-case inputs: $n run, the slowest in $slowest"
if [ "$rc" -eq 0 ] && [ "$n" -eq "$(ls "$worst" | wc -l)" ] && [ "$n" -gt 0 ]; then
    t_pass "fuzz-runner on $n worst-case inputs: each finished inside -timeout=60"
else
    t_fail "fuzz-runner on the worst-case inputs" "exit $rc, $n run: $(grep -E 'ALARM|ERROR|SUMMARY|Running:' <<<"$out" | tail -n 3)"
fi
cp "$worst"/* "$corpus"/
out=$(cd "$RT_TMP" && TMPDIR=$RT_TMP timeout $((secs + 120)) "$fuzzer" -max_total_time="$secs" -timeout=60 \
      -artifact_prefix="$findings/" \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 "$corpus" 2>&1); rc=$?
echo "# $(grep DONE <<<"$out" | tail -n 1)"
if [ "$rc" -eq 0 ] && grep -q 'DONE' <<<"$out"; then
    t_pass "fuzz-runner for ${secs}s: no crash, leak, hang or exit"
else
    t_fail "fuzz-runner for ${secs}s" "exit $rc: $(grep -E 'ERROR|SUMMARY|Test unit written' <<<"$out" | head -n 3)"
fi
t_summary
