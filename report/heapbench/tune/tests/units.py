"""units.py - tune's unit tests (no runner needed): grid parsing, refusals, verification, aggregation, Pareto.

Always holds: prints one `PASS name` or `FAIL name: why` line per check and nothing else on
stdout (report/heapbench/tune/tests/run counts them); every check compares against values worked out by hand
from the fixture, never against tune's own output.
"""
import csv
import json
import os
import subprocess
import tempfile

from heapbench import cli, registry, results
from heapbench.tune import grid, knobs, measure, pareto, speed, tune, verify


def check(name, condition, why=""):
    """Prints the PASS/FAIL line of one check."""
    print(f"PASS {name}" if condition else f"FAIL {name}: {why}", flush=True)


def refused(name, family, spec, expect):
    """Checks that grid_parse refuses spec with a message containing expect."""
    try:
        grid.grid_parse(family, spec)
    except knobs.KnobError as err:
        check(name, expect in str(err), f"message {str(err)!r} lacks {expect!r}")
        return
    check(name, False, f"{spec!r} was accepted")


def _point(family, spec):
    """(point, its environment) of the point that sets every knob of spec to its first value."""
    point = tuple((k, v[0]) for k, v in grid.grid_parse(family, spec))
    return point, knobs.knobs_env(family, point)


def verdict(family, library, spec):
    """verify_point of _point(family, spec) for the allocator family at library."""
    return verify.verify_point(verify.VerifyTarget(family, library, family), *_point(family, spec))


def test_grid():
    """--grid parsing: names, canonical values, order, and the refusals."""
    g = grid.grid_parse("glibc", "tcache_count=0,7,64;arena_max=1,2,4")
    check("grid-parse", [(k.name, v) for k, v in g] == [("arena_max", ["1", "2", "4"]),
                                                         ("tcache_count", ["0", "7", "64"])], repr(g))
    g = grid.grid_parse("glibc", "glibc.malloc.mmap_threshold=1M,0x8000,1M")
    check("grid-canonical-values", g[0][1] == ["1048576", "32768"], repr(g[0][1]))
    g = grid.grid_parse("jemalloc", "tcache=off,true;dirty_decay_ms=-1")
    check("grid-jemalloc-bool-int", [v for _, v in g] == [["false", "true"], ["-1"]], repr(g))
    refused("grid-unknown-knob", "glibc", "arena_maxx=1", "valid: arena_max, arena_test, tcache_count")
    refused("grid-bad-value", "glibc", "tcache_count=abc", "not an integer in 0..")
    refused("grid-below-loader-min", "glibc", "arena_max=0", "not an integer in 1..")
    refused("grid-negative-size", "glibc", "top_pad=-5", "not an integer")
    refused("grid-bad-bool", "jemalloc", "tcache=maybe", "give true or false")
    refused("grid-bad-choice", "glibc", "hugetlb=3", "valid values are 0, 1, 2")
    refused("grid-no-equals", "glibc", "arena_max", "has no '='")
    refused("grid-twice", "glibc", "arena_max=1;glibc.malloc.arena_max=2", "twice")
    refused("grid-no-values", "glibc", "arena_max=", "lists no value")
    refused("grid-unknown-family", "tbb", "x=1", "are not catalogued")


