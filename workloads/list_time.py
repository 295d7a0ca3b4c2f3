"""list_time.py (workloads/list-time) - runs every cell of workloads/LIST once (default or --quick sets) and prints wall and CPU time per workload and in total.

Usage: workloads/list-time [--quick] [--env 'K=V ...'] [--preload LIB]
Always holds: cells are run exactly as the runner would (params + --threads=N for a thread
sweep, + --quick for quick sets), one after the other, with HEAPBENCH_PHASE_FD unset; a cell
that exits non-zero is reported and makes the script exit 1. The project must be built (make).
CPU time (user + sys of the cell's process) is printed next to wall time: on a loaded machine it
is the better estimate of what the pass costs on an idle one.
"""
import os
import subprocess
import sys
import time

from heapbench import worklist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(args):
    """Runs the pass and prints the per-workload and total wall times."""
    quick = "--quick" in args
    env = dict(os.environ)
    env.pop("HEAPBENCH_PHASE_FD", None)
    for flag in ("--env", "--preload"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(f"list-time: {flag} needs a value; see the usage line in workloads/list-time", file=sys.stderr)
                return 2
            if flag == "--env":
                env.update(kv.split("=", 1) for kv in args[i + 1].split())
            else:
                env["LD_PRELOAD"] = args[i + 1]
    wall, cpu, failed = {}, {}, 0
    for name, argv in worklist.cells(worklist.read_list(ROOT), quick, ROOT):
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall[name] = wall.get(name, 0.0) + time.monotonic() - t0
        cpu[name] = cpu.get(name, 0.0) + usage.ru_utime + usage.ru_stime
        if os.waitstatus_to_exitcode(status) != 0:
            failed += 1
            print(f"FAILED (exit {os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    for name in wall:
        print(f"{name:16s} {wall[name]:7.3f} s wall {cpu[name]:7.3f} s cpu")
    print(f"{'total':16s} {sum(wall.values()):7.3f} s wall {sum(cpu.values()):7.3f} s cpu "
          f"({'quick' if quick else 'default'} pass, load average {os.getloadavg()[0]:.1f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
