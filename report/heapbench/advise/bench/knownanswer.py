#!/usr/bin/python3
"""knownanswer.py - advise's known-answer suite: programs whose right answer is built in, each advised on N times, the answers scored.

Always holds: every program is one of this folder's C files (built here with cc) or a program
definition of exec/programs; each has its goal, its advise options and a `right` predicate
over advice.json's recommendation, stated beside it with the interleaved `heapbench exec`
figures it rests on (docs/measurements/advise.md); every advise run uses --budget-clock cpu
and the budget given (default advise's own, 300); one line per run goes to DIR/runs.tsv
(program, run, load average before and after, verdict, answer, change, elapsed and budget,
the overrun past the budget by the larger of advise's own clock and the CPU seconds getrusage
counts for its process tree (every advise run here counts CPU seconds), within +10%, right, the
outcome (right, wrong, undecided, error), the screen's Kendall tau, the screen's mode, the
candidates run on the program, whether a "keep" had none (scored wrong), wall
seconds, and the CPU seconds of the advise process tree as getrusage counts them, which checks
advise's own clock) and the per-program
counts to DIR/summary.md, with the commit and the load average; nothing outside DIR is written.
A program of MEASURED (crossfree, whose fastest allocator changes with the load: jemalloc idle,
mimalloc or tcmalloc at load ~15) has no fixed answer: right after each advise run an interleaved
`heapbench exec -n EXEC_REPS` of every default allocator measures it at the load of the moment,
and the run is right when it recommends an allocator whose median throughput is at least NEAR_BEST
(75%) of the best one's (runs.tsv's exec_best: each allocator's median as a share of the best; its
exec_dir the results); an exec that fails scores the run an error.
An advise run that was interrupted (Ctrl-C, SIGINT or SIGTERM to advise or to this script) stops
the suite: advise is given STOP_WAIT_S to stop its runner (its own promise is 2 s), its run is not
scored, summary.md holds the finished runs, one line on stderr names it, and the exit code is 130.
heapbench is the CLI's own (heapbench.cli.binary: $HEAPBENCH_BIN, else this tree's build/heapbench).

Use: report/py report/heapbench/advise/bench/knownanswer.py [-n|--runs RUNS] [--budget CPU_S] [-p prog1,prog2] -o DIR
"""
import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

try:
    from heapbench import cli, results
    from heapbench.tune import measure
except ImportError:
    sys.exit("knownanswer: the package heapbench is not on PYTHONPATH; run it as report/py " + sys.argv[0])

HERE = os.path.dirname(os.path.abspath(__file__))
THROUGHPUT = "ops=throughput: ([0-9]+),higher"
FAST_ALLOCATORS = ("mimalloc", "tcmalloc", "tcmalloc-minimal")
SLOW_SETTINGS = ("glibc arena_max=1", "glibc arena_max=2")
NEAR_BEST = 0.75   # a measured program's right answer: an allocator with >= 75% of the best median throughput
EXEC_REPS = 5      # the interleaved exec's reps per allocator that judge a measured program's run
TRIM_SETTINGS = ("glibc trim_threshold=0", "refmalloc trim_threshold=0")   # python3-alloc's two cuts beyond 5%
STOP_WAIT_S = 10   # advise stops its runner within 2 s; the rest is a loaded machine's scheduling
INTERRUPTED = (130, 143, -signal.SIGINT, -signal.SIGTERM)   # advise's exit on Ctrl-C/SIGTERM, or death by either


class Interrupted(Exception):
    """An advise run ended by Ctrl-C or SIGTERM (its directory is resumable): the suite stops."""


def _is(verdict):
    """A predicate: the recommendation's verdict is verdict."""
    return lambda r, best=None: r.get("verdict") == verdict


def near_best(r, best):
    """Whether r recommends an allocator whose median is at least NEAR_BEST of the best one's in best
    ({allocator: median of the figure, higher better}, measured right after the run)."""
    top = max(best.values(), default=0)
    mine = best.get(r.get("allocator"))
    return r.get("verdict") == "recommend" and top > 0 and mine is not None and mine >= NEAR_BEST * top


