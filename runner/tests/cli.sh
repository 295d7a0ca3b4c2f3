#!/usr/bin/env bash
# cli.sh - heapbench's command line: every usage error exits 2 with one line, --help and
# --version work on every subcommand, list shows allocators and workloads with parameters.
source runner/tests/rtlib.bash

rt_usage "no subcommand" 
rt_usage "unknown subcommand" frobnicate
rt_usage "unknown option" run --bogus
rt_usage "list's --json given to run" run --json -w thread-churn
rt_usage "list's --json given to exec" exec --json -- true
rt_usage "list given a value to --json" list --json=yes
rt_usage "exec -w naming a cell with a newline" exec -w "$(printf 'a\nb')" -n 1 -- true
nl_prog="$RT_TMP/$(printf 'a\nb')" && cp /bin/true "$nl_prog"
rt_usage "exec of a program whose file name holds a newline, without -w" exec -n 1 -o "$RT_TMP/nl" -- "$nl_prog"
rt_usage "exec of a missing program whose path holds a newline: one line" exec -n 1 -- "$RT_TMP/$(printf 'no\nsuch')"
rt_usage "--commit naming no commit of a repository here" exec -n 1 --commit no-such-rev -- true
git init -q "$RT_TMP/repo" && git -C "$RT_TMP/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
(cd "$RT_TMP/repo" && "$HB" exec -n 1 --warmup 0 -a glibc --commit HEAD -o "$RT_TMP/commit" -- true >/dev/null 2>&1)
rt_check "exec --commit HEAD: meta.json's tested_commit is the resolved hash" "$RT_TMP/commit" "
assert meta['tested_commit'] == '$(git -C "$RT_TMP/repo" rev-parse HEAD)', meta.get('tested_commit')"
rt_usage "option missing its value" run -n
rt_usage "malformed number -n" run -n x
rt_usage "malformed number --timeout" run --timeout 1s
rt_usage "malformed thread count" run -t 1,zero
rt_usage "malformed --shard" run --shard 3/2
rt_usage "malformed --pin" run --pin a-b
rt_usage "malformed --env" run --env NOEQUALS
rt_usage "malformed --metric" run --metric 'bad name=x'
rt_usage "unknown allocator" run -a nosuch
rt_usage "unknown workload" run -w nosuch
rt_usage "allocator path missing" run --allocator bad=/nonexistent.so
rt_usage "allocator path not a shared object" run --allocator bad=/etc/passwd
rt_usage "unwritable output dir" run -w thread-churn -a glibc -o /proc/heapbench/out
rt_usage "exec without a command" exec
rt_usage "run given a stray argument" run stray
rt_usage "resume of a non-results dir" run --resume "$RT_TMP"

err=$("$HB" run -a nosuch 2>&1)
case $err in *"valid: glibc, jemalloc"*) t_pass "unknown allocator lists the valid names" ;;
             *) t_fail "unknown allocator lists the valid names" "$err" ;; esac
err=$("$HB" run -w nosuch 2>&1)
case $err in *"valid: thread-churn"*) t_pass "unknown workload lists the valid names" ;;
             *) t_fail "unknown workload lists the valid names" "$err" ;; esac

for sub in run exec list; do
    out=$("$HB" "$sub" --help); rc=$?
    if [ $rc -eq 0 ] && [[ $out == "usage: heapbench $sub"* ]]; then t_pass "$sub --help"; else t_fail "$sub --help" "exit $rc"; fi
done
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
t_check "--version: debian/changelog's version and the commit built from" \
    bash -c '"$1" --version | grep -Eqx "heapbench $2 \(commit ([0-9a-f]{40}(-dirty)?|unknown)\)"' _ "$HB" "$version"

list=$("$HB" list)
t_check "list shows glibc as found" grep -Eq '^  glibc +found +default +libc6' <<<"$list"
t_check "list shows jemalloc with its version and library" grep -Eq '^  jemalloc +found +default +libjemalloc2 +[0-9]' <<<"$list"
t_check "list shows teaching allocators as opt-in" grep -Eq '^  bump +(found|missing) +opt-in' <<<"$list"
t_check "list shows thread-churn's threads" grep -q 'threads: 1,2,4,8,16,32' <<<"$list"
t_check "list shows parameters with defaults" grep -Eq -- '--ops +default [0-9]+' <<<"$list"

# The Python subcommands: PYTHONPATH=ROOT/report /usr/bin/python3 -P -m heapbench.<sub> ARGS with HEAPBENCH_ROOT and HEAPBENCH_BIN.
root=$(rt_fake_root "glibc | - | libc6 | glibc | glibc | default" "")
mkdir -p "$root/report/heapbench/report"
printf 'import os, sys\nprint(os.environ["HEAPBENCH_ROOT"], os.environ["HEAPBENCH_BIN"], os.environ["PYTHONPATH"], sys.executable, *sys.argv)\n' \
    > "$root/report/heapbench/report/__main__.py"
out=$(cd "$RT_TMP" && "$root/build/heapbench" report some/dir --flag 2>&1)
t_check "report runs /usr/bin/python3 -m heapbench.report with PYTHONPATH=ROOT/report, its arguments and env" \
    test "$out" = "$root $root/build/heapbench $root/report /usr/bin/python3 $root/report/heapbench/report/__main__.py some/dir --flag"
