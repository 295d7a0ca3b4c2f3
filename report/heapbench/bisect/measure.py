"""measure.py - one commit built in its own directory, and one run of the program there measured by `heapbench exec`.

Always holds: a build runs `sh -c BUILD` with the commit's directory as its working directory,
its output kept in build.log there; a run is `heapbench exec -n 1 --warmup 0` into a results
directory of its own, started in the commit's directory (so `./prog` is that commit's program),
(with `--count-instructions`, valgrind's count into metric_instructions, when the bisect decides on
instructions), and gives the runs.csv row's numbers when its status is ok, else the status and reason; a runner
that cannot start or refuses its words (exit 2) raises MeasureError (the bisect stops, exit 2).
"""
import os
import subprocess
import sys

from heapbench import cli, results


class MeasureError(Exception):
    """The runner could not measure at all (message says what to do)."""


def build(tree, command, timeout, product=None):
    """(ok, last line of its output) of the build command in tree ('' command: nothing to build);
    product: a file (relative to tree) the build must make, else it failed."""
    ok, why = _build(tree, command, timeout)
    if ok and product and not os.path.isfile(os.path.join(tree, product)):
        return False, f"the build made no {product}"
    return ok, why


def _build(tree, command, timeout):
    """(ok, last line of its output) of the build command in tree."""
    if not command:
        return True, ""
    log = os.path.join(tree, "build.log")
    with open(log, "w", encoding="utf-8") as out:
        try:
            proc = subprocess.run(["sh", "-c", command], cwd=tree, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout, start_new_session=False)
        except subprocess.TimeoutExpired:
            return False, f"the build ran over {timeout:g} s"
    if proc.returncode == 0:
        return True, ""
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    return False, f"build exit {proc.returncode}: " + (lines[-1] if lines else "no output")


def exec_words(settings, out_dir, tree, counted=False):
    """The words of one run into out_dir of the commit whose files are in tree: `heapbench run` of the
    workload cell, else `heapbench exec` of the program; its instructions counted by valgrind when
    counted; the allocator library the commit's build made when --allocator names one."""
    if settings.get("workload"):
        words = ["run", "-w", settings["workload"]]
        words += ["-p", settings["params"]] if settings.get("params") else []
        words += ["-t", settings["threads"]] if settings.get("threads") else []
    else:
        words = ["exec", "-w", "bisect"]
    words += ["-n", "1", "--warmup", "0", "-o", out_dir, "-a", settings["allocator"]]
    if settings.get("library"):
        name, path = settings["library"]
        words += ["--allocator", f"{name}={os.path.join(os.path.abspath(tree), path)}"]
    if counted:
        words.append("--count-instructions")
    for m in settings["metric_regex"]:
        words += ["--metric", m]
    if settings.get("timeout"):
        words += ["--timeout", str(settings["timeout"])]
    return words + (["--"] + settings["command"] if not settings.get("workload") else [])


def run_once(tree, settings, out_dir, counted=False):
    """({column: number} of the ok row, '') or (None, 'status: reason') of one run in tree."""
    os.makedirs(os.path.dirname(out_dir), exist_ok=True)
    cmd = [cli.binary()] + exec_words(settings, out_dir, tree, counted)
    try:
        proc = subprocess.run(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=cli.run_env(), stdin=subprocess.DEVNULL)
    except OSError as err:
        raise MeasureError(f"cannot run {cmd[0]} ({err}); build heapbench with 'make'") from err
    if proc.returncode == 2 or not os.path.exists(os.path.join(out_dir, "runs.csv")):
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise MeasureError(f"'heapbench exec' could not run the program (exit {proc.returncode}): {last}")
    rows = results.load(out_dir)["runs"]
    if len(rows) > 1:
        raise MeasureError(f"the workload gave {len(rows)} cells, bisect measures one: give one param set (-p) and "
                           "one thread count (-t)")
    row = rows[0] if rows else {}
    if row.get("status") != "ok":
        return None, f"{row.get('status', 'no row')}: {row.get('reason') or 'no reason given'}"
    return {k: float(v) for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}, ""


def say(text):
    """One progress line on stderr."""
    print(f"bisect: {text}", file=sys.stderr, flush=True)
