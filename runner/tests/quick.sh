#!/usr/bin/env bash
# quick.sh - a --quick run of thread-churn under glibc and jemalloc: every DATA.md column,
# sane values (maxrss > 0, minflt > 0), served_by right for each allocator, phases and RSS
# timeline present, meta.json complete, results/latest updated (and left alone by a run with -o
# outside results/), summary and closing line.
source runner/tests/rtlib.bash

q=$RT_TMP/root/results/q   # under the private root's results/, so results/latest follows it
mkdir -p "$RT_TMP/root/results"

out=$("$HB" run --quick -w thread-churn -a glibc,jemalloc -o "$q" 2>"$RT_TMP/err"); rc=$?
t_check "quick run exits 0" test "$rc" -eq 0
t_check "last stdout line names the results dir" test "$(tail -n 1 <<<"$out")" = "results: $q"
t_check "summary shows jemalloc's ratio to glibc" grep -Eq '^thread-churn .* jemalloc +2 +[0-9.]+ +[0-9.]+x$' <<<"$out"
t_check "progress went to stderr, one line per run (48 measured, 2 warm-ups)" grep -Eq '^\[[0-9]+/50\] thread-churn' "$RT_TMP/err"
t_check "one warm-up per allocator, of the workload's first cell only" \
    test "$(grep -c 'warm-up' "$RT_TMP/err") $(grep -Ec '^\[[12]/50\] thread-churn --mode=loop --ops=20000 t=1 (glibc|jemalloc) warm-up: ok' "$RT_TMP/err")" = "2 2"
t_check "results/latest points at the run" test "$(readlink -f $RT_TMP/root/results/latest)" = "$(readlink -f "$q")"
"$HB" run --quick -w thread-churn -t 1 -a glibc -n 1 --warmup 0 -o "$RT_TMP/elsewhere" >/dev/null 2>&1
t_check "a run with -o outside results/ leaves results/latest alone" \
    test "$(readlink -f $RT_TMP/root/results/latest)" = "$(readlink -f "$q")"

# The header as docs/DATA.md defines it (its one definition, read by report/heapbench/tests/datamd.py).
cols=$(PYTHONPATH=report/heapbench/tests /usr/bin/python3 -m datamd runs.csv)
rt_check "runs.csv has every DATA.md column" "$q" '
cols = "'"$cols"'".split(",")
assert cols[:3] == ["schema", "run_id", "host"], cols
assert list(runs[0].keys()) == cols, list(runs[0].keys())'
rt_check "quick matrix: 6 threads x 2 param sets x 2 allocators x 2 reps, all ok" "$q" '
assert len(runs) == 48, len(runs)
assert all(r["status"] == "ok" for r in runs), [r["reason"] for r in runs if r["status"] != "ok"]
assert sorted(r["run"] for r in runs) == list(range(1, 49))
assert {r["threads"] for r in runs} == {1, 2, 4, 8, 16, 32}'
rt_check "sane values: wall, maxrss, minflt, task clock" "$q" '
for r in runs:
    assert r["wall_s"] > 0 and r["maxrss_kb"] > 0 and r["minflt"] > 0, r
    assert r["exit_code"] == 0 and r["signal"] is None
    assert r["task_clock_ms"] is not None and r["task_clock_ms"] > 0'
rt_check "served_by is libc for glibc and libjemalloc for jemalloc" "$q" '
import os
for r in runs:
    real = os.path.realpath(r["served_by"])
    if r["allocator"] == "glibc":
        assert os.path.basename(real).startswith("libc.so"), real
    else:
        assert real == os.path.realpath("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"), real'
rt_check "unavailable counters are empty with a reason in meta.json, never 0" "$q" '
for name, why in meta["counters"].items():
    vals = {r[name] for r in runs}
    if why == "ok":
        assert None not in vals, name
    else:
        assert vals == {None}, (name, vals)'
