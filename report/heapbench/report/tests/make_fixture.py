"""make_fixture.py - writes a synthetic but realistic heapbench results directory (docs/DATA.md, schema 1).

Always holds: the output is deterministic for a given size (fixed seed), every CSV has the
schema-1 header of docs/DATA.md, and the small fixture contains every case the report must
show: ok/failed/timeout/crashed/skipped rows, a missing allocator, unavailable perf counters
(empty columns, reason in meta.json), thread-churn at several thread counts, frag /
churn-random / parser phases with live bytes, an RSS timeline and sizes.csv.

Usage: /usr/bin/python3 report/heapbench/report/tests/make_fixture.py OUTDIR [--big]
  --big  the size of a default matrix (~1000 runs, ~100k RSS samples) for the speed check.
"""
import argparse
import csv
import hashlib
import json
import os
import random
import sys

RUNS_COLUMNS = ("schema,run_id,host,run,workload,allocator,threads,params,env,rep,status,reason,exit_code,"
                "signal,wall_s,user_s,sys_s,maxrss_kb,minflt,majflt,nvcsw,nivcsw,served_by,task_clock_ms,"
                "page_faults,context_switches,cpu_migrations,cycles,instructions,cache_misses,branch_misses,"
                "dtlb_load_misses").split(",")
PHASES_COLUMNS = "schema,run_id,run,workload,allocator,threads,params,env,rep,phase,seconds,ops,live_bytes,rss_kb".split(",")
RSS_COLUMNS = "schema,run_id,run,t,rss_kb".split(",")
SIZES_COLUMNS = "schema,run_id,run,allocator,request,usable".split(",")

RUN_ID = "20261130-052500-fixture"
HOST = "bench-vm"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"

# name -> (library, time factor, rss factor, usable-size rounding)
ALLOCATORS = {
    "glibc": (LIBC, 1.00, 1.00, "glibc"),
    "jemalloc": ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", 0.82, 1.08, "jemalloc"),
    "mimalloc": ("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2", 0.74, 1.15, "mimalloc"),
    "tcmalloc": ("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4", 0.79, 1.22, "jemalloc"),
}
MISSING_ALLOCATOR = "tbbmalloc"  # in meta as missing; all its rows are skipped

MiB = 1024 * 1024

# workload -> (thread counts, param sets, glibc wall s, phases [(name, share of wall, ops, live bytes, rss MiB)])
SMALL_WORKLOADS = {
    "thread-churn": ([1, 2, 4, 8], ["--size=64", "--size=4096 --batch=1000"], 0.40,
                     [("churn", 0.95, 2_000_000, 0, 3.0)]),
    "frag": ([1], [""], 0.30,
             [("alloc", 0.40, 200_000, 200_000 * 1024, 199.0), ("free-half", 0.20, 100_000, 100_000 * 1024, 199.0),
              ("free-all", 0.20, 100_000, 0, 199.0), ("trim", 0.10, 1, 0, 2.0)]),
    "churn-random": ([1], ["", "--tunable=tcache0"], 0.50,
                     [("steady", 0.85, 5_000_000, int(10.3 * MiB), 19.0), ("free-all", 0.10, 40_000, 0, 19.0)]),
    "parser": ([1], ["--variant=malloc", "--variant=arena-reset"], 0.90,
               [("generate", 0.20, 100_000, 30 * MiB, 34.0), ("parse", 0.60, 1_190_000, 95 * MiB, 130.0),
                ("free", 0.15, 1_190_000, 0, 40.0)]),
    "sizes": ([1], [""], 0.05, [("sweep", 0.90, 2000, 0, 2.0)]),
}
BIG_EXTRA = {
    "cross-thread": ([2, 4, 8, 16], ["--size=8-2048"], 0.60, [("transfer", 0.95, 3_000_000, 0, 12.0)]),
    "list": ([1], ["--mode=malloc", "--mode=arena"], 0.25,
             [("build", 0.5, 2_000_000, 32 * MiB, 64.0), ("traverse", 0.2, 2_000_000, 32 * MiB, 64.0),
              ("free", 0.3, 2_000_000, 0, 64.0)]),
    "pool": ([1], ["--mode=malloc", "--mode=pool"], 0.20,
             [("alloc", 0.5, 1_000_000, 256 * 1_000_000, 270.0), ("free", 0.5, 1_000_000, 0, 270.0)]),
    "mmap-threshold": ([1], ["--size=204800"], 0.30, [("first", 0.3, 100, 0, 1.0), ("later", 0.6, 10_000, 0, 1.0)]),
    "realloc-grow": ([1], ["--growth=1.5", "--growth=2", "--growth=+4096"], 0.30, [("grow", 0.95, 500_000, 64 * MiB, 100.0)]),
    "calloc": ([1], ["--mode=calloc", "--mode=memset"], 0.20, [("alloc", 0.95, 64, 256 * MiB, 260.0)]),
}
CLASSIC_SIZES = [1, 8, 16, 17, 24, 25, 32, 48, 100, 128, 200, 512, 1000, 4096, 16384, 100000, 1000000]
UNAVAILABLE = ("cycles", "instructions", "cache_misses", "branch_misses", "dtlb_load_misses")