def test_points():
    """The search's point lists: singles, full grid, combinations of the best values, budget."""
    g = grid.grid_parse("glibc", "arena_max=1,2;tcache_count=0,7,64;MALLOC_ARENA_MAX=2")
    singles = grid.grid_singles(g)
    check("singles", [grid.grid_label(p) for p in singles] ==
          ["default", "arena_max=1", "tcache_count=0", "MALLOC_ARENA_MAX=2", "arena_max=2", "tcache_count=7",
           "tcache_count=64"], repr([grid.grid_label(p) for p in singles]))
    check("full", len(grid.grid_full(g)) == 1 + 2 * 3 * 1, str(len(grid.grid_full(g))))
    by = {grid.grid_label(p): p for p in singles}
    scores = {by["arena_max=1"]: (1.2, 0.5), by["arena_max=2"]: (1.05, 0.7), by["tcache_count=0"]: (1.5, 0.6),
              by["tcache_count=7"]: (1.0, 1.0), by["tcache_count=64"]: (0.9, 1.1), by["MALLOC_ARENA_MAX=2"]: (1.1, 0.7)}
    best = grid.grid_best(g, scores)
    names = [(k.name, v) for k, v in best]
    check("best-values", names == [("arena_max", ["1"]), ("tcache_count", ["64", "0"]),
                                   ("MALLOC_ARENA_MAX", ["2"])], repr(names))
    combos = [grid.grid_label(p) for p in grid.grid_combos(best)]
    check("combos-no-alias", not any("arena_max=" in c and "MALLOC_ARENA_MAX" in c for c in combos), repr(combos))
    check("combos-pairs", combos[:5] == ["default", "tcache_count=64 MALLOC_ARENA_MAX=2", "tcache_count=0 MALLOC_ARENA_MAX=2",
                                         "arena_max=1 tcache_count=64", "arena_max=1 tcache_count=0"], repr(combos))
    check("combos-count", len(combos) == 1 + 4, repr(combos))  # the arena_max+alias triple is left out
    labels = lambda pts: [grid.grid_label(p) for p in pts]  # noqa: E731
    check("budget", labels(grid.grid_budget(singles, set(), 3)) == ["default", "arena_max=1", "tcache_count=0"])
    measured = {grid.grid_key(p) for p in singles[:3]}
    check("budget-remeasure-free", labels(grid.grid_budget(singles, measured, 4)) ==
          ["default", "arena_max=1", "tcache_count=0", "MALLOC_ARENA_MAX=2"], labels(grid.grid_budget(singles, measured, 4)))
    check("budget-none", len(grid.grid_budget(singles, measured, None)) == len(singles))


def test_env():
    """Settings into environment variables, per family."""
    point, _ = _point("glibc", "arena_max=2;tcache_count=32;MALLOC_ARENA_MAX=4")
    check("env-glibc", knobs.knobs_env_text("glibc", point) ==
          "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.tcache_count=32 MALLOC_ARENA_MAX=4",
          knobs.knobs_env_text("glibc", point))
    check("env-jemalloc", _point("jemalloc", "narenas=2;tcache=false")[1] == {"MALLOC_CONF": "narenas:2,tcache:false"})
    check("env-tcmalloc", _point("tcmalloc", "release_rate=5;aggressive_decommit=1")[1] ==
          {"TCMALLOC_RELEASE_RATE": "5", "TCMALLOC_AGGRESSIVE_DECOMMIT": "true"})
    check("env-scudo", _point("scudo", "zero_contents=1;quarantine_size_kb=256")[1] ==
          {"SCUDO_OPTIONS": "quarantine_size_kb=256:zero_contents=true"},
          _point("scudo", "zero_contents=1;quarantine_size_kb=256")[1])


# Each Scudo knob at a value other than its default, with what it needs beside it.
SCUDO_SPECS = ["release_to_os_interval_ms=0", "release_to_os_interval_ms=1000", "release_to_os_interval_ms=-1",
               "quarantine_size_kb=256;thread_local_quarantine_size_kb=64", "thread_local_quarantine_size_kb=1024",
               "dealloc_type_mismatch=true", "zero_contents=true"]


def _verify_settled(target, point, env, tries=4):
    """verify_point, asked again (as its own answer says to) while the probe's timing could not tell the
    release interval apart on a loaded machine; the last answer stands, so a wrong one still fails."""
    for _ in range(tries):
        ok, why = verify.verify_point(target, point, env)
        if "verify again" not in why:
            break
    return ok, why


def test_verify_scudo():
    """Scudo: each knob read back or seen acting when set, and refused when the environment lacks it."""
    library = registry.read_registry()["scudo"].library
    if not library:
        check("verify-scudo-installed", False, "Scudo is not installed; run make deps (libclang-rt-dev)")
        return
    target = verify.VerifyTarget("scudo", library, "scudo")
    for spec in SCUDO_SPECS:
        point, env = _point("scudo", spec)
        ok, why = _verify_settled(target, point, env)
        check(f"verify-scudo-applied {spec}", ok, why)
        ok, why = _verify_settled(target, point, {})
        check(f"verify-scudo-not-applied {spec}", not ok and "scudo" in why, why)
    ok, why = verdict("scudo", library, "quarantine_size_kb=256")
    check("verify-scudo-quarantine-alone", not ok and "needs thread_local_quarantine_size_kb" in why, why)
    ok, why = verdict("scudo", library, "release_to_os_interval_ms=10000")
    check("verify-scudo-interval-partly", ok and "only 'no release before it'" in why, why)


