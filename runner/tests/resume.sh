#!/usr/bin/env bash
# resume.sh - SIGINT in the middle of a run leaves valid files and meta.json interrupted=true,
# exit 130; --resume DIR then completes the matrix with no duplicate row; --shard 1/2 and 2/2
# cover the matrix exactly, with the full matrix's run numbers. A file the cells read (a trace, a
# --workload-bin program, an --allocator library) that changed since the run started stops --resume,
# named, before anything is measured; unchanged, the resume finishes the run.
source runner/tests/rtlib.bash

args=(-w thread-churn -t 1,2 -p '--ops=150000' -a glibc,jemalloc -n 3 --warmup 1)
"$HB" run "${args[@]}" -o "$RT_TMP/r" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do   # wait until some rows exist, then interrupt
    [ "$(cat "$RT_TMP/r/runs.csv" 2>/dev/null | wc -l)" -ge 3 ] && break
    sleep 0.05
done
kill -INT "$pid"
wait "$pid"; rc=$?
t_check "SIGINT exits 130" test "$rc" -eq 130
rt_check "interrupted run: valid files, part of the rows, meta interrupted" "$RT_TMP/r" '
assert meta["interrupted"] is True and meta["complete"] is False and meta["end"], meta
assert 2 <= len(runs) < 12, len(runs)
assert all(r["status"] == "ok" for r in runs)'
t_check "no half-written row" bash -c "tail -c 1 '$RT_TMP/r/runs.csv' | od -c | grep -q '\\\\n'"

out=$("$HB" run --resume "$RT_TMP/r" 2>/dev/null); rc=$?
t_check "resume exits 0 and names the same dir" test "$rc" -eq 0 -a "$(tail -n 1 <<<"$out")" = "results: $RT_TMP/r"
rt_check "resumed run: the complete set, no duplicates, complete=true" "$RT_TMP/r" '
assert len(runs) == 12, len(runs)
keys = [(r["allocator"], r["threads"], r["rep"]) for r in runs]
assert len(set(keys)) == 12, keys
assert sorted(r["run"] for r in runs) == list(range(1, 13))
assert meta["complete"] is True and meta["interrupted"] is False
assert len({r["run_id"] for r in runs}) == 1'
rt_check "each run's phases written once" "$RT_TMP/r" '
from collections import Counter
c = Counter((p["run"], p["phase"]) for p in d["phases"])
assert c and max(c.values()) == 1, c.most_common(3)'

qargs=(--quick -w thread-churn -t 1,2,4 -a glibc,jemalloc -n 1 --warmup 0)
"$HB" run "${qargs[@]}" -o "$RT_TMP/full" >/dev/null 2>&1
"$HB" run "${qargs[@]}" --shard 1/2 -o "$RT_TMP/s1" >/dev/null 2>&1
"$HB" run "${qargs[@]}" --shard 2/2 -o "$RT_TMP/s2" >/dev/null 2>&1
rt_check "shards 1/2 and 2/2 are disjoint and cover the full matrix with its run numbers" "$RT_TMP/full" '
key = lambda r: (r["run"], r["workload"], r["allocator"], r["threads"], r["params"], r["env"], r["rep"])
full = {key(r) for r in runs}
s1 = {key(r) for r in results.load(sys.argv[1] + "/../s1")["runs"]}
s2 = {key(r) for r in results.load(sys.argv[1] + "/../s2")["runs"]}
assert s1 and s2 and not (s1 & s2), (s1 & s2)
assert s1 | s2 == full, (len(s1), len(s2), len(full))
assert {(r[3], r[4]) for r in s1}.isdisjoint({(r[3], r[4]) for r in s2})  # a group stays whole in one shard'
# A directory of a heapbench older than allocstats.csv and latency.csv: neither file, and runs.csv's
# records column names neither. check finds it whole, and --resume finishes it (creating both).
"$HB" run -w thread-churn -t 1 -p '--ops=1000' -a glibc -n 2 --warmup 0 -o "$RT_TMP/old" >/dev/null 2>&1
rm -f "$RT_TMP/old/allocstats.csv" "$RT_TMP/old/latency.csv"
sed -i -e 's/ allocstats\.csv=[0-9]*//; s/ latency\.csv=[0-9]*//' -e '$d' "$RT_TMP/old/runs.csv"
out=$("$HB" check "$RT_TMP/old" 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then t_pass "check: a directory older than allocstats.csv and latency.csv is whole (exit 0)"
else t_fail "check: a directory older than allocstats.csv and latency.csv is whole" "exit $rc: $out"; fi
out=$("$HB" run --resume "$RT_TMP/old" 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then t_pass "--resume of that directory runs what is left (exit 0)"
else t_fail "--resume of that directory runs what is left" "exit $rc: $(tail -n 2 <<<"$out")"; fi
rt_check "... both runs are there, and the two files exist with their headers" "$RT_TMP/old" '
import os
assert sorted(r["run"] for r in runs) == [1, 2], [r["run"] for r in runs]
for f in ("allocstats.csv", "latency.csv"):
    assert open(os.path.join(sys.argv[1], f)).readline().startswith("schema,"), f'

# A directory written before a column of runs.csv was added (its last column dropped here, header and
# rows, its last row cut): --resume refuses it in one line naming the column (exit 2) and appends nothing.
"$HB" run -w thread-churn -t 1 -p '--ops=1000' -a glibc -n 2 --warmup 0 -o "$RT_TMP/cols" >/dev/null 2>&1
last=$(head -n 1 "$RT_TMP/cols/runs.csv" | awk -F, '{ print $NF }')
/usr/bin/python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))[:-1]
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(r[:-1] for r in rows)' "$RT_TMP/cols/runs.csv"
before=$(md5sum <"$RT_TMP/cols/runs.csv")
err=$("$HB" run --resume "$RT_TMP/cols" 2>&1 >/dev/null); rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "runs.csv was written by another heapbench version (this version adds $last)" <<<"$err" &&
    [ "$(md5sum <"$RT_TMP/cols/runs.csv")" = "$before" ]; then
    t_pass "--resume of a runs.csv without a newer column ($last): one line naming it, exit 2, nothing appended"