# name: (program source or prog:NAME, its arguments, goal, extra advise options, right(recommendation), the right answer in words)
PROGRAMS = {
    "crossfree": ("crossfree.c", ["0.5"], "time", ["--metric", THROUGHPUT], near_best,
                  "recommend an allocator with >= 75% of the best throughput of an exec right after the run "
                  "(idle: jemalloc, 3-6x glibc's; load ~15: mimalloc or tcmalloc)"),
    "arenas": ("arenas.c", ["0.5"], "time", ["--metric", THROUGHPUT],
               lambda r, best=None: r.get("verdict") == "recommend" and r.get("allocator") in FAST_ALLOCATORS
               and r.get("label") not in SLOW_SETTINGS,
               "recommend tcmalloc(-minimal) or mimalloc (5-15x the throughput); never arena_max=1/2 (-22%)"),
    "fragment": ("fragment.c", [], "memory", [],
                 lambda r, best=None: r.get("verdict") == "recommend" and (r.get("figures") or {}).get("change", 0) <= -0.30,
                 "recommend a setting or allocator that cuts peak RSS by 30% or more (arena_max=1, jemalloc)"),
    "small": ("small.c", [], "time", [], _is("keep what you have"),
              "keep what you have (the allocator is < 5% of its time)"),
    "python3": ("prog:python3-alloc", [], "memory", [],
                lambda r, best=None: r.get("verdict") == "recommend" and r.get("label") in TRIM_SETTINGS,
                "recommend trim_threshold=0 (glibc -9.0%, refmalloc -7.1% peak RSS; every other allocator and glibc "
                "setting within 1% or larger: exec -n 7)"),
}
MEASURED = ("crossfree",)   # programs judged by an exec right after each run (of their --metric figure)


def build(name, source, out):
    """The command of a program: its binary built from source into out, or -w prog:NAME."""
    if source.startswith("prog:"):
        return ["-w", source]
    binary = os.path.join(out, "bin", name)
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    subprocess.run(["cc", "-O2", "-pthread", "-o", binary, os.path.join(HERE, source)], check=True)
    return ["--", binary] + PROGRAMS[name][1]


def load1():
    """The 1-minute load average."""
    return os.getloadavg()[0]


def children_cpu():
    """User + system CPU seconds of this process's waited-for children (advise and all it ran)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tested_on_program(advice):
    """How many candidates advice.json says were run on the program (confirm stage, not the baseline, with runs)."""
    return len({c["label"] for c in advice.get("candidates", [])
                if c.get("stage") == "confirm" and not c.get("baseline") and c.get("reps")})


def keep_untested(advice):
    """Whether the answer is "keep what you have" with no candidate run on the program (never allowed)."""
    return advice["recommendation"].get("verdict") == "keep what you have" and not tested_on_program(advice)


def advise_run(argv):
    """Runs advise; returns (exit code, stdout, stderr). On Ctrl-C or SIGTERM advise is told to stop
    (SIGINT: a second one during its stop is ignored) and given STOP_WAIT_S to stop its runner and save
    its state before it is killed; then the interruption goes on."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        out, err = proc.communicate()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        raise
    return proc.returncode, out, err


def medians(data):
    """{allocator: the median of the run's --metric figure} of a loaded exec's results (tune's measured
    points: ok runs only), for the allocators with the figure."""
    return {key[0]: point["metric"] for cell in measure.measure_cells(data, "judge", by_allocator=True).values()
            for key, point in cell.items() if point["metric"] is not None}


