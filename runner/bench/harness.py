#!/usr/bin/python3
"""harness.py - measures the measuring harness itself: overhead, the runner's own RSS, repeatability.

Always holds: every figure comes from runs made by this script in one session, on the same
workload binary with the same arguments; A/B runs are interleaved (order alternated) so that
machine drift hits both sides alike. Nothing here is a pass/fail test: it prints the figures and
whether each of its targets was met; runner/bench/README.md records them with their date.

  PYTHONPATH=report /usr/bin/python3 runner/bench/harness.py [--pairs N] [--ops N] [--reps N] [--skip-rss]

(a) overhead: `heapbench run` (wall_s of runs.csv) vs `/usr/bin/time -v` (its elapsed time),
    plus CPU time and the workload's own phase time under both (in-process, independent of
    either timer), each with a paired Wilcoxon test (scipy) saying whether the difference is
    more than noise; target: medians within 2%.
(b) the runner's own peak RSS during a --quick run over every allocator: VmHWM of the heapbench
    process sampled from /proc, and /usr/bin/time's figure (which also covers the children, so
    it is an upper bound); target < 16 MiB.
(c) repeatability: three separate `heapbench run -n REPS` of one cell; spread of the median wall
    time (target < 5%) and of the median max RSS (target < 1%) across the three. Done for the
    thread-churn cell (CPU-bound, ~1.6 MB RSS) and for MEMORY_CELL (~64 MB), because a 1.6 MB
    process's RSS moves by whole pages of libc that the page cache holds or not.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import scipy.stats

from heapbench import cli, results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

HB = os.path.join(ROOT, "build", "heapbench")
WORKLOAD = "thread-churn"
WL_BIN = os.path.join(ROOT, "build", "workloads", WORKLOAD)
TIME = "/usr/bin/time"
MEMORY_CELL = ("list", "--alloc=malloc --nodes=2000000")  # ~64 MB live: RSS repeatability beyond a few pages


def die(msg):
    """Prints one usage/setup line and exits 2."""
    print(f"harness.py: {msg}", file=sys.stderr)
    sys.exit(2)


def hb_run(outdir, workload, params, reps):
    """Runs `heapbench run` on one glibc cell (1 thread) into outdir; returns the loaded results."""
    cmd = [HB, "run", "-w", workload, "-a", "glibc", "-t", "1", "-p", params, "-n", str(reps),
           "--warmup", "0" if reps == 1 else "1", "-o", outdir]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = results.load(outdir)
    bad = [r for r in res["runs"] if r["status"] != "ok"]
    if bad:
        die(f"{outdir}: run not ok ({bad[0]['reason']}); fix the runner or workload first")
    return res


def time_v(argv):
    """Runs argv under `/usr/bin/time -v`; returns (elapsed s, user+sys s, stdout text)."""
    p = subprocess.run([TIME, "-v", *argv], check=True, capture_output=True, text=True)
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    cpu = re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr)
    if not m or len(cpu) != 2:
        die(f"cannot parse /usr/bin/time -v output: {p.stderr[-300:]}")
    elapsed = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    return elapsed, float(cpu[0]) + float(cpu[1]), p.stdout


def phase_seconds(text):
    """Sum of the phase seconds in phase-protocol text (workload stdout when run standalone)."""
    return sum(float(line.split("\t")[2]) for line in text.splitlines() if line.startswith("phase\t"))


def spread(values):
    """(max - min) / min in percent."""
    return (max(values) - min(values)) / min(values) * 100


def verdict(ok):
    """The word printed after a target."""
    return "met" if ok else "NOT met"


def compare_line(label, unit, hb, tv, target):
    """Prints one heapbench-vs-time comparison of medians; target: the |difference| % to meet or None."""
    m_hb, m_tv = statistics.median(hb), statistics.median(tv)
    d = (m_hb / m_tv - 1) * 100
    goal = f" (target |d| < {target}%: {verdict(abs(d) < target)})" if target else ""
    print(f"    {label:<13} median: heapbench run {m_hb:.3f} {unit}, /usr/bin/time -v {m_tv:.3f} {unit} -> {d:+.2f}%{goal}")
    diffs = [a - b for a, b in zip(hb, tv)]
    if len(diffs) >= 6 and any(diffs):  # is the difference more than noise? paired, order-alternated
        p = scipy.stats.wilcoxon(hb, tv).pvalue
        print(f"    {'':<13} paired Wilcoxon p = {p:.3f} ({'a real difference' if p < 0.05 else 'not distinguishable from noise'} at 5%)")


def bench_overhead(tmp, params, pairs):
    """(a): interleaved pairs; prints medians of wall, CPU and phase time for both ways."""
    hb_wall, hb_cpu, hb_phase, tv_wall, tv_cpu, tv_phase = [], [], [], [], [], []
    argv = [WL_BIN, "--threads=1", *params.split()]
    for i in range(pairs):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            if side == 0:
                run = hb_run(os.path.join(tmp, f"ovh-{i}"), WORKLOAD, params, 1)
                hb_wall.append(run["runs"][0]["wall_s"])
                hb_cpu.append(run["runs"][0]["user_s"] + run["runs"][0]["sys_s"])
                hb_phase.append(sum(p["seconds"] for p in run["phases"]))
            else:
                elapsed, cpu, out = time_v(argv)
                tv_wall.append(elapsed)
                tv_cpu.append(cpu)
                tv_phase.append(phase_seconds(out))
    print(f"(a) overhead, {pairs} interleaved pairs of `{' '.join(os.path.relpath(a, ROOT) if a == WL_BIN else a for a in argv)}`")
    compare_line("wall", "s", hb_wall, tv_wall, 2)
    compare_line("user+sys", "s", hb_cpu, tv_cpu, None)
    compare_line("phase (own)", "s", hb_phase, tv_phase, None)
    print("    (/usr/bin/time resolves 10 ms; 'phase (own)' is the workload's own clock inside the process)")


def first_child(pid):
    """The pid of pid's first child (the command /usr/bin/time started), or None."""
    try:
        kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def vm_hwm(pid):
    """VmHWM (peak RSS, kB) of pid from /proc, 0 when it is gone."""
    try:
        m = re.search(r"VmHWM:\s+(\d+) kB", open(f"/proc/{pid}/status").read())
    except OSError:
        return 0
    return int(m.group(1)) if m else 0