def test_verify():
    """Verification against the real allocators on this machine."""
    ok, why = verdict("glibc", None, "tcache_count=0;arena_max=2")
    check("verify-glibc-applied", ok, why)
    ok, why = verdict("glibc", None, "tcache_count=999999")
    check("verify-glibc-malloc-range", not ok and "above 65535" in why, why)
    ok, why = verdict("glibc", None, "tcache_max=2048")
    check("verify-glibc-tcache-max", not ok and "above 1032" in why, why)
    ok, why = verdict("glibc", None, "arena_max=2;MALLOC_ARENA_MAX=4")
    check("verify-glibc-alias-overridden", not ok and "overridden by GLIBC_TUNABLES" in why, why)
    ok, why = verdict("glibc", None, "MALLOC_ARENA_MAX=3")
    check("verify-glibc-alias-alone", ok, why)
    lib = "/usr/lib/x86_64-linux-gnu/"
    if os.path.exists(lib + "libtcmalloc.so.4"):
        ok, why = verdict("tcmalloc", lib + "libtcmalloc.so.4", "max_total_thread_cache_bytes=0")
        check("verify-tcmalloc-clamped", not ok and "524288" in why, why)
    if os.path.exists(lib + "libjemalloc.so.2"):
        ok, why = verdict("jemalloc", lib + "libjemalloc.so.2", "narenas=3;tcache=false")
        check("verify-jemalloc-applied", ok, why)
    if os.path.exists(lib + "libmimalloc.so.2"):
        ok, why = verdict("mimalloc", lib + "libmimalloc.so.2", "decommit_delay=100")
        check("verify-mimalloc-applied", ok, why)
    refmalloc = os.path.join(cli.ROOT, "build", "lib", "librefmalloc.so")
    if os.path.exists(refmalloc):
        ok, why = verify.verify_point(verify.VerifyTarget("refmalloc", refmalloc, "glibc"), *_point("glibc", "tcache_count=0"))
        check("verify-refmalloc-applied", ok, why)
        ok, why = verify.verify_point(verify.VerifyTarget("refmalloc", refmalloc, "glibc"),
                                      *_point("glibc", "tcache_count=999999"))
        check("verify-refmalloc-ignored", not ok and "ignored 999999" in why, why)
    ok, why = verdict("jemalloc", "/nonexistent/libjemalloc.so.2", "narenas=3")
    check("verify-jemalloc-not-loaded", not ok and "printed no stats" in why, why)


