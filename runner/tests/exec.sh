#!/usr/bin/env bash
# exec.sh - heapbench exec: a command over two allocators (served_by from the probe, command
# line in params, no phases, --metric column and direction); a static binary is failed
# "preload had no effect" and never measured; a failing command's exit status is recorded;
# program definitions: setup in results/<id>/work/NAME, the command without a shell, cleanup,
# a server program with ready/driver steps is stopped after its driver, and a program whose
# requirement is missing is skipped with the apt-get line; prog:redis (linked with libjemalloc)
# is served by glibc in its glibc cell, since the C library is preloaded first there (as an
# exec command shows in its LD_PRELOAD).
source runner/tests/rtlib.bash

"$HB" exec -a glibc,jemalloc -n 2 --warmup 0 --metric 'items=made ([0-9]+) items,higher' -o "$RT_TMP/py" -- \
    python3 -c 'x = [str(i) * 3 for i in range(50000)]; print("made", len(x), "items")' >/dev/null 2>&1
rt_check "exec of python3: ok rows with the probe's served_by for each allocator" "$RT_TMP/py" '
import os
assert len(runs) == 4 and all(r["status"] == "ok" for r in runs), [(r["status"], r["reason"]) for r in runs]
for r in runs:
    real = os.path.realpath(r["served_by"])
    want = "libjemalloc.so.2" if r["allocator"] == "jemalloc" else "libc.so.6"
    assert real == os.path.realpath("/usr/lib/x86_64-linux-gnu/" + want), (r["allocator"], real)
assert {r["workload"] for r in runs} == {"python3"}
assert runs[0]["params"].startswith("python3 -c x = [str(i)")
assert d["phases"] == []'
rt_check "exec --metric: metric_items read from the output, direction in meta.json" "$RT_TMP/py" '
assert all(r["metric_items"] == 50000 for r in runs), [r["metric_items"] for r in runs]
assert meta["metrics"] == {"items": "higher"}'

for bad in nan inf -inf 1e400 1e101; do
    "$HB" exec -a glibc -n 2 --warmup 0 --metric 'speed=speed (\S+)' -o "$RT_TMP/nf$bad" -- \
        sh -c "echo speed $bad" >/dev/null 2>&1
    rt_check "exec --metric reading '$bad': each rep failed at once, the reason says not a finite number" \
        "$RT_TMP/nf$bad" '
assert len(runs) == 2 and all(r["status"] == "failed" for r in runs), [(r["status"], r["reason"]) for r in runs]
assert all(r["metric_speed"] is None for r in runs), [r["metric_speed"] for r in runs]
assert all("metric speed" in r["reason"] and ("not a finite number" in r["reason"] or "beyond" in r["reason"])
           and "'"'$bad'"'" in r["reason"]
           for r in runs), runs[0]["reason"]'
    t_check "check accepts the directory of a non-finite metric ('$bad')" "$HB" check "$RT_TMP/nf$bad"
done
"$HB" exec -a glibc -n 2 --warmup 0 --metric 'tp=Throughput = ([0-9]+),higher' -o "$RT_TMP/nomatch" -- \
    sh -c 'echo starting; echo "Throughput =  1454498"' >/dev/null 2>&1
rt_check "exec --metric matching no line: each rep failed, the reason quotes the regex and the last output line" \
    "$RT_TMP/nomatch" '
assert len(runs) == 2 and all(r["status"] == "failed" for r in runs), [(r["status"], r["reason"]) for r in runs]
why = runs[0]["reason"]
assert "metric tp" in why and "'"'"'Throughput = ([0-9]+)'"'"'" in why and "'"'"'Throughput =  1454498'"'"'" in why, why'
"$HB" exec -a glibc -n 1 --warmup 0 --metric 'tp=Throughput = ([0-9]+)' -o "$RT_TMP/silent" -- true >/dev/null 2>&1
rt_check "exec --metric on a program that printed nothing: failed, the reason says so" "$RT_TMP/silent" '
assert runs[0]["status"] == "failed" and "printed nothing" in runs[0]["reason"], runs[0]'
"$HB" exec -a glibc -n 1 --warmup 0 --metric 'tp=Throughput = (\S+)' -o "$RT_TMP/word" -- echo 'Throughput = fast' >/dev/null 2>&1
rt_check "exec --metric whose match is not a number: failed, quoting the match" "$RT_TMP/word" '
assert runs[0]["status"] == "failed" and "'"'"'fast'"'"' is not a number" in runs[0]["reason"], runs[0]'

