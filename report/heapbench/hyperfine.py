"""hyperfine.py - exec's hyperfine cross-check: cross-checks a `heapbench exec` results directory with hyperfine.

Usage: PYTHONPATH=report /usr/bin/python3 -m heapbench.hyperfine RESULTS_DIR   (run by `heapbench exec --hyperfine`)

Rebuilds the measured command from meta.json (argv after `--`), each cell's environment set
from runs.csv and each allocator's LD_PRELOAD from meta.json (allocator library, then the
probe, as heapbench does; libc.so.6 then the probe for glibc), then runs hyperfine ONCE over all of
them: no shell (-N), one warm-up, as many runs as heapbench's reps, one parameter list
`{preload}` over the allocators, JSON export to RESULTS_DIR/hyperfine.json. Writes
RESULTS_DIR/hyperfine.csv:

    schema,run_id,workload,allocator,params,env,hyperfine_median_s,heapbench_median_s,diff_pct,flag

Always holds: only cells with at least one `ok` heapbench run are timed (a skipped or failed
cell, e.g. a static binary, is never timed as that allocator); diff_pct is
100 * (hyperfine - heapbench) / heapbench of the two medians of wall time; flag is `differs`
when |diff_pct| > 5, `failed` when hyperfine saw a non-zero exit, else `ok`. hyperfine.csv is
written to a temporary name and renamed. Exit 0 on success, 1 when hyperfine is missing or
fails, 2 on a usage error or a directory that is not a heapbench exec results directory.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys

from heapbench import cli, layout, results
from heapbench.median import median

HF_COLUMNS = ["schema", "run_id", "workload", "allocator", "params", "env",
              "hyperfine_median_s", "heapbench_median_s", "diff_pct", "flag"]
HF_LIMIT_PCT = 5.0
# A timed cell (exec runs one thread): results.cell_key over these fields, in the order hf_cells unpacks.
HF_KEY = ("workload", "params", "env", "allocator")


def hf_usage(message):
    """Prints one line saying what was wrong and what to do, and exits 2."""
    cli.usage_exit("hyperfine.py", message)


def hf_command(meta):
    """The measured command (list of words): meta.json's argv after `--`."""
    _, command = cli.split_command(meta.get("argv") or [])
    if meta.get("subcommand") != "exec" or not command:
        hf_usage("not the results of 'heapbench exec ... -- CMD' (meta.json has no exec command); "
                 "run heapbench exec --hyperfine -- CMD")
    return command


def hf_preload(meta, allocator, probe):
    """The LD_PRELOAD value heapbench used for allocator: its library then the probe (':'-joined);
    for glibc its path is libc.so.6, which heapbench preloads first in command cells too
    (runner/plan/cellenv.c), so that glibc serves a program linked with another allocator."""
    info = meta.get("allocators", {}).get(allocator, {})
    if not info.get("path"):
        return probe
    return f"{info['path']}:{probe}"


def hf_cells(data, probe):
    """The cells to time: {(workload, params, env): {allocator: (preload, heapbench median)}}."""
    walls = {}
    for row in data["runs"]:
        if row["status"] == "ok" and isinstance(row.get("wall_s"), (int, float)):
            walls.setdefault(results.cell_key(row, HF_KEY), []).append(row["wall_s"])
    cells = {}
    for (workload, params, env, allocator), values in sorted(walls.items()):
        preload = hf_preload(data["meta"], allocator, probe)
        if "," in preload:
            hf_usage(f"allocator {allocator}: library path {preload!r} has a comma, which hyperfine's -L "
                     "cannot carry; give it a path without one (--allocator NAME=/path)")
        cells.setdefault((workload, params, env), {})[allocator] = (preload, median(values))
    return cells


def hf_template(command, env):
    """hyperfine's command string for one environment set: env LD_PRELOAD={preload} K=V... CMD."""
    words = ["env", "LD_PRELOAD={preload}"] + env.split() + command
    return " ".join(shlex.quote(w) if w != "LD_PRELOAD={preload}" else w for w in words)


def hf_pin(meta):
    """Pins this process (and so hyperfine and the commands) to the CPUs heapbench used, if any."""
    spec = meta.get("pin")
    if not spec:
        return
    cpus = set()
    for part in str(spec).split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    os.sched_setaffinity(0, cpus)


def hf_run(templates, preloads, reps, json_path):
    """Runs hyperfine once over every template x preload; returns its parsed JSON export."""
    exe = shutil.which("hyperfine")
    if not exe:
        print("hyperfine.py: hyperfine is not installed; install it with: apt-get install hyperfine",
              file=sys.stderr)
        sys.exit(1)
    argv = [exe, "-N", "--warmup", "1", "--runs", str(max(reps, 2)), "--ignore-failure",
            "--export-json", json_path, "-L", "preload", ",".join(preloads)] + templates
    done = subprocess.run(argv, stdout=sys.stderr)  # keep heapbench's stdout for its own lines
    if done.returncode != 0 or not os.path.exists(json_path):
        print(f"hyperfine.py: hyperfine exited {done.returncode}; command: {shlex.join(argv)}", file=sys.stderr)
        sys.exit(1)
    with open(json_path) as fh:
        return json.load(fh)


def hf_rows(run_id, cells, templates, hf_json):
    """hyperfine.csv rows: each timed cell with both medians, their difference and its flag."""
    by_command = {r["command"]: r for r in hf_json.get("results", [])}
    rows = []
    for (workload, params, env), allocs in cells.items():
        for allocator, (preload, hb_median) in sorted(allocs.items()):
            result = by_command.get(templates[env].replace("{preload}", preload))
            if result is None:
                continue
            hf_median = result["median"]
            diff = 100.0 * (hf_median - hb_median) / hb_median if hb_median else float("inf")
            failed = any(code != 0 for code in result.get("exit_codes", []))
            flag = "failed" if failed else "differs" if abs(diff) > HF_LIMIT_PCT else "ok"
            rows.append([1, run_id, workload, allocator, params, env,
                         f"{hf_median:.6f}", f"{hb_median:.6f}", f"{diff:.2f}", flag])
    return rows


def main(args):
    """Times RESULTS_DIR's cells with hyperfine and writes hyperfine.json and hyperfine.csv."""
    if len(args) != 1 or args[0].startswith("-"):
        hf_usage("want exactly one argument, a results directory: hyperfine.py results/<run-id>")
    try:
        data = results.load(args[0])
    except results.ResultsError as err:
        hf_usage(str(err))
    meta = data["meta"]
    command = hf_command(meta)
    cells = hf_cells(data, layout.path("build/lib/libhbprobe.so"))
    out_csv = os.path.join(args[0], "hyperfine.csv")
    if not cells:
        results.write_csv(out_csv, HF_COLUMNS, [])
        print("hyperfine.py: no cell has an ok run; nothing timed (hyperfine.csv has only its header)",
              file=sys.stderr)
        return 0
    templates = {env: hf_template(command, env) for (_, _, env) in cells}
    preloads = sorted({p for allocs in cells.values() for p, _ in allocs.values()})
    hf_pin(meta)
    hf_json = hf_run(sorted(set(templates.values())), preloads, int(meta.get("reps") or 5),
                     os.path.join(args[0], "hyperfine.json"))
    rows = hf_rows(meta.get("run_id", ""), cells, templates, hf_json)
    results.write_csv(out_csv, HF_COLUMNS, rows)
    flagged = sum(1 for r in rows if r[-1] != "ok")
    print(f"hyperfine.py: {len(rows)} cells timed, {flagged} flagged (medians differ by more than "
          f"{HF_LIMIT_PCT:g}% or failed): {out_csv}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
