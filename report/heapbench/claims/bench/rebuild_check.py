#!/usr/bin/python3
"""rebuild_check.py - the independent checks of the list rows (article 000, -O2, instructions) and the pool rows (article 002, with and without pre-faulting), each beside the row it checks.

list: builds list_rebuild.c (this folder) at -O2 twice, the node count a constant and read at run
time (the article does not show which), counts each step's user-space instructions with callgrind,
prints the per-node breakdown and malloc / arena on build and in total, and the rows list/alloc and
list/total measured by check-claims' own cells. pool: builds pool_rebuild.c at -O0 (the article's)
and -O2, runs pool, malloc and warm (heap faulted in beforehand) interleaved -n times, and prints
malloc / pool and warm / pool in CPU time with their intervals beside the rows pool and pool/no-sbrk.
Each line says whether the rebuild and the row agree (intervals overlap) and, if not, whether the
row's judge would decide the same on the rebuild's figure.

Use: report/py report/heapbench/claims/bench/rebuild_check.py [list|pool] [-n REPS]   (default: both, 5)
Always holds: everything is built and run in a temporary directory that is removed; needs cc and
valgrind (callgrind); nothing under results/ is written; Ctrl-C stops with one line and exit 130.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from heapbench.claims import a000, a002, profile, rebuild
from heapbench.claims import verdict as V
from heapbench.claims.figures import instructions, secs_runs
from heapbench.claims.measure import measure

HERE = os.path.dirname(os.path.abspath(__file__))
NODES = 2000000
SIDES = ("pool", "malloc", "warm")


def cc(src, out, *flags):
    """Builds this folder's src into out with cc and flags; exits 1 with cc's message when it fails."""
    p = subprocess.run(["cc", *flags, "-o", out, os.path.join(HERE, src)], capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"rebuild_check: cc could not build {src} ({p.stderr.strip()}); install gcc (make deps)")


def callgrind_steps(exe, tmp, *args):
    """The list rebuild's steps (rebuild.list_steps) of one callgrind run of exe."""
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    incl = profile.inclusive(profile.annotate(out))[1]
    return rebuild.list_steps(incl, profile.inclusive(profile.annotate(out, inclusive=False))[1])


def row_list():
    """(build, total) malloc / single arena in user-space instructions from check-claims' own cells."""
    m, s = (measure(a000.LIST_INSTR[k], 1) for k in ("malloc", "single"))
    phases = ("build", "traverse", "free")
    return [None if None in (instructions(m, p), instructions(s, p)) else instructions(m, p) / instructions(s, p)
            for p in (phases[:1], phases)]


def agreement(reb, row, lo=None, hi=None):
    """One phrase: the rebuild and the row agree, or differ with or without the same verdict."""
    if rebuild.agrees(reb, row):
        return "agree (intervals overlap)"
    same = rebuild.same_verdict(reb, row, lo=lo, hi=hi)
    return "differ" + ("" if same is None else "; the row's judge decides the same on both" if same else
                       "; the row's judge decides differently on the rebuild's figure")


def check_list(tmp):
    """Prints the list rebuild's breakdown and ratios beside the rows'."""
    fixed, at_run = os.path.join(tmp, "list-fixed"), os.path.join(tmp, "list-run-time")
    cc("list_rebuild.c", fixed, "-O2")
    cc("list_rebuild.c", at_run, "-O2", "-DNODES_AT_RUN_TIME")
    forms = {"count a constant": callgrind_steps(fixed, tmp), "count read at run time":
             callgrind_steps(at_run, tmp, str(NODES))}
    print(f"## list (article 000): {NODES:,} nodes, cc -O2, user-space instructions (callgrind)\n")
    ratios = {}
    for name, steps in forms.items():
        if steps is None:
            sys.exit("rebuild_check: callgrind's listing lacks a step of the list rebuild; is valgrind installed?")
        ratios[name] = rebuild.list_ratios(steps)
        node = rebuild.per_node(steps, NODES)
        print(f"- rebuild, {name}: per node " + ", ".join(f"{k} {v:.1f}" for k, v in node.items()))
        r = ratios[name]
        print(f"  malloc / arena: build x{r['build']:.2f}, total x{r['total']:.2f} (the timed steps); with the first "
              f"printf counted on malloc's side: build x{r['build+print']:.2f}, total x{r['total+print']:.2f}")
    row = row_list()
    for i, (what, k) in enumerate((("build", 7), ("total", 8))):
        reb = rebuild.span(*(r[what] for r in ratios.values()))
        rw = V.exact(row[i])
        print(f"- {what}: rebuild x{V.show(reb)} (both counts), row list/{'alloc' if k == 7 else 'total'} "
              f"x{V.show(rw)}: {agreement(reb, rw, lo=V.half_effect(k))}")


