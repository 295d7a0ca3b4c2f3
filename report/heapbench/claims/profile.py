"""profile.py - the two profiles claims read from a wrapped run: strace -c's system-call table and callgrind's inclusive cost per function.

A Spec whose wrap runs `strace -f -c -o {dir}/strace.txt` or `valgrind --tool=callgrind
--callgrind-out-file={dir}/callgrind.out` leaves that file in the run's temporary directory;
measure.py reads it back, passing a callgrind file through `callgrind_annotate --inclusive=yes`
first (annotate()), and the judges parse the text here. Under PHASES callgrind dumps its counts
each time the workload enters wl_phase (the call that ends a phase), so dump k
(callgrind.out.k) holds the user-space instructions of the run's k-th phase (the first also the
program's start, ~0.2 M instructions; each later one the formatting of the previous phase's
record, a few thousand, which varies with the times it prints: counts repeat to ~0.1% at the
claims' sizes, whatever the load).
Always holds: unparsable text gives an empty table (the claim then says no figure), never an
exception; callgrind's figures are instruction counts (Ir), which do not depend on the load.
"""
import re
import shutil
import subprocess

STRACE = "strace -f -c -o {dir}/strace.txt" if shutil.which("strace") else None
CALLGRIND = "valgrind --tool=callgrind --callgrind-out-file={dir}/callgrind.out"
PHASES = CALLGRIND + " --dump-before=wl_phase"
_CG_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\S*:)?([^\s:]+?)(?:'\d+)?(?:@@\S+)?(?:\s+\[.*\])?\s*$")
_CG_TOTAL = re.compile(r"^\s*([\d,]+)\s+\(\s*100\.0%\)\s+PROGRAM TOTALS")


def annotate(path, inclusive=True):
    """callgrind_annotate's listing of a callgrind.out file, every function shown, inclusive costs or
    (inclusive False) self costs ('' when callgrind_annotate is missing or fails)."""
    tool = shutil.which("callgrind_annotate")
    if not tool:
        return ""
    proc = subprocess.run([tool, f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", path],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc.stdout if proc.returncode == 0 else ""


def inclusive(text):
    """(program total Ir, {function: inclusive Ir}) from callgrind_annotate --inclusive=yes output;
    a function listed more than once (recursion levels f'2, several files) keeps its largest cost."""
    total, cost = None, {}
    for line in text.splitlines():
        m = _CG_TOTAL.match(line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = _CG_LINE.match(line)
        if m:
            name, ir = m.group(2), int(m.group(1).replace(",", ""))
            cost[name] = max(cost.get(name, 0), ir)
    return total, cost


def total(text):
    """The program total of a callgrind_annotate listing (Ir), or None without one."""
    return inclusive(text)[0]


def phase_instructions(files, order, phases):
    """User-space instructions of the phases (names) of a one-run cell measured under PHASES, order
    being its phases in the order the workload wrote them: dump k is phase k's; None when a phase
    or its dump is missing."""
    counts = [total(files.get(f"callgrind.out.{order.index(p) + 1}", "")) if p in order else None for p in phases]
    return None if None in counts else sum(counts)


def share(text, functions):
    """The fraction of the program's instructions spent inside any of functions (their inclusive
    costs summed: they must not call one another), or None without a profile."""
    total, cost = inclusive(text)
    if not total:
        return None
    return sum(cost.get(f, 0) for f in functions) / total


def strace_table(text):
    """{syscall: (percent, seconds, calls)} from `strace -c` output (empty when unparsable)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+)\s+([\d.]+)\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m and m.group(4) != "total":
            out[m.group(4)] = (float(m.group(1)), float(m.group(2)), int(m.group(3)))
    return out


def calls(text, syscall):
    """Calls of one system call in `strace -c` output: 0 when absent from a table that parsed,
    None when there is no table."""
    table = strace_table(text)
    if not table:
        return None
    return table.get(syscall, (0, 0, 0))[2]
