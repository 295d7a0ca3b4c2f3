#!/usr/bin/env bash
# memory.sh - run --allocstats and --thp end to end on the server and frag workloads (quick sizes):
# allocstats.csv holds each run's allocator figures per phase end (jemalloc through mallctl,
# glibc through mallinfo2, empty values with a reason for tbbmalloc), rss.csv's anon_huge_kb is
# read every 10th periodic sample, the samples tagged at phase ends name the run's phases in order,
# --thp never gives runs.csv thp=never and no huge page at any phase end or sample although
# jemalloc is told MALLOC_CONF=thp:always, server's idle marks are in phases.csv in time order,
# the report draws the memory sections, and without --allocstats allocstats.csv has its header only.
source runner/tests/rtlib.bash

"$HB" run -w server,frag --quick -a glibc,jemalloc,tbbmalloc -n 1 --warmup 0 --allocstats --thp never \
    --env 'MALLOC_CONF=thp:always' -o "$RT_TMP/m" >/dev/null 2>"$RT_TMP/err"
t_check "run --allocstats --thp never exits 0" test $? -eq 0
rt_check "every run ok, thp in effect is never" "$RT_TMP/m" '
assert len(runs) == 6 and all(r["status"] == "ok" for r in runs), [(r["allocator"], r["reason"]) for r in runs]
assert {r["thp"] for r in runs} == {"never"}, {r["thp"] for r in runs}'
rt_check "allocstats.csv: each run, each phase end, through the allocator's own API" "$RT_TMP/m" '
stats = d["allocstats"]
phases = {(p["run"], p["phase"]) for p in d["phases"]}
assert {(s["run"], s["phase"]) for s in stats} == phases, "a phase end without allocator figures"
api = {r["allocator"]: {s["api"] for s in stats if s["run"] == r["run"] and s["api"] != "smaps_rollup"} for r in runs}
assert api == {"glibc": {"mallinfo2"}, "jemalloc": {"mallctl"}, "tbbmalloc": {"none"}}, api
for s in stats:
    if s["api"] == "none":
        assert s["value"] is None and s["reason"].startswith("no statistics API"), s
je = {s["stat"]: s["value"] for s in stats if s["allocator"] == "jemalloc" and s["workload"] == "frag" and s["phase"] == "alloc"}
live = next(p["live_bytes"] for p in d["phases"] if p["workload"] == "frag" and p["allocator"] == "jemalloc" and p["phase"] == "alloc")
assert live <= je["stats.allocated"] <= je["stats.active"] <= je["stats.resident"], (live, je)'
rt_check "--thp never: AnonHugePages 0 at every phase end and every sample read" "$RT_TMP/m" '
huge = [s["value"] for s in d["allocstats"] if s["stat"] == "AnonHugePages"]
read = [s["anon_huge_kb"] for s in d["rss"] if s["anon_huge_kb"] is not None]
assert huge and set(huge) == {0}, huge
assert read and set(read) == {0}, read'
rt_check "rss.csv: anon_huge_kb read at every 10th periodic sample of a run (the last one may find the process gone), empty between and at tagged ones" "$RT_TMP/m" '
for run in {s["run"] for s in d["rss"]}:
    got = [s["anon_huge_kb"] is not None for s in d["rss"] if s["run"] == run and not s["phase"]]
    want = [i % 10 == 0 for i in range(len(got))]
    if want and want[-1] and not got[-1]:  # the process ended between its statm and smaps_rollup reads
        want[-1] = False
    assert got == want, (run, got)
    assert all(s["anon_huge_kb"] is None for s in d["rss"] if s["run"] == run and s["phase"])'
rt_check "rss.csv: the tagged samples name the run's phases, in their order, on a timeline in time order" "$RT_TMP/m" '
for run in {p["run"] for p in d["phases"]}:
    names = [p["phase"] for p in d["phases"] if p["run"] == run]
    rows = [s for s in d["rss"] if s["run"] == run]
    tags = [s["phase"] for s in rows if s["phase"]]
    it = iter(names)
    assert all(t in it for t in tags), (names, tags)
    assert all(a["t"] <= b["t"] for a, b in zip(rows, rows[1:])), run
assert any(s["phase"] for s in d["rss"]), "no tagged sample in 6 runs"'
rt_check "server: idle marks present, in time order, none early" "$RT_TMP/m" '
for run in {p["run"] for p in d["phases"] if p["workload"] == "server"}:
    ph = [p for p in d["phases"] if p["run"] == run]
    names = [p["phase"] for p in ph]
    assert names == ["c1-load", "c1-idle-0.1s", "c1-idle-0.2s", "free-all"], names
    t = 0.0
    for p, mark in zip(ph[1:3], (0.1, 0.2)):
        t += p["seconds"]
        assert t >= mark - 0.001, (names, t, mark)'

# The report of that run: the memory sections, a row per allocator in the table, both figures.
"$HB" report "$RT_TMP/m" -o "$RT_TMP/rep" >/dev/null 2>&1
t_check "report: memory timeline and breakdown drawn" test -s "$RT_TMP/rep/memory-timeline.png" -a -s "$RT_TMP/rep/memory-breakdown.png"
rows=$(awk '/Memory given back after load/ { on = 1 } on && /^\| server /' "$RT_TMP/rep/report.md" | awk -F'|' '{ print $4 }' | xargs)
t_check "report: memory table has glibc, jemalloc and tbbmalloc" test "$rows" = "glibc jemalloc tbbmalloc"

"$HB" run -w frag --quick -a glibc -n 1 --warmup 0 -o "$RT_TMP/plain" >/dev/null 2>&1
rt_check "without --allocstats: allocstats.csv has its header only, thp says madvise or what the system gives" "$RT_TMP/plain" '
assert d["allocstats"] == [], len(d["allocstats"])
assert runs and runs[0]["thp"] in ("madvise", "always", "never"), runs[0]["thp"]'
rt_usage "--thp sometimes is a usage error" run -w frag --quick --thp sometimes
"$HB" run -w sizes --quick -a glibc -n 1 --warmup 0 --thp never,always --env 'A=1' --env 'A=2' \
    -o "$RT_TMP/axis" >/dev/null 2>&1
rt_check "--thp never,always is an axis: each env set runs once per mode, and the mode is in effect" "$RT_TMP/axis" '
got = sorted((r["env"], r["thp"]) for r in runs)
assert got == [("A=1 HEAPBENCH_THP=always", "always"), ("A=1 HEAPBENCH_THP=never", "never"),
               ("A=2 HEAPBENCH_THP=always", "always"), ("A=2 HEAPBENCH_THP=never", "never")], got'
rt_usage "--thp never,always with an env set that sets HEAPBENCH_THP is a usage error" \
    run -w sizes --quick --thp never,always --env HEAPBENCH_THP=never
rt_usage "exec --allocstats is a usage error" exec --allocstats -- /bin/true
t_summary