def write_fixture(directory):
    """A tiny results directory: 2 envs x 2 reps of one cell, one failed run, free-all phases."""
    with open(os.path.join(directory, "meta.json"), "w") as fh:
        json.dump({"schema": 1, "run_id": "fx"}, fh)
    runs = [("1", "", "ok", "1.0", "1000", "10"), ("2", "A=1", "ok", "2.0", "500", "20"),
            ("3", "", "ok", "3.0", "3000", "30"), ("4", "A=1", "ok", "4.0", "700", "40"),
            ("5", "A=1", "crashed", "", "", "")]
    with open(os.path.join(directory, "runs.csv"), "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["schema", "run", "workload", "threads", "params", "env", "status", "reason", "wall_s",
                      "maxrss_kb", "page_faults", "minflt"])
        for run, env, status, wall, rss, faults in runs:
            out.writerow(["1", run, "w", "1", "", env, status, "signal 11" if status != "ok" else "", wall, rss,
                          faults, "99"])
    with open(os.path.join(directory, "phases.csv"), "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["schema", "run", "phase", "rss_kb"])
        for run, rss in (("1", "100"), ("2", "50"), ("3", "300"), ("4", "70")):
            out.writerow(["1", run, "alloc", "999999"])
            out.writerow(["1", run, "free-all", rss])


def test_measure():
    """Aggregation of a results directory into measured points."""
    with tempfile.TemporaryDirectory() as tmp:
        write_fixture(tmp)
        cells = measure.measure_cells(results.load(tmp), "t1")
    check("measure-cells", list(cells) == [("w", 1, "")], repr(list(cells)))
    cell = cells.get(("w", 1, ""), {})
    base, new = cell.get(()), cell.get(("A=1",))
    check("measure-default", base and (base["time"], base["peak"], base["free"], base["faults"]) == (2.0, 2000, 200, 20),
          repr(base))
    check("measure-point", new and (new["time"], new["peak"], new["free"], new["reps_ok"]) == (3.0, 600, 60, 2),
          repr(new))
    check("measure-failed-kept-out", new and new["failed"] == ["crashed: signal 11"], repr(new and new["failed"]))


def test_measure_replay():
    """A replay point (trace:FILE) is measured by its replay: time = replay - self, peak = peak RSS - load RSS
    (the trace's loading, 5 s, and the replayer's baseline, 90000 KiB, left out)."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "meta.json"), "w") as fh:
            json.dump({"schema": 1, "run_id": "t"}, fh)
        with open(os.path.join(tmp, "runs.csv"), "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(["schema", "run", "workload", "threads", "params", "env", "status", "reason", "wall_s",
                          "maxrss_kb", "page_faults", "minflt"])
            for run, replay, peak in (("1", "0.6", "91000"), ("2", "0.8", "93000"), ("3", "0.7", "92000")):
                out.writerow(["1", run, "trace:/t/x.hbt", "1", "", "", "ok", "", str(5 + float(replay)), peak, "9", "9"])
        with open(os.path.join(tmp, "phases.csv"), "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(["schema", "run", "workload", "phase", "seconds", "rss_kb"])
            for run, replay in (("1", "0.6"), ("2", "0.8"), ("3", "0.7")):
                out.writerow(["1", run, "trace:/t/x.hbt", "load", "5", "90000"])
                out.writerow(["1", run, "trace:/t/x.hbt", "self", "0.2", "90010"])
                out.writerow(["1", run, "trace:/t/x.hbt", "replay", replay, "90500"])
        point = measure.measure_cells(results.load(tmp), "t1")[("trace:/t/x.hbt", 1, "")][()]
    check("measure-replay-judged", abs(point["time"] - 0.5) < 1e-9 and point["peak"] == 2000,
          repr((point["time"], point["peak"])))


def fixture_point(label, env, times, mems, tag="p1"):
    """A measured point as measure/tune make it (medians of the given samples)."""
    mid = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731  (odd-length fixtures)
    return {"label": label, "env": env, "tag": tag, "time": mid(times), "mem": mid(mems),
            "time_samples": times, "mem_samples": mems}


def test_pareto():
    """The front and the recommendations on fixtures."""
    d = fixture_point("default", "", [1.00, 1.01, 0.99, 1.02, 0.98], [100, 101, 99, 100, 100])
    fast = fixture_point("fast", "F=1", [0.70, 0.71, 0.69, 0.72, 0.68], [105, 104, 106, 105, 105])
    small = fixture_point("small", "S=1", [1.05, 1.06, 1.04, 1.05, 1.07], [50, 51, 49, 50, 50])
    tiny_slow = fixture_point("tiny-slow", "T=1", [2.0, 2.1, 1.9, 2.0, 2.0], [10, 10, 11, 10, 9])
    worse = fixture_point("worse", "W=1", [1.2, 1.2, 1.2, 1.2, 1.2], [120, 120, 120, 120, 120])
    points = [d, fast, small, tiny_slow, worse]
    base = pareto.pareto_defaults(points)
    check("defaults-by-run", base == {"p1": d}, repr(base))
    front = [p["label"] for p in pareto.pareto_front(points)]
    check("front", front == ["fast", "default", "small", "tiny-slow"], repr(front))
    rec = pareto.pareto_recommend(points, base, "time", 0.10, 0.02, 0.05)
    check("recommend-fastest", rec["line"] == "F=1" and rec["verdict"] == "IMPROVEMENT", repr(rec))
    rec = pareto.pareto_recommend(points, base, "mem", 0.10, 0.02, 0.05)
    check("recommend-smallest-within-time", rec["line"] == "S=1", repr(rec))
    rec = pareto.pareto_recommend([d, fixture_point("fast", "F=1", fast["time_samples"], [200] * 5)], base,
                                  "time", 0.10, 0.02, 0.05)
    check("recommend-memory-limit", rec["line"] == pareto.NO_GAIN and rec["label"] == "", repr(rec))
    noisy = fixture_point("noisy", "N=1", [0.9, 1.1, 0.95, 1.05, 0.97], [100] * 5)
    rec = pareto.pareto_recommend([d, noisy], base, "time", 0.10, 0.02, 0.05)
    check("recommend-not-significant", rec["line"] == pareto.NO_GAIN and rec["label"] == "noisy", repr(rec))
    combo = fixture_point("fast b=1", "F=1 B=1", [0.695, 0.705, 0.685, 0.715, 0.675], fast["mem_samples"])
    rec = pareto.pareto_recommend([d, combo, fast], base, "time", 0.10, 0.02, 0.05)
    check("recommend-fewest-knobs", rec["line"] == "F=1", repr(rec))
    other_run = fixture_point("fast", "F=1", fast["time_samples"], fast["mem_samples"], tag="p2")
    rec = pareto.pareto_recommend([d, other_run], base, "time", 0.10, 0.02, 0.05)
    check("recommend-same-run-only", rec["line"] == pareto.NO_GAIN, repr(rec))
    nan = float("nan")
    failed = [fixture_point(label, env, [nan] * 5, [nan] * 5) for label, env in (("default", ""), ("fast", "F=1"))]
    rec = pareto.pareto_recommend(failed, pareto.pareto_defaults(failed), "time", 0.10, 0.02, 0.05)
    check("recommend-every-run-failed-says-so", "every run failed" in rec["why"], repr(rec))
    rec = pareto.pareto_recommend(points, base, "time", 0.10, 0.02, 0.05)
    again = fixture_point("fast", "F=1", [0.71, 0.70, 0.73, 0.69, 0.72], fast["mem_samples"], tag="confirm")
    pareto.pareto_confirm(rec, dict(d, tag="confirm"), again, 0.02, 0.05)
    check("confirm-holds", rec["line"] == "F=1" and rec["confirm_verdict"] == "IMPROVEMENT", repr(rec))
    rec = pareto.pareto_recommend(points, base, "time", 0.10, 0.02, 0.05)
    pareto.pareto_confirm(rec, dict(d, tag="confirm"), dict(d, label="fast", env="F=1"), 0.02, 0.05)
    # the confirmation measured the default again: no change, but 5 reps of 2% spread cannot rule out
    # the 2% threshold (the interval reaches beyond it), so UNDECIDED rather than SAME
    check("confirm-fails", rec["line"] == pareto.NO_GAIN and rec["confirm_verdict"] == "UNDECIDED", repr(rec))
    rec = pareto.pareto_recommend(points, base, "time", 0.10, 0.02, 0.05)
    pareto.pareto_confirm(rec, dict(d, tag="confirm"), None, 0.02, 0.05)
    check("confirm-missing", rec["line"] == pareto.NO_GAIN and "independent re-run" in pareto.pareto_text(rec, 0.1),
          repr(rec))
    d2 = fixture_point("default", "", [0.5] * 5, [100] * 5, tag="p2")
    rec = pareto.pareto_recommend([d2, fast], {"p1": d, "p2": d2}, "time", 0.10, 0.02, 0.05)
    check("recommend-earlier-run-default", rec["line"] == "F=1" and abs(rec["change"] + 0.3) < 1e-9, repr(rec))
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "t.png")
        pareto.pareto_plot([("cell a", points), ("cell b", points[:2])], png, "peak RSS")
        with open(png, "rb") as fh:
            check("plot-png", fh.read(8) == b"\x89PNG\r\n\x1a\n")


# Frees 1000 blocks of argv[1] bytes and prints how many of them malloc kept cached (in use per
# mallinfo2: the tcache holds freed chunks as in use), then whether a 100 MiB block was mmapped.
GLIBC_PROBE = """
import ctypes, sys
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc.mallinfo2.restype = Info
ptrs = [0] * 1000
base = libc.mallinfo2().uordblks
for i in range(1000):
    ptrs[i] = libc.malloc(int(sys.argv[1]))
total = libc.mallinfo2().uordblks
for p in ptrs:
    libc.free(p)
cached = 1000 - (total - libc.mallinfo2().uordblks) / ((total - base) / 1000)
mmapped = libc.mallinfo2().hblks
libc.malloc(100 << 20)
print(round(cached), libc.mallinfo2().hblks - mmapped)
"""


def glibc_probe(tunables, size):
    """(blocks of size kept cached after free, mmapped chunks after a 100 MiB malloc) under GLIBC_TUNABLES."""
    env = dict(verify.verify_clean_env(), GLIBC_TUNABLES=tunables)
    out = subprocess.run(["/usr/bin/python3", "-c", GLIBC_PROBE, str(size)], env=env, capture_output=True,
                         text=True).stdout.split()
    return (int(out[0]), int(out[1])) if len(out) == 2 else (None, None)


def test_glibc_facts():
    """The limits knobs.py relies on, checked against this machine's glibc (not only its loader)."""
    t = "glibc.malloc."
    cached, _ = glibc_probe(t + "tcache_count=65535", 100)
    check("glibc-tcache_count-65535-applied", cached is not None and cached > 900, f"cached {cached}")
    cached, _ = glibc_probe(t + "tcache_count=65536", 100)
    check("glibc-tcache_count-65536-ignored", cached is not None and cached < 100, f"cached {cached}")
    cached, _ = glibc_probe(t + "tcache_count=65535:" + t + "tcache_max=64", 100)
    check("glibc-tcache_max-64-applied", cached is not None and cached < 100, f"cached {cached}")
    cached, _ = glibc_probe(t + "tcache_count=65535:" + t + "tcache_max=1500", 1400)
    check("glibc-tcache_max-1500-ignored", cached is not None and cached < 100, f"cached {cached}")
    _, mmapped = glibc_probe(t + "mmap_threshold=1073741824", 100)
    check("glibc-mmap_threshold-1G-applied", mmapped == 0, f"{mmapped} mmapped chunks")
    _, mmapped = glibc_probe("", 100)
    check("glibc-mmap-default", mmapped == 1, f"{mmapped} mmapped chunks")


def test_cli_params():
    """-p takes its argument literally, even when it starts with '-'."""
    opts, command = tune.tune_args(["-p", "--mode=loop", "--params", "--ops=5 --mode=batch", "--",
                                    "/bin/true", "-p"])
    check("cli-params-literal", opts.params == ["--mode=loop", "--ops=5 --mode=batch"] and command == ["/bin/true", "-p"],
          repr((opts.params, command)))


def test_cli_refusal():
    """heapbench.tune refuses bad knobs and values with exit 2 and one line naming the valid ones."""
    env = dict(os.environ, HEAPBENCH_BIN="/nonexistent/heapbench")
    a_file = tempfile.NamedTemporaryFile(prefix="hb-tune-out-")
    cases = [("cli-nothing-after-dashdash", ["-a", "glibc", "--"], "nothing after '--'"),
             ("cli-output-is-a-file", ["-o", a_file.name], "a file, not a directory"),("cli-unknown-knob", ["--grid", "arena=1"], "valid: arena_max"),
             ("cli-bad-value", ["--grid", "tcache_count=-1"], "tcache_count=-1"),
             ("cli-unknown-allocator", ["-a", "nosuch", "--grid", "arena_max=1"], "unknown allocator 'nosuch'"),
             ("cli-bad-budget", ["--budget", "0"], "--budget 0"),
             ("cli-both-modes", ["-w", "frag", "--", "/bin/true"], "not both")]
    cases += [(f"cli-{opt}-{value}-before-any-run", ["-w", "frag", f"--{opt}", value], f"--{opt} {value}: give a percentage")
              for opt in ("threshold", "within") for value in ("nan", "inf", "-1.0")]
    for name, args, expect in cases:
        proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.tune"] + args, env=env,
                              capture_output=True, text=True)
        lines = proc.stderr.strip().splitlines()
        check(name, proc.returncode == 2 and len(lines) == 1 and expect in lines[0],
              f"exit {proc.returncode}, stderr {proc.stderr.strip()!r}")
    a_file.close()