HB=$root/build/heapbench rt_usage "a Python subcommand whose script is absent" compare a b

# The closing table cuts a long name after whole characters: stdout stays UTF-8 (the
# params column is 34 bytes wide and the 34th byte here is the first of an é).
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/utf8" -- /bin/echo "$(printf 'a%.0s' $(seq 23))ééééé" \
    >"$RT_TMP/utf8.out" 2>/dev/null
t_check "the summary table cuts a name between characters (stdout is UTF-8)" /usr/bin/python3 -c \
    'import sys; t = open(sys.argv[1], "rb").read().decode("utf-8"); assert "aaaaé" in t, t' "$RT_TMP/utf8.out"

# check of a path that is no results directory says so (not "cut while creating ... --resume")
rt_usage "check of a missing directory: exit 2, one line" check "$RT_TMP/no-such-dir"
err=$("$HB" check "$RT_TMP/no-such-dir" 2>&1)
grep -q "no such directory" <<<"$err" && ! grep -q "resume\|cut while" <<<"$err" &&
    t_pass "check of a missing directory says 'no such directory'" || t_fail "check of a missing directory says so" "$err"
mkdir "$RT_TMP/not-results"
out=$("$HB" check "$RT_TMP/not-results" 2>&1)
grep -q "not a heapbench results directory" <<<"$out" && ! grep -q "cut while" <<<"$out" &&
    t_pass "check of a directory no run wrote says it is not a results directory" || t_fail "check of a foreign directory" "$out"

# The closing table shows each workload name whole: trace cells under one directory differ only
# at the end of their names (make bench's three read 'trace:results/trac' when cut at 18).
for n in 1 2; do cp /bin/true "$RT_TMP/a-program-with-a-long-name-number-$n"; done
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/longname" -- "$RT_TMP/a-program-with-a-long-name-number-1" \
    >"$RT_TMP/longname.out" 2>/dev/null
t_check "the summary table shows a long workload name whole" grep -q '^a-program-with-a-long-name-number-1 ' "$RT_TMP/longname.out"

# The --latency sampled cost that run --help states is the measured one: every percentage it gives
# is in the dated record it names ("< 1% of the instructions" was once claimed where +6 to +9% was measured).
help=$("$HB" run --help | sed -n '/--latency MODE/,/latency.csv/p')
record=$(grep -o 'docs/measurements/[a-z-]*\.md' <<<"$help")
bad=""
[ -n "$record" ] && [ -f "$record" ] || bad+="the help names no record under docs/measurements/ ($record); "
for pct in $(grep -o '[0-9.]*%' <<<"$help"); do
    grep -qF -- "+$pct" "${record:-/dev/null}" 2>/dev/null || grep -qF -- "+${pct%\%}" "${record:-/dev/null}" 2>/dev/null ||
        bad+="$pct is not in $record; "
done
grep -q '< 1%' <<<"$help" && bad+="the help still claims < 1%; "
[ -z "$bad" ] && t_pass "run --help states the --latency sampled cost as measured in $record" ||
    t_fail "run --help states the --latency sampled cost as measured" "$bad"
# run -o DIR outside the results location never creates the results location (a test or a
# script writing into its own temporary directory leaves the user's results/ alone).
HEAPBENCH_RESULTS=$RT_TMP/nores "$HB" run -w thread-churn -a glibc -n 1 -p '--ops=1000' -o "$RT_TMP/own-out" >/dev/null 2>&1
if [ -f "$RT_TMP/own-out/meta.json" ] && [ ! -e "$RT_TMP/nores" ]; then
    t_pass "run -o outside the results location leaves it uncreated"
else
    t_fail "run -o outside the results location leaves it uncreated" "$(ls -d "$RT_TMP"/nores "$RT_TMP"/own-out/meta.json 2>&1 | tr '\n' ' ')"
fi
# run -o DIR creates DIR's missing parents (the docs' `run -o results/r42` on a tree with no results/ yet).
out=$("$HB" run -w thread-churn -a glibc -n 1 --warmup 0 -p '--ops=1000' -o "$RT_TMP/parents/of/out" 2>&1)
[ -f "$RT_TMP/parents/of/out/meta.json" ] && t_pass "run -o creates the directory's missing parents" ||
    t_fail "run -o creates the directory's missing parents" "$(tail -n 2 <<<"$out")"
# Output that cannot be written (a full disk: /dev/full) is one line and exit 2, never a silent 0;
# a reader that stops early (| head) is no error message.
"$HB" record -o "$RT_TMP/ls.hbt" -- ls / >/dev/null 2>&1
for args in "list" "list --json" "--version" "check $RT_TMP/parents/of/out" "trace $RT_TMP/ls.hbt"; do
    err=$("$HB" $args 2>&1 >/dev/full); rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "cannot write its output: No space left on device" <<<"$err" &&
        t_pass "heapbench $args into a full disk: one line, exit 2" || t_fail "heapbench $args into a full disk" "exit $rc: $err"
done
err=$("$HB" list --json 2>&1 >/dev/null | head -c 1 >/dev/null)
[ -z "$err" ] && t_pass "list --json | head: no message" || t_fail "list --json | head: no message" "$err"
t_summary
