#!/usr/bin/env bash
# doctor.sh - heapbench doctor: exit 0 on this machine, one line per finding with its level first,
# every source of noise it promises looked at, a warning that carries its remedy, the watch as
# long as asked, and one-line usage errors (exit 2).
source runner/tests/rtlib.bash

start=$(date +%s%N)
out=$("$HB" doctor --seconds 0.5 2>"$RT_TMP/err"); rc=$?
took_ms=$((($(date +%s%N) - start) / 1000000))
t_check "doctor exits 0 and writes nothing on stderr" test "$rc" -eq 0 -a ! -s "$RT_TMP/err"
t_check "every line starts with ok, warn or note" test -z "$(grep -Ev '^(ok|warn|note) +[a-z]+ ' <<<"$out")"
for what in load processes steal iowait vm governor thp aslr counters syscalls valgrind; do
    t_check "doctor looks at $what" grep -Eq "^(ok|warn|note) +$what " <<<"$out"
done
t_check "the load line gives the load average and the CPUs" grep -Eq '^(ok|warn) +load +load average [0-9.]+ [0-9.]+ [0-9.]+ on [0-9]+ CPUs' <<<"$out"
# a warning is only useful with what to do about it: each holds a ';' and a remedy after it
t_check "every warning says what to do" test -z "$(grep '^warn' <<<"$out" | grep -v '; ')"
t_check "the watch lasts the --seconds asked (0.5 s, under 30 s at any load)" test "$took_ms" -ge 500 -a "$took_ms" -lt 30000
rt_usage "doctor --seconds 0: exit 2, one line" doctor --seconds 0
rt_usage "doctor --seconds x: exit 2, one line" doctor --seconds x
rt_usage "doctor --seconds without a value: exit 2, one line" doctor --seconds
rt_usage "doctor with an unknown argument: exit 2, one line" doctor --bogus
t_check "doctor --help names every check" grep -q "governor and turbo, transparent huge pages, ASLR" <<<"$("$HB" doctor --help)"
t_summary
