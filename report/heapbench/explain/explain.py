"""explain.py - `heapbench explain`: record a program once (or take a trace), replay it under each allocator up to one
moment, and say where its resident memory goes there and which call sites pin free memory (README.md).

usage: heapbench explain [-a A1,A2] [--at end|peak|N|-N] [-o DIR] [--sites all|sample|one] (-- CMD ARGS... | TRACE)

Always holds: the program is recorded only through `heapbench record` (whole stacks of every allocation unless --sites
says otherwise), the trace read only through `hbtrace --sites` and replayed only through hbreplay --explain, one
process per allocator with that allocator preloaded and nothing else; an allocator that is not installed is a usage
error, never skipped; every figure printed comes from the files those write (readers.py); Ctrl-C ends with one line
and exit 130; a failed step ends with one line naming it and exit 1.
"""
import os
import re
import signal
import subprocess
import sys

from heapbench import cli, layout, registry
from heapbench.explain import output, readers

PROG = "heapbench explain"


class ExplainStop(Exception):
    """A step failed; the message is one line saying which and what to do."""


def parse(argv):
    """(options, command) of the command line."""
    p = cli.ArgParser(prog=PROG, description="where a program's resident memory goes under each allocator, and "
                      "which call sites pin free memory")
    cli.add_option(p, "allocators", "allocators to explain (default: the registry's default ones that are installed)")
    cli.add_option(p, "output", "directory for the trace, the explanations, explain.html and the folded stacks "
                   "(default: results/explain/<trace name>)")
    p.add_argument("--at", default="end", metavar="MOMENT",
                   help="end (default), peak (most live requested + mapped bytes), N (before event N of the program's "
                   "order) or -N (before its last N events)")
    p.add_argument("--sites", default="all", choices=("all", "sample", "one"),
                   help="call stacks recorded: whole stacks of every allocation (default), of a sample, or the caller only")
    p.add_argument("--top", type=int, default=5, metavar="N", help="call sites shown per allocator (default 5)")
    p.add_argument("trace", nargs="?", help="a trace to explain instead of recording a command")
    opts, command = cli.parse_command_line(p, argv, "give the command to explain, or a trace file without '--'")
    if bool(command) == bool(opts.trace):
        p.error("give either -- CMD ARGS... (recorded once) or a TRACE file, not both or neither")
    if opts.top < 1:
        p.error("--top must be at least 1")
    if not re.fullmatch(r"end|peak|-?[1-9][0-9]*", opts.at):
        p.error(f"--at {opts.at}: give end, peak, N (before event N) or -N (before the last N events)")
    return opts, command


def choose_allocators(names):
    """[(name, library path)] of the allocators asked (or the registry's installed defaults); usage error on an unknown or missing one."""
    reg = registry.read_registry()
    if names is None:
        return [(n, a.library) for n, a in reg.items() if a.matrix == "default" and a.library is not None]
    out = []
    for n in cli.split_list(names):
        if n not in reg:
            cli.usage_exit(PROG, f"-a: unknown allocator '{n}'; the registry's are {', '.join(reg)}")
        if reg[n].library is None:
            cli.usage_exit(PROG, f"-a: allocator '{n}' is not installed or built ({reg[n].libraries}); install "
                           f"{reg[n].package} or run make")
        out.append((n, reg[n].library))
    return out


def run_step(argv, what, env=None, log=None):
    """Runs argv; raises ExplainStop with its last line of stderr when it fails, KeyboardInterrupt on Ctrl-C."""
    proc = subprocess.run(argv, stdout=log or subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode == 130 or proc.returncode == -signal.SIGINT:
        raise KeyboardInterrupt
    last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
    if proc.returncode == 2 and argv[0] == cli.binary():
        # heapbench refused the command (a static binary, a missing program...): its own line, exit 2
        cli.usage_exit(PROG, last.split(": ", 1)[-1])
    if proc.returncode != 0:
        raise ExplainStop(f"{what} failed ({last})")
    return proc.stdout


def record(command, out, sites):
    """Records the command into out/trace.hbt with the recorder's call sites; returns the trace's path."""
    trace = os.path.join(out, "trace.hbt")
    env = cli.run_env()
    env["HEAPBENCH_RECORD_SITES"] = sites
    with open(os.path.join(out, "record.log"), "w", encoding="utf-8") as log:
        run_step([cli.binary(), "record", "-o", trace, "--"] + list(command), "recording the command", env=env, log=log)
    return trace


def replay(trace, name, lib, at, out):
    """The Explanation of trace under one allocator (hbreplay --explain, the allocator alone preloaded)."""
    path = os.path.join(out, f"explain-{name}.tsv")
    env = cli.run_env()
    env.pop("LD_PRELOAD", None)
    if lib:
        env["LD_PRELOAD"] = lib
    run_step([layout.path("build/replay/hbreplay"), f"--explain={path}", f"--at={at}", f"--trace={trace}"],
             f"the replay under {name}", env=env)
    return readers.read_explanation(path)


def site_table(trace):
    """{id: frames} of the trace (empty when it has none: the explanations then say why)."""
    proc = subprocess.run([layout.path("build/replay/hbtrace"), "--sites", trace], capture_output=True, text=True)
    return readers.read_site_table(proc.stdout) if proc.returncode == 0 else {}


def default_output(trace, command):
    """results/explain/<name> beside the results location."""
    name = os.path.basename(command[0]) if command else os.path.splitext(os.path.basename(trace))[0]
    return os.path.join(layout.results_dir(), "explain", name)


def explain(opts, command):
    """Runs the steps; returns the exit code."""
    allocs = choose_allocators(opts.allocators)
    if not allocs:
        cli.usage_exit(PROG, "no allocator to explain: none of the registry's default ones is installed; give -a")
    out = opts.output or default_output(opts.trace, command)
    os.makedirs(out, exist_ok=True)
    if opts.trace and not os.path.isfile(opts.trace):
        cli.usage_exit(PROG, f"{opts.trace} is not a file; give a trace written by heapbench record, or -- CMD ARGS...")
    trace = opts.trace or record(command, out, opts.sites)
    sites = site_table(trace)
    results = []
    for name, lib in allocs:
        print(f"replaying under {name} up to {opts.at} ...", file=sys.stderr, flush=True)
        results.append((name, replay(trace, name, lib, opts.at, out)))
    print(output.text(results, sites, opts.top))
    written = output.write_files(results, sites, out)
    print("written: " + ", ".join(written))
    return 0


def main(argv):
    """Entry point; returns the exit code."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        opts, command = parse(argv)
        return explain(opts, command)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing more is written", file=sys.stderr)
        return 130
    except (ExplainStop, readers.ExplainError) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