def measure_best(name, command, directory):
    """The interleaved exec that judges a MEASURED program's run: every default allocator, EXEC_REPS reps,
    into directory; returns ({allocator: median}, '') or ({}, why it failed)."""
    argv = [cli.binary(), "exec", "-n", str(EXEC_REPS), "-o", directory] + PROGRAMS[name][3] + command
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode in INTERRUPTED:
        raise Interrupted(f"the exec that judges {name} was interrupted (exit {proc.returncode})")
    if proc.returncode != 0:
        return {}, "exec: " + (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:110]
    try:
        best = medians(results.load(directory))
    except results.ResultsError as err:
        return {}, f"exec: {err}"[:120]
    return best, "" if best else "exec: no run printed the --metric figure"


def shares(best):
    """Each allocator's median as a share of the best, best first: 'jemalloc 1.00, mimalloc 0.53, ...'."""
    top = max(best.values(), default=0) or 1
    return ", ".join(f"{a} {v / top:.2f}" for a, v in sorted(best.items(), key=lambda kv: -kv[1]))


def overrun(advice, cpu):
    """How far past its budget an advise run went (0 when within), as a fraction: by the larger of
    advise's own clock (advice.json's elapsed_s) and cpu, the CPU seconds of its process tree by getrusage."""
    return max(0.0, max(advice["elapsed_s"], cpu) / advice["budget_s"] - 1)


def outcome(verdict, is_right):
    """right, undecided (an answer not given: never right, never a wrong answer given) or wrong."""
    return "right" if is_right else "undecided" if verdict == "undecided" else "wrong"


def one_run(name, command, budget, out):
    """Advises on one program once; returns the row of runs.tsv as a dict."""
    _, _, goal, extra, right, _ = PROGRAMS[name]
    directory = os.path.join(out, "runs", f"{name}-{time.strftime('%H%M%S')}-{os.getpid()}")
    argv = [cli.binary(), "advise", "--goal", goal, "--budget-clock", "cpu",
            "-o", directory] + (["--budget", str(budget)] if budget else []) + extra
    argv += command if command[0] == "-w" else command
    before, start, cpu0 = load1(), time.monotonic(), children_cpu()
    code, _, stderr = advise_run(argv)
    if code in INTERRUPTED:
        raise Interrupted(f"advise was interrupted on {name} (exit {code}; {directory} is resumable)")
    wall, cpu = time.monotonic() - start, children_cpu() - cpu0
    row = {"program": name, "exit": code, "load_before": f"{before:.1f}", "load_after": f"{load1():.1f}",
           "wall_s": f"{wall:.0f}", "cpu_s": f"{cpu:.0f}", "dir": directory}
    try:
        with open(os.path.join(directory, "advice.json"), encoding="utf-8") as f:
            advice = json.load(f)
    except (OSError, ValueError):
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        return dict(row, verdict="error", answer=last[:120], right=False, outcome="error", within=False)
    rec, best, why = advice["recommendation"], None, ""
    if name in MEASURED:
        row["exec_dir"] = directory + "-exec"
        best, why = measure_best(name, command, row["exec_dir"])
        row["exec_best"] = why or shares(best)
    is_right = not why and bool(right(rec, best)) and not keep_untested(advice)
    tau = re.search(r"Kendall tau ([+-][0-9.]+)", rec.get("note") or "")
    change = (rec.get("figures") or {}).get("change")
    return dict(row, verdict=rec["verdict"], answer=rec.get("label") or rec["verdict"],
                change="" if change is None else f"{change * 100:+.1f}%", elapsed=f"{advice['elapsed_s']:.0f}",
                budget=f"{advice['budget_s']:.0f}",
                overrun=f"{overrun(advice, cpu) * 100:.1f}%", within=overrun(advice, cpu) <= 0.10,
                right=is_right, outcome="error" if why else outcome(rec["verdict"], is_right),
                tau=tau.group(1) if tau else "", mode=advice.get("screen_mode") or "",
                tested=tested_on_program(advice), keep_untested=keep_untested(advice))


COLUMNS = ("program", "load_before", "load_after", "exit", "verdict", "answer", "change", "elapsed", "budget",
           "overrun", "within", "right", "outcome", "tau", "mode", "tested", "keep_untested", "wall_s", "cpu_s",
           "exec_best", "exec_dir", "dir")