def run_pool(exe, side):
    """(CPU seconds of the timed part, minor faults in it) of one run of the pool rebuild."""
    out = subprocess.run([exe, side], capture_output=True, text=True, check=True).stdout.split()
    return float(out[1]), int(out[2])


def check_pool(tmp, reps):
    """Prints the pool rebuild's interleaved CPU times and ratios beside the rows'."""
    exes = {o: os.path.join(tmp, f"pool-O{o}") for o in (0, 2)}
    for o, exe in exes.items():
        cc("pool_rebuild.c", exe, f"-O{o}")
    secs = {(o, s): [] for o in exes for s in SIDES}
    faults = {(o, s): [] for o in exes for s in SIDES}
    for _ in range(reps):
        for o, exe in exes.items():
            for s in SIDES:
                t, f = run_pool(exe, s)
                secs[(o, s)].append(t)
                faults[(o, s)].append(f)
    print(f"\n## pool (article 002): 1 M x 256 B, CPU time of the timed part (clock()), {reps} interleaved reps "
          f"(load average {os.getloadavg()[0]:.2f})\n")
    for o in exes:
        t = {s: V.of_values(secs[(o, s)]) for s in SIDES}
        f = {s: V.of_values(faults[(o, s)]) for s in SIDES}
        print(f"- -O{o}: " + ", ".join(f"{s} {V.show(t[s], ' ms', 1, 1e3)} ({V.show(f[s], '', 0)} faults)"
                                        for s in SIDES))
        print(f"  malloc / pool x{V.show(V.of_ratio(secs[(o, 'malloc')], secs[(o, 'pool')]))} (the article's "
              f"x{a002.ARTICLE:.2f} at -O0), warm / pool x{V.show(V.of_ratio(secs[(o, 'warm')], secs[(o, 'pool')]))}")
    by_id = {c["id"]: c for c in a002.CLAIMS}
    warm = V.of_ratio(secs[(2, "warm")], secs[(2, "pool")])
    for cid in ("pool/no-sbrk", "pool"):
        c = by_id[cid]
        measured, verdict = c["judge"]([measure(s, reps) for s in c["specs"]])
        print(f"- row {cid}: {measured}: {V.text(verdict)}")
    print(f"- pool/no-sbrk against the rebuild at -O2 (warm / pool x{V.show(warm)}): "
          + agreement(warm, _row_ratio(a002.WARM, a002.WARM_P, reps), hi=a002.ARTICLE))
    cold = V.of_ratio(secs[(2, "malloc")], secs[(2, "pool")])
    print(f"- pool (malloc's heap not faulted in) against the rebuild at -O2 (malloc / pool x{V.show(cold)}): "
          + agreement(cold, _row_ratio(a002.POOL, a002.POOL_P, reps)))


def _row_ratio(spec, params, reps):
    """A pool row's malloc / pool wall-time interval over the timed phases (its cells, measured once
    by check_pool: the cache answers)."""
    rows = measure(spec, reps)
    t = {k: secs_runs(rows, a002.TIMED, allocator="glibc", params=v) for k, v in params.items()}
    return V.of_ratio(t["malloc"], t["pool"])


def main(argv):
    """Parses the arguments, runs the chosen checks in a temporary directory."""
    ap = argparse.ArgumentParser(prog="rebuild_check.py", description=__doc__.splitlines()[0])
    ap.add_argument("which", nargs="?", choices=("list", "pool", "both"), default="both")
    ap.add_argument("-n", type=int, default=5, help="interleaved reps of the pool's runs and cells (default 5)")
    args = ap.parse_args(argv)
    if args.n < 2:
        ap.error("-n must be at least 2 (an interval needs two runs)")
    for tool in ("cc", "valgrind", "callgrind_annotate"):
        if not shutil.which(tool):
            sys.exit(f"rebuild_check: {tool} not found; install it (make deps)")
    print(f"rebuild_check: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        if args.which in ("list", "both"):
            check_list(tmp)
        if args.which in ("pool", "both"):
            check_pool(tmp, args.n)
    print(f"\nrebuild_check: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        sys.stderr.write("rebuild_check: interrupted\n")
        sys.exit(130)
    except (subprocess.CalledProcessError, ValueError, IndexError) as e:
        sys.exit(f"rebuild_check: a rebuilt program or valgrind failed ({e}); run it by hand to see why")