def bench_runner_rss(tmp):
    """(b): peak RSS of the heapbench process itself during a --quick run over every allocator."""
    out = os.path.join(tmp, "rss-run")
    cmd = [TIME, "-v", HB, "run", "--quick", "-w", WORKLOAD, "-n", "1", "--warmup", "0", "-o", out]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    hwm, hb_pid = 0, None
    while p.poll() is None:
        hb_pid = hb_pid or first_child(p.pid)
        hwm = max(hwm, vm_hwm(hb_pid) if hb_pid else 0)
        time.sleep(0.02)
    err = p.stderr.read()
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    rows = len(results.load(out)["runs"])
    print(f"(b) runner RSS over a --quick {WORKLOAD} run on every allocator ({rows} rows):")
    print(f"    heapbench VmHWM (sampled every 20 ms) {hwm} kB = {hwm / 1024:.1f} MiB "
          f"(target < 16 MiB: {verdict(0 < hwm < 16 * 1024)})")
    if m:
        print(f"    /usr/bin/time -v max RSS {m.group(1)} kB (includes the measured children: an upper bound)")


def bench_repeat(tmp, workload, params, reps):
    """(c): three separate runs of one cell; spread of their median wall and max RSS."""
    walls, rsss = [], []
    for i in range(3):
        runs = hb_run(os.path.join(tmp, f"rep-{workload}-{i}"), workload, params, reps)["runs"]
        walls.append(statistics.median(r["wall_s"] for r in runs))
        rsss.append(statistics.median(r["maxrss_kb"] for r in runs))
    sw, sr = spread(walls), spread(rsss)
    print(f"(c) repeatability of `{workload} {params}`, 3 separate runs of -n {reps} (+{0 if reps == 1 else 1} warm-up):")
    print(f"    median wall {', '.join(f'{w:.3f}' for w in walls)} s -> spread {sw:.2f}% "
          f"(target < 5%: {verdict(sw < 5)})")
    print(f"    median maxrss {', '.join(str(int(r)) for r in rsss)} kB -> spread {sr:.2f}% "
          f"(target < 1%: {verdict(sr < 1)})")


def main():
    """Parses the options, checks the prerequisites, runs (a), (b), (c)."""
    ap = cli.ArgParser(prog="harness.py", description="measure the heapbench harness (overhead, RSS, repeatability)")
    ap.add_argument("--pairs", type=int, default=10, help="interleaved pairs for the overhead (default 10)")
    ap.add_argument("--ops", type=int, default=3000000, help="thread-churn --ops per run (default 3000000)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per repeatability run (default 5)")
    ap.add_argument("--skip-rss", action="store_true", help="skip (b), the all-allocator --quick run")
    args = ap.parse_args()
    if args.pairs < 1 or args.ops < 1 or args.reps < 1:
        die("--pairs, --ops and --reps must be positive integers")
    for path, what in ((HB, "run `make` first"), (WL_BIN, "run `make` first"),
                       (TIME, "install it: apt-get install time")):
        if not os.access(path, os.X_OK):
            die(f"{path} missing: {what}")
    params = f"--mode=loop --ops={args.ops}"
    print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')}, {os.uname().nodename}, {os.cpu_count()} cpus, "
          f"loadavg {' '.join(open('/proc/loadavg').read().split()[:3])}")
    with tempfile.TemporaryDirectory(prefix="hb-harness-") as tmp:
        bench_overhead(tmp, params, args.pairs)
        if not args.skip_rss:
            bench_runner_rss(tmp)
        bench_repeat(tmp, WORKLOAD, params, args.reps)
        bench_repeat(tmp, *MEMORY_CELL, args.reps)
    print(f"# done, loadavg {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