printf '#include <stdlib.h>\nint main(void) { return malloc(16) == 0; }\n' > "$RT_TMP/static.c"
if gcc -static -o "$RT_TMP/static" "$RT_TMP/static.c" 2>/dev/null; then
    "$HB" exec -a glibc,jemalloc -n 1 --warmup 0 -o "$RT_TMP/st" -- "$RT_TMP/static" >/dev/null 2>&1
    rt_check "a static binary is failed 'preload had no effect' and not measured" "$RT_TMP/st" '
assert len(runs) == 2
assert all(r["status"] == "failed" and r["reason"] == "preload had no effect: statically linked" for r in runs), runs
assert all(r["wall_s"] is None for r in runs)'
else
    t_fail "a static binary is failed 'preload had no effect'" "gcc -static failed (libc6-dev missing? run make deps)"
fi

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/x" -- sh -c 'sh -c true; exit 7' >/dev/null 2>&1
rt_check "a failing command: status failed, its exit code kept, served_by from the parent only" "$RT_TMP/x" '
r = runs[0]
assert r["status"] == "failed" and r["exit_code"] == 7 and r["served_by"], r'

"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/pre" -- sh -c 'echo "PRELOAD=$LD_PRELOAD"' >/dev/null 2>&1
libc=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["allocators"]["glibc"]["path"])' "$RT_TMP/pre/meta.json")
t_check "exec under glibc: LD_PRELOAD is the registry's libc.so.6 path, then the probe" \
    grep -qx "PRELOAD=$libc $RT_TMP/root/build/lib/libhbprobe.so" "$RT_TMP/pre/logs/1.log"
t_check "glibc's path in meta.json is an absolute libc.so.6" test "${libc:0:1}${libc##*/}" = /libc.so.6

if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
    "$HB" run -w prog:redis -a glibc -n 1 --warmup 0 -o "$RT_TMP/redis" >/dev/null 2>&1
    rt_check "prog:redis under glibc (linked with libjemalloc): libc.so.6 preloaded first, ok, served by libc" "$RT_TMP/redis" '
import os
r = runs[0]
assert r["status"] == "ok", (r["status"], r["reason"])
assert os.path.realpath(r["served_by"]) == os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6"), r["served_by"]
assert r["metric_rps"] > 0, r["metric_rps"]'
else
    t_fail "prog:redis under glibc is served by libc" "redis-server/redis-benchmark missing (run make deps)"
fi