def fx_usable(style, request):
    """Usable size an allocator of the given rounding style returns for request (>= request)."""
    if style == "glibc":
        chunk = max(32, (request + 8 + 15) & ~15)
        return chunk - 8 if request < 128 * 1024 else ((request + 16 + 4095) & ~4095) - 16
    # size classes: 4 per power of two (jemalloc-like); mimalloc-like uses 8 per doubling
    step = 8 if style == "mimalloc" else 4
    size = 8
    while size < request:
        pow2 = 1 << max(3, (size.bit_length() - 1))
        size += max(8, pow2 // step)
    return size


def fx_sizes_requests():
    """The classic request list plus a dense sweep of 1..4096 and a log sweep up to 1e6."""
    dense = list(range(1, 257)) + list(range(264, 4097, 24))
    log = [int(4096 * 1.15 ** i) for i in range(1, 40) if 4096 * 1.15 ** i <= 1_000_000]
    return sorted(set(CLASSIC_SIZES + dense + log))


def fx_outcome(workload, allocator, threads, params, rep):
    """(status, reason, exit_code, signal) of one run; the small fixture's special cases are fixed."""
    if allocator == MISSING_ALLOCATOR:
        return ("skipped", "allocator missing: /usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2 "
                "(apt-get install libtbbmalloc2)", "", "")
    if workload == "parser" and allocator == "tcmalloc" and params == "--variant=arena-reset" and rep == 2:
        return ("failed", "LD_PRELOAD had no effect: malloc served by " + LIBC, 0, "")
    if workload == "thread-churn" and allocator == "glibc" and threads == 8 and params == "--size=64" and rep == 3:
        return ("timeout", "killed after 300 s (--timeout 300)", "", 9)
    if workload == "frag" and allocator == "mimalloc" and rep == 1:
        return ("crashed", "killed by signal 11 (SIGSEGV)", "", 11)
    return ("ok", "", 0, "")


def fx_runs(workloads, allocators, reps):
    """Yields (run number, workload, allocator, threads, params, rep) in interleaved order."""
    run = 0
    for workload, (threads_list, params_list, _, _) in workloads.items():
        for threads in threads_list:
            for params in params_list:
                for rep in range(1, reps + 1):
                    for allocator in allocators:
                        run += 1
                        yield run, workload, allocator, threads, params, rep


def fx_scaling(allocator, threads):
    """Wall-time multiplier for `threads` threads on 2 cores (glibc's arenas contend more)."""
    per_core = threads / min(threads, 2)
    contention = 1.0 + (0.35 if allocator == "glibc" else 0.06) * (threads - 1)
    return per_core * contention


def fx_write_csv(path, columns, rows):
    """Writes one results CSV with its header."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        writer.writerows(rows)


def fx_rss_timeline(run, wall, phases, rss_factor, interval, rng):
    """RSS samples of one run: a ramp to each phase's RSS level, with a little noise."""
    rows, t, level = [], 0.0, 1.5 * 1024
    for _, share, _, _, rss_mib in phases:
        end = t + share * wall
        target = rss_mib * 1024 * rss_factor
        while t < end:
            level += (target - level) * 0.35
            rows.append([1, RUN_ID, run, round(t, 4), int(level * rng.uniform(0.99, 1.01))])
            t += interval
    return rows


def fx_generate(out, big):
    """Generates the fixture into out (created if needed)."""
    rng = random.Random(5)
    workloads = dict(SMALL_WORKLOADS, **(BIG_EXTRA if big else {}))
    if big:
        workloads["thread-churn"] = ([1, 2, 4, 8, 16, 32], ["--size=64", "--size=64 --batch=1000", "--size=4096"], 0.40,
                                     SMALL_WORKLOADS["thread-churn"][3])
    reps = 5 if big else 3
    allocators = list(ALLOCATORS) + [MISSING_ALLOCATOR]
    interval = 0.02
    runs, phases, rss, sizes = [], [], [], []
    for run, workload, allocator, threads, params, rep in fx_runs(workloads, allocators, reps):
        status, reason, exit_code, signal = fx_outcome(workload, allocator, threads, params, rep)
        served = ALLOCATORS.get(allocator, ("", 1, 1, ""))[0]
        key = [workload, allocator, threads, params, "", rep]
        if status == "skipped":
            runs.append([1, RUN_ID, HOST, run] + key + [status, reason] + [""] * 11 + [""] * 9)
            continue
        lib, tfac, rfac, style = ALLOCATORS[allocator]
        _, _, base_wall, phase_spec = workloads[workload]
        variant = 1.0 + 0.4 * (params.count("arena") + params.count("4096") + params.count("tcache0"))
        wall = base_wall * variant * tfac * fx_scaling(allocator, threads) * rng.lognormvariate(0, 0.04)
        if status == "timeout":
            wall = 300.0
        peak_mib = max(p[4] for p in phase_spec) * rfac * (1 + 0.15 * (threads - 1) ** 0.5)
        maxrss = int(peak_mib * 1024 * rng.uniform(0.995, 1.005))
        minflt = int(maxrss / 4 * rng.uniform(1.0, 1.1))
        if status == "failed":
            served = LIBC
        cpu = wall * min(threads, 2) * 0.97
        runs.append([1, RUN_ID, HOST, run] + key + [status, reason, exit_code, signal, round(wall, 6),
                    round(cpu * 0.9, 6), round(cpu * 0.1, 6), maxrss, minflt, 0, threads * 3,
                    int(wall * 40 * threads), served, round(cpu * 1000, 3), minflt, int(wall * 40 * threads),
                    threads - 1] + [""] * len(UNAVAILABLE))
        if status in ("timeout", "crashed"):
            continue
        rss.extend(fx_rss_timeline(run, wall, phase_spec, rfac, interval, rng))
        for name, share, ops, live, rss_mib in phase_spec:
            rss_kb = int(rss_mib * 1024 * (rfac if live or rss_mib > 10 else 1.0))
            if name in ("free-all", "trim") and allocator != "glibc":
                rss_kb = int(rss_kb * (0.05 if allocator == "jemalloc" else 0.4))
            phases.append([1, RUN_ID, run] + key + [name, round(share * wall, 6), ops * threads, live, rss_kb])
        if workload == "sizes" and (big or rep == 1):  # the runner keeps every rep; the small fixture one
            sizes.extend([1, RUN_ID, run, allocator, r, fx_usable(style, r)] for r in fx_sizes_requests())
    os.makedirs(out, exist_ok=True)
    fx_write_csv(os.path.join(out, "runs.csv"), RUNS_COLUMNS, runs)
    fx_write_csv(os.path.join(out, "phases.csv"), PHASES_COLUMNS, phases)
    fx_write_csv(os.path.join(out, "rss.csv"), RSS_COLUMNS, rss)
    fx_write_csv(os.path.join(out, "sizes.csv"), SIZES_COLUMNS, sizes)
    cells = sum(len(t) * len(p) for t, p, _, _ in workloads.values()) * len(allocators)
    with open(os.path.join(out, "meta.json"), "w") as fh:
        json.dump(fx_meta(workloads, reps, cells), fh, indent=2)
        fh.write("\n")
    return len(runs), len(rss)


def fx_meta(workloads, reps, cells):
    """meta.json of the fixture: one missing allocator, hardware counters unavailable."""
    allocs = {name: {"status": "found", "path": lib if name != "glibc" else "-", "version": version,
                     "sha256": hashlib.sha256(name.encode()).hexdigest() if name != "glibc" else "",
                     "package": package, "tunables": tun}
              for (name, (lib, _, _, _)), (version, package, tun) in zip(ALLOCATORS.items(), [
                  ("2.36", "libc6", "glibc"), ("5.3.0-1", "libjemalloc2", "jemalloc"),
                  ("2.0.9+ds-2+b1", "libmimalloc2.0", "mimalloc"), ("2.10-2", "libgoogle-perftools4", "tcmalloc")])}
    allocs[MISSING_ALLOCATOR] = {"status": "missing", "path": "/usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2",
                                 "version": "", "sha256": "", "package": "libtbbmalloc2", "tunables": "tbb"}
    counters = {c: "ok" for c in ("task_clock_ms", "page_faults", "context_switches", "cpu_migrations")}
    counters.update({c: "unavailable: ENOENT (no hardware counters on this machine)" for c in UNAVAILABLE})
    return {"schema": 1, "run_id": RUN_ID, "host": HOST, "cpu_model": "Intel Xeon Processor (Icelake)",
            "cores": 2, "kernel": "6.1.0-27-amd64", "thp": "madvise", "glibc_version": "2.36",
            "git_commit": "689e51e", "command_line": "build/heapbench run --fixture", "start": "2026-11-30T05:25:00Z",
            "end": "2026-11-30T05:31:40Z", "complete": True, "interrupted": False, "quick": False, "reps": reps,
            "warmup": 1, "timeout_s": 300, "interval_ms": 20, "order": "interleaved",
            "workloads": list(workloads), "envs": [""], "cells": cells, "allocators": allocs, "counters": counters}


def main():
    """Command line: OUTDIR [--big]; prints how many runs and RSS samples it wrote."""
    parser = argparse.ArgumentParser(description="write a synthetic heapbench results directory")
    parser.add_argument("outdir")
    parser.add_argument("--big", action="store_true", help="default-matrix size (~1000 runs, ~100k RSS samples)")
    args = parser.parse_args()
    runs, samples = fx_generate(args.outdir, args.big)
    print(f"{args.outdir}: {runs} runs, {samples} rss samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