SHOWN = tuple(c for c in COLUMNS if not c.endswith("dir"))   # a finished run's line on stdout


def summary(rows, out, budget):
    """DIR/summary.md: per program, right, undecided and wrong answers (an error counts as wrong), runs
    within budget, taus, load range."""
    commit = subprocess.run(["git", "-C", cli.ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    lines = [f"known-answer suite, commit {commit}, budget {budget or 300} CPU s (--budget-clock cpu)", "",
             "| program | right answer | n | right | undecided | wrong | within budget +10% | keep without program runs "
             "| load (1 min) | screen tau | answers |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in PROGRAMS:
        mine = [r for r in rows if r["program"] == name]
        if not mine:
            continue
        loads = [float(r["load_before"]) for r in mine] + [float(r["load_after"]) for r in mine]
        answers = {}
        for r in mine:
            answers[r["answer"]] = answers.get(r["answer"], 0) + 1
        counts = {"undecided": sum(r.get("outcome") == "undecided" for r in mine),
                  "wrong": sum(r.get("outcome") in ("wrong", "error") for r in mine)}
        lines.append(f"| {name} | {PROGRAMS[name][5]} | {len(mine)} | {sum(r['right'] for r in mine)} | "
                     f"{counts['undecided']} | {counts['wrong']} | "
                     f"{sum(bool(r['within']) for r in mine)} | {sum(bool(r.get('keep_untested')) for r in mine)} | "
                     f"{min(loads):.1f}-{max(loads):.1f} | "
                     f"{', '.join(r.get('tau') or '-' for r in mine)} | "
                     f"{'; '.join(f'{a} x{n}' for a, n in answers.items())} |")
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return lines


def main():
    """Runs the suite; prints the summary; exits 0 (the scores are the output, not a pass/fail)."""
    parser = argparse.ArgumentParser(description="advise's known-answer suite")
    parser.add_argument("-n", "--runs", dest="n", type=int, default=1, help="advise runs per program (1)")
    parser.add_argument("--budget", type=float, default=0, help="CPU s per advise run (advise's default: 300)")
    parser.add_argument("-p", "--programs", default=",".join(PROGRAMS), help="programs, comma-separated")
    parser.add_argument("-o", "--output", required=True, help="output directory")
    opts = parser.parse_args()
    names = opts.programs.split(",")
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown or opts.n < 1:
        parser.error(f"unknown program(s) {', '.join(unknown)}; valid: {', '.join(PROGRAMS)}" if unknown else "-n >= 1")
    os.makedirs(opts.output, exist_ok=True)
    commands = {n: build(n, PROGRAMS[n][0], opts.output) for n in names}
    rows, tsv = [], os.path.join(opts.output, "runs.tsv")
    try:
        with open(tsv, "a", encoding="utf-8") as f:
            f.write("\t".join(COLUMNS) + "\n")
            for _ in range(opts.n):
                for name in names:  # one run of each program per round: the load falls on all of them alike
                    row = one_run(name, commands[name], opts.budget, opts.output)
                    rows.append(row)
                    f.write("\t".join(str(row.get(c, "")) for c in COLUMNS) + "\n")
                    f.flush()
                    print("\t".join(str(row.get(c, "")) for c in SHOWN), flush=True)
    except (Interrupted, KeyboardInterrupt) as why:
        summary(rows, opts.output, opts.budget)
        what = str(why) if isinstance(why, Interrupted) else "interrupted"
        print(f"knownanswer: {what}; stopped: the {len(rows)} finished run(s) are in {tsv} and summary.md",
              file=sys.stderr)
        return 130
    print("\n".join(summary(rows, opts.output, opts.budget)))
    return 0


def on_signal(signum, frame):
    """SIGINT or SIGTERM stops the suite (also when started in the background, SIGINT ignored)."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("knownanswer: interrupted; the runs so far are in runs.tsv", file=sys.stderr)
        sys.exit(130)