root=$(rt_fake_root "glibc | - | libc6 | glibc | glibc | default
jemalloc | /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 | libjemalloc2 | dpkg:libjemalloc2 | jemalloc | default" "")
mkdir -p "$root/exec/programs"
cat > "$root/exec/programs/echoer.prog" <<'PROG'
# a program definition for the test: setup writes the input, the command reads it
description = cat of a file made by setup
requires = cat
package = coreutils
setup = printf 'line one\nlen 12345\n' > input.txt
command = /bin/cat $HB_WORKDIR/input.txt
cleanup = touch cleaned
metric = len=len ([0-9]+)
PROG
cat > "$root/exec/programs/ghostprog.prog" <<'PROG'
requires = no-such-program-hb
package = hb-ghost-pkg
command = no-such-program-hb --run
PROG
cat > "$root/exec/programs/web.prog" <<'PROG'
# a server program: the runner waits for ready, runs the driver, then stops the server
requires = python3
command = python3 -m http.server $HB_PORT --bind 127.0.0.1 --directory $HB_WORKDIR
ready = python3 -c __import__('socket').create_connection(('127.0.0.1',$HB_PORT))
driver = python3 -c [__import__('urllib.request').request.urlopen('http://127.0.0.1:$HB_PORT/').read()for(_)in(range(20))];print('driver-done')
PROG
cat > "$root/exec/programs/optin.prog" <<'PROG'
description = a program only run when named
command = /bin/true
matrix = opt-in
PROG
shard=$("$root/build/heapbench" run --list-shard 1/1 -a glibc 2>&1)
grep -q 'prog:echoer' <<<"$shard" && ! grep -q 'prog:optin' <<<"$shard" &&
    t_pass "matrix = opt-in: the program is not in the default matrix (the others are)" ||
    t_fail "matrix = opt-in keeps the program out of the default matrix" "$shard"
grep -q 'prog:optin' <<<"$("$root/build/heapbench" run -w prog:optin --list-shard 1/1 -a glibc 2>&1)" &&
    t_pass "matrix = opt-in: the program runs when named (-w prog:optin)" || t_fail "an opt-in program runs when named" "not in -w prog:optin's cells"
printf 'command = /bin/true\nmatrix = sometimes\n' >"$root/exec/programs/badmatrix.prog"
err=$("$root/build/heapbench" list 2>&1 >/dev/null)
grep -q "badmatrix.*matrix = 'sometimes': want 'default' or 'opt-in'" <<<"$err" &&
    t_pass "matrix = anything else is refused, naming the file and the values" || t_fail "a bad matrix value is refused" "$err"
rm -f "$root/exec/programs/badmatrix.prog" "$root/exec/programs/optin.prog"
"$root/build/heapbench" run -w prog:web -a glibc -n 1 --warmup 0 -o "$RT_TMP/web" >/dev/null 2>&1
rt_check "a server program is measured under its driver and stopped: ok" "$RT_TMP/web" '
r = runs[0]
assert r["status"] == "ok" and r["exit_code"] == 0 and r["maxrss_kb"] > 0 and r["served_by"], r'
t_check "the driver's output is in the run's log" grep -q driver-done "$RT_TMP/web/logs/1.log"
t_check "no server left behind" bash -c "! pgrep -f 'http.server [0-9]+ --bind 127.0.0.1 --directory $RT_TMP' >/dev/null"
"$root/build/heapbench" run -w prog:echoer,prog:ghostprog -n 1 --warmup 0 -o "$RT_TMP/pg" >/dev/null 2>"$RT_TMP/pg.err"
rt_check "a program runs without a shell in its work dir, with its metric" "$RT_TMP/pg" '
import os
rows = [r for r in runs if r["workload"] == "prog:echoer"]
assert len(rows) == 2 and all(r["status"] == "ok" and r["metric_len"] == 12345 for r in rows), rows
assert os.path.exists(sys.argv[1] + "/work/echoer/cleaned"), "cleanup did not run"'
rt_check "a program whose requirement is missing is skipped with the apt-get line" "$RT_TMP/pg" '
rows = [r for r in runs if r["workload"] == "prog:ghostprog"]
assert len(rows) == 2 and all(r["status"] == "skipped" for r in rows), rows
assert rows[0]["reason"] == "skipped: no-such-program-hb not installed (apt-get install hb-ghost-pkg)", rows[0]["reason"]'
t_check "the skipped program is announced on stderr" grep -q 'skipping prog:ghostprog' "$RT_TMP/pg.err"
# -o a relative DIR: $HB_WORKDIR is still the work dir (the program runs inside it, so a relative one
# named DIR/work/NAME/DIR/work/NAME and the program found no input).
(cd "$RT_TMP" && "$root/build/heapbench" run -w prog:echoer -n 1 --warmup 0 -a glibc -o relpg >/dev/null 2>&1)
rt_check "a program definition under a relative -o finds its work dir's files" "$RT_TMP/relpg" '
assert [(r["status"], r["metric_len"]) for r in runs] == [("ok", 12345)], [(r["status"], r["reason"]) for r in runs]'
# A command whose cell name is a workload's is refused, never run as that workload's matrix with
# the workload's parameters instead of the command's (a silent substitution).
rt_usage "exec of a workload's binary by path is refused (its name is a workload's)" \
    exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/wlname" -- build/workloads/thread-churn --size=64
t_check "... and nothing was run" test ! -e "$RT_TMP/wlname/runs.csv"
rt_usage "exec -w naming a workload is refused" exec -a glibc -n 1 --warmup 0 -w frag -o "$RT_TMP/wlname2" -- true
"$HB" exec -a glibc -n 1 --warmup 0 -w tc -o "$RT_TMP/wlname3" -- build/workloads/thread-churn --threads=1 --ops=1000 \
    >/dev/null 2>&1
rt_check "the same binary under a name of its own runs the command as given" "$RT_TMP/wlname3" '
assert [(r["workload"], r["params"]) for r in runs] == [("tc", "build/workloads/thread-churn --threads=1 --ops=1000")], runs'
t_summary