def _speed_point(label, env, wall, cpu, metric=None, higher=True):
    """A measured point of the speed tests: samples wall, cpu (lists), metric (list or None); tag 'r'."""
    record = {"label": label, "env": env, "tag": "r", "time": sorted(wall)[len(wall) // 2], "time_samples": wall,
              "cpu_samples": cpu, "metric_samples": metric or [], "metric_name": "ops" if metric else None,
              "metric_higher": higher}
    speed.speed_apply(record, "wall")
    return record


def test_speed():
    """The speed axis: auto's choice, 1/x for a higher-is-better figure, and wall time refused when flat."""
    flat = [0.40, 0.41, 0.40, 0.42, 0.41]
    base = _speed_point("default", "", flat, [0.30, 0.31, 0.30, 0.32, 0.31], [100.0, 101, 99, 102, 100])
    slower = _speed_point("x=1", "X=1", [0.41, 0.40, 0.42, 0.40, 0.41], [0.30, 0.31, 0.29, 0.31, 0.30],
                          [30.0, 31, 29, 32, 30])
    check("speed-auto-metric", speed.speed_resolve("auto", [base, slower]) == "metric")
    check("speed-auto-wall", speed.speed_resolve("auto", [{"metric_name": None}]) == "wall")
    try:
        speed.speed_resolve("metric", [{"metric_name": None}])
        check("speed-metric-without-figure", False, "accepted")
    except ValueError as err:
        check("speed-metric-without-figure", "--metric NAME=REGEX" in str(err), str(err))
    point = dict(slower)
    speed.speed_apply(point, "metric")
    check("speed-higher-is-inverted", abs(point["time"] - 1 / 30.0) < 1e-12 and point["wall"] == slower["time"],
          f"{point['time']} {point['wall']}")
    why = speed.speed_wall_flat([base, slower], {"r": base}, 0.02, 0.05)
    check("speed-flat-wall-metric-moves", why is not None and "x=1 moved ops by -70.0% while wall time moved" in why, why)
    cpu_moves = _speed_point("y=1", "Y=1", [0.41, 0.40, 0.42, 0.40, 0.41], [0.60, 0.61, 0.62, 0.60, 0.63])
    why = speed.speed_wall_flat([base, cpu_moves], {"r": base}, 0.02, 0.05)
    check("speed-flat-wall-cpu-moves", why is not None and "y=1 moved CPU time by +" in why, why)
    wall_moves = _speed_point("z=1", "Z=1", [0.80, 0.81, 0.82, 0.80, 0.83], [0.60, 0.61, 0.62, 0.60, 0.63])
    check("speed-wall-moves-is-speed", speed.speed_wall_flat([base, wall_moves], {"r": base}, 0.02, 0.05) is None)
    noisy = _speed_point("v=1", "V=1", [0.40, 0.9, 0.45, 0.7, 0.62], [0.44, 0.45, 0.46, 0.44, 0.47])
    check("speed-noisy-wall-that-follows-is-not-flat",
          speed.speed_wall_flat([base, noisy], {"r": base}, 0.02, 0.05) is None)
    small = _speed_point("u=1", "U=1", [0.43, 0.44, 0.43, 0.45, 0.44], [0.60, 0.61, 0.62, 0.60, 0.63])
    why = speed.speed_wall_flat([base, small], {"r": base}, 0.02, 0.05)
    check("speed-small-significant-wall-is-flat", why is not None and "u=1 moved CPU time" in why, why)
    same = _speed_point("w=1", "W=1", flat, [0.30, 0.31, 0.30, 0.32, 0.31])
    check("speed-nothing-moves-is-not-refused", speed.speed_wall_flat([base, same], {"r": base}, 0.02, 0.05) is None)


if __name__ == "__main__":
    for test in (test_grid, test_points, test_env, test_verify, test_verify_scudo, test_glibc_facts, test_measure, test_measure_replay,
                 test_pareto, test_speed, test_cli_params, test_cli_refusal):
        test()
