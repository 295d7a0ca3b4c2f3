#!/usr/bin/env bash
# logs.sh - a run's log is capped: 5 MB of output keeps its first and last
# 512 KiB with one line saying how much was cut; a metric on the last line is still read (the
# figures are taken before the cap); a small log stays whole.
source runner/tests/rtlib.bash

"$HB" exec -a glibc -n 1 --warmup 0 --metric 'score=score ([0-9]+)' -o "$RT_TMP/big" -- \
    sh -c 'head -c 5000000 /dev/zero | tr "\0" x; echo; echo score 42' >/dev/null 2>&1
log=$RT_TMP/big/logs/1.log
size=$(stat -c %s "$log")
t_check "a 5 MB log is cut to about 1 MiB (${size} bytes)" test "$size" -le $((1024 * 1024 + 200)) -a "$size" -gt $((1024 * 1024))
t_check "the log says how much was cut" grep -q '^\[heapbench: 3951[0-9]* bytes of this log were cut here; a log keeps its first and last 512 KiB\]$' "$log"
t_check "the head is kept" test "$(head -c 10 "$log")" = "xxxxxxxxxx"
t_check "the tail is kept" test "$(tail -n 1 "$log")" = "score 42"
rt_check "the metric of the last line was read before the cap" "$RT_TMP/big" '
assert runs[0]["metric_score"] == 42, runs[0]'
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/small" -- sh -c 'echo hello' >/dev/null 2>&1
t_check "a small log stays whole" test "$(cat "$RT_TMP/small/logs/1.log")" = "hello"
t_summary