else t_fail "--resume of a runs.csv without a newer column" "exit $rc: $err"; fi

# Inputs: a run of a trace, a --workload-bin program and an --allocator library, its last row cut off
# (an interrupted run); each input changed in turn refuses --resume naming it, and writes nothing.
mkdir -p "$RT_TMP/in"
"$HB" record -o "$RT_TMP/in/swap.hbt" -- sort /etc/services >/dev/null 2>&1
"$HB" record -o "$RT_TMP/in/other.hbt" -- ls -lR /usr/share/doc/coreutils >/dev/null 2>&1
cp "$PWD/build/workloads/thread-churn" "$RT_TMP/in/wl"
lib=$(ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 2>/dev/null | head -n 1)
cp "$lib" "$RT_TMP/in/lib.so"
"$HB" run --quick -w "trace:$RT_TMP/in/swap.hbt,mywl" --workload-bin "mywl=$RT_TMP/in/wl" -a glibc,mine \
    --allocator "mine=$RT_TMP/in/lib.so" -n 2 --warmup 0 -o "$RT_TMP/inr" >/dev/null 2>&1
rt_check "meta.json records the sha256 of the trace, the --workload-bin program and both allocator libraries" "$RT_TMP/inr" '
import hashlib, os
ins = meta["inputs"]
kinds = sorted(v["kind"] for v in ins.values())
assert kinds == ["allocator", "allocator", "trace", "workload-bin"], ins
for path, v in ins.items():
    assert v["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest(), (path, v)'
sed -i '$d' "$RT_TMP/inr/runs.csv"
cp -a "$RT_TMP/inr" "$RT_TMP/inr.cut"
for what in "trace swap.hbt other.hbt" "workload-bin wl $lib" "allocator lib.so $(realpath /usr/lib/x86_64-linux-gnu/libz.so.1)"; do
    set -- $what
    cp "$RT_TMP/in/$2" "$RT_TMP/in/$2.keep"
    case "$3" in /*) cp "$3" "$RT_TMP/in/$2" ;; *) cp "$RT_TMP/in/$3" "$RT_TMP/in/$2" ;; esac
    err=$("$HB" run --resume "$RT_TMP/inr" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && grep -q "$1 $RT_TMP/in/$2 .*changed since the run started" <<<"$err" && cmp -s "$RT_TMP/inr/runs.csv" "$RT_TMP/inr.cut/runs.csv"; then
        t_pass "--resume with a changed $1: exit 2 naming it, nothing run"
    else
        t_fail "--resume with a changed $1: exit 2 naming it, nothing run" "exit $rc: $err"
    fi
    mv "$RT_TMP/in/$2.keep" "$RT_TMP/in/$2"
done
out=$("$HB" run --resume "$RT_TMP/inr" 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then t_pass "--resume with every input as it was finishes the run (exit 0)"
else t_fail "--resume with every input as it was finishes the run" "exit $rc: $(tail -n 2 <<<"$out")"; fi
rt_check "... and the directory is whole with every row" "$RT_TMP/inr" '
assert meta["complete"] is True and len(runs) == 8, (meta["complete"], len(runs))'
t_summary
