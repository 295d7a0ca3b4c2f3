#!/usr/bin/env bash
# exitcodes.sh - the exit status tells the truth: 0 only when every
# measured run was ok; 1 when a run failed, crashed or timed out (the failed cells named on
# stderr, every row still written) or an allocator named with -a is missing; a missing
# allocator of the default matrix is a warning and skipped rows, not a failure; 2 for usage.
# The end-of-run table shows each cell's whole env on one line.
source runner/tests/rtlib.bash

root=$(rt_fake_root \
"glibc    | -                        | libc6     | glibc         | glibc | default
ghost    | /nonexistent/libghost.so | ghost-pkg | dpkg:ghost-pkg | none  | default" \
"thread-churn | 1 | --ops=2000 | --ops=2000 | the real one")
H=$root/build/heapbench

"$H" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/ok" -- true >/dev/null 2>&1; rc=$?
t_check "every run ok: exit 0" test "$rc" -eq 0
"$H" exec -a glibc -n 2 --warmup 0 -o "$RT_TMP/f" -- false >/dev/null 2>"$RT_TMP/err"; rc=$?
t_check "every run failed: exit 1" test "$rc" -eq 1
t_check "the failed cell is named on stderr" grep -q "failed: false .* glibc: 2 runs" "$RT_TMP/err"
rt_check "the failed rows are still written" "$RT_TMP/f" '
assert [r["status"] for r in runs] == ["failed", "failed"], runs'
"$H" exec -a glibc -n 1 --warmup 0 --timeout 0.2 -o "$RT_TMP/t" -- sleep 3 >/dev/null 2>&1; rc=$?
t_check "a timeout: exit 1" test "$rc" -eq 1
"$H" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/c" -- sh -c 'kill -SEGV $$' >/dev/null 2>&1; rc=$?
t_check "a crash: exit 1" test "$rc" -eq 1
"$H" run -w thread-churn -a glibc,ghost -n 1 --warmup 0 -o "$RT_TMP/named" >/dev/null 2>"$RT_TMP/err"; rc=$?
t_check "an allocator named with -a but missing: exit 1" test "$rc" -eq 1
t_check "... and it is named on stderr" grep -q "allocator ghost was asked for but is missing" "$RT_TMP/err"
"$H" run -w thread-churn -n 1 --warmup 0 -o "$RT_TMP/dflt" >/dev/null 2>"$RT_TMP/err"; rc=$?
t_check "a missing allocator of the default matrix: exit 0" test "$rc" -eq 0
rt_check "... its rows are skipped" "$RT_TMP/dflt" '
assert {r["allocator"]: r["status"] for r in runs} == {"glibc": "ok", "ghost": "skipped"}, runs'
rt_usage "a usage error exits 2 with one line" run --reps x
t_check "--help documents the exit status" bash -c "'$H' run --help | grep -q '^Exit status: 0 every measured run was ok'"

out=$("$H" run -w thread-churn -a glibc -n 1 --warmup 0 --env 'GLIBC_TUNABLES=glibc.malloc.tcache_count=0' \
      --env 'GLIBC_TUNABLES=glibc.malloc.tcache_count=7' --env $'X=a\nb' -o "$RT_TMP/env" 2>/dev/null)
t_check "the table shows each env whole" grep -q "tcache_count=7 " <<<"$out"
t_check "a newline in an env stays on its cell's line" grep -q "X=a?b .*glibc" <<<"$out"

# record and trace read their command lines through options.c, as run and exec do
rt_usage "record: an unknown option exits 2 with one line" record --bogus -- true
rt_usage "record: -w prog:NAME and a command together exit 2 (one of them is not recorded)" record -w prog:sqlite3 -- true
rt_usage "record: -w with two programs exits 2" record -w prog:a,prog:b
rt_usage "record: -o without its value exits 2" record -o
rt_usage "record: no command exits 2" record -o "$RT_TMP/none.hbt"
rt_usage "trace: two files exit 2" trace a b
rt_usage "trace: an unknown option exits 2" trace --bogus x
t_check "record --help and trace --help print their usage, exit 0" bash -c \
    "'$HB' record --help | grep -q '^usage: heapbench record' && '$HB' trace --help | grep -q '^usage: heapbench trace FILE'"
t_summary