rt_check "every run has the machine state over it: load, runnable tasks, frequency; steal and iowait percentages" "$q" '
import os
for r in runs:
    assert r["load1"] is not None and r["others_runnable"] is not None and r["others_runnable"] >= 0, r
    assert r["cpu_mhz"] is None or r["cpu_mhz"] > 0, r
    for c in ("steal_pct", "iowait_pct"):
        assert r[c] is None or 0 <= r[c] <= 100, (c, r[c])
m = meta["machine"]
assert len(m["load_start"]) == 3 and len(m["load_end"]) == 3 and m["others_runnable_start"] >= 0, m
assert 0 <= m["steal_pct"] <= 100 and 0 <= m["iowait_pct"] <= 100 and m["cpu_mhz_source"], m
assert (m["cpu_mhz"] is None) == m["cpu_mhz_source"].startswith("unavailable"), m'
rt_check "every run has its phases and an RSS timeline" "$q" '
assert {p["run"] for p in d["phases"]} == {r["run"] for r in runs}
assert all(p["seconds"] >= 0 and p["rss_kb"] > 0 for p in d["phases"])
assert {s["run"] for s in d["rss"]} <= {r["run"] for r in runs} and len(d["rss"]) > 0'
rt_check "meta.json: complete, machine, allocators with version and sha256" "$q" '
assert meta["complete"] is True and meta["interrupted"] is False and meta["end"]
assert meta["cores"] >= 1 and meta["kernel"] and meta["glibc_version"] and meta["thp"]
assert meta["mem_total_kb"] > 0 and meta["virtualization"] in ("vm", "none", "unknown"), meta
je = meta["allocators"]["jemalloc"]
assert je["status"] == "found" and len(je["sha256"]) == 64 and je["version"], je
assert meta["reps"] == 2 and meta["quick"] is True and meta["cells"] == 24'
# --latency=sampled: latency.csv has rows for every ok run, no empty cell (but an empty params or env,
# as in runs.csv), quantiles in
# order and the clock in meta.json; the default run above (--latency off) wrote only the header.
rt_check "latency off by default: latency.csv holds only its header" "$q" '
assert d["latency"] == [] and meta["latency"] == {"mode": "off"}, meta.get("latency")'
"$HB" run --quick --latency sampled -w thread-churn,bitmap-pool -a glibc,jemalloc -t 1,2 -n 1 -o "$RT_TMP/lat" \
    >/dev/null 2>"$RT_TMP/lat.err"
t_check "run --latency sampled exits 0" test $? -eq 0
rt_check "latency.csv: rows for every ok run, no empty cell, quantiles in order" "$RT_TMP/lat" '
lat = d["latency"]
assert all(r["status"] == "ok" for r in runs), [r["reason"] for r in runs]
assert {r["run"] for r in lat} == {r["run"] for r in runs}, "a run without latency rows"
assert {r["op"] for r in lat} == {"malloc", "free"}, {r["op"] for r in lat}
for r in lat:
    assert all(v is not None and v != "" for k, v in r.items() if k not in ("params", "env")), r
    assert 0 < r["p50"] <= r["p90"] <= r["p99"] <= r["p99.9"] <= r["p99.99"] <= r["max"], r
    assert r["samples"] == sum(int(e.split(":")[1]) for e in r["buckets"].split(",")), r
assert meta["latency"]["mode"] == "sampled" and meta["latency"]["clock_cost_ns"] > 0, meta["latency"]
assert meta["latency"]["clock_step_ns"] > 0 and all(r["clock_step_ns"] > 0 for r in lat), meta["latency"]'
rt_check "latency.csv: the runner's quantiles (C, wl_hist.c) equal heapbench.latency's from the buckets and step" "$RT_TMP/lat" '
from heapbench import latency
for r in d["latency"]:
    counts = latency.parse_buckets(r["buckets"])
    for name, q in latency.QUANTILES:
        assert abs(latency.quantile(counts, q, r["max"], r["clock_step_ns"]) - r[name]) < 1e-6 * max(1, r[name]), (name, r)'
rt_usage "run --latency bogus: exit 2, one line" run --latency bogus -w thread-churn

t_summary
