"""fixture.py - writes synthetic results directories (docs/DATA.md schema 1) for compare's tests.

Always holds: the files have exactly the runs.csv (and phases.csv) header of DATA.md, one row per (cell, rep)
with consecutive run numbers, and a meta.json that results.load() accepts; values come from
the caller (the tests decide the distributions, nothing here is a hard-coded result).
"""
import csv
import json
import os

RUNS_HEADER = ("schema,run_id,host,run,workload,allocator,threads,params,env,rep,status,reason,exit_code,"
               "signal,wall_s,user_s,sys_s,maxrss_kb,minflt,majflt,nvcsw,nivcsw,served_by,task_clock_ms,"
               "page_faults,context_switches,cpu_migrations,cycles,instructions,cache_misses,branch_misses,"
               "dtlb_load_misses").split(",")


def fixture_write(directory, cells, host="hostA", run_id=None, schema=1, shard=(1, 1), metrics=None, cpu_model="cpu0",
                  facts=None):
    """Writes DIR/meta.json and DIR/runs.csv.

    cells: {(workload, allocator, threads, params, env): {metric: [value per rep]}} (every
    metric list of a cell has the same length; rep i gets element i). order: list of
    (key, rep) giving run numbers (default: cells in order, reps in order). Returns the rows.
    """
    os.makedirs(directory, exist_ok=True)
    run_id = run_id or os.path.basename(directory.rstrip("/"))
    order = [(index, key, rep) for index, (key, metrics) in enumerate(cells.items())
             for rep in range(1, len(next(iter(metrics.values()))) + 1)]
    header = list(RUNS_HEADER) + sorted({m for c in cells.values() for m in c if m.startswith("metric_")})
    rows = []
    for number, (index, key, rep) in enumerate(order, start=1):
        if index % shard[1] != shard[0] - 1:
            continue
        workload, allocator, threads, params, env = key
        row = dict.fromkeys(header, "")
        row.update(schema=schema, run_id=run_id, host=host, run=number, workload=workload,
                   allocator=allocator, threads=threads, params=params, env=env, rep=rep,
                   status="ok", exit_code=0, served_by="/lib/x86_64-linux-gnu/libc.so.6")
        for metric, values in cells[key].items():
            row[metric] = repr(float(values[rep - 1])) if metric != "maxrss_kb" else int(values[rep - 1])
        rows.append(row)
    with open(os.path.join(directory, "runs.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    meta = {"schema": schema, "run_id": run_id, "host": host, "complete": True, "interrupted": False,
            "reps": max(r["rep"] for r in rows) if rows else 0, "cells": len(cells),
            "shard": f"{shard[0]}/{shard[1]}", "cpu_model": cpu_model,
            "shard_cells": sum(1 for i in range(len(cells)) if i % shard[1] == shard[0] - 1),
            "workloads": sorted({k[0] for k in cells}), "envs": sorted({k[4] for k in cells}),
            "allocators": {a: {"status": "found"} for a in sorted({k[1] for k in cells})},
            "metrics": metrics or {}}
    meta.update(facts or {})
    with open(os.path.join(directory, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    return rows


PHASES_HEADER = "schema,run_id,run,workload,allocator,threads,params,env,rep,phase,seconds,ops,live_bytes,rss_kb".split(",")


def fixture_phases(directory, rows, phases_of):
    """Writes DIR/phases.csv for runs.csv rows (as fixture_write returns them): phases_of(row) gives
    the run's phases as (phase, seconds, ops, live_bytes, rss_kb) tuples, in order."""
    with open(os.path.join(directory, "phases.csv"), "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(PHASES_HEADER)
        for row in rows:
            for phase, seconds, ops, live, rss in phases_of(row):
                writer.writerow([row["schema"], row["run_id"], row["run"], row["workload"], row["allocator"],
                                 row["threads"], row["params"], row["env"], row["rep"], phase, repr(float(seconds)),
                                 ops, live, rss])
