"""mergescan.py - the first pass of `heapbench merge`: what each input holds, without keeping its rows.

Always holds: every input's meta.json and CSV headers are checked (results.read_meta,
results.read_header) and runs.csv is read one row at a time; what is kept is O(runs) small
keys (run numbers, (host, cell, rep)), never a row, so memory does not grow with rss.csv or
phases.csv. A finding that makes the merge wrong (other columns, two CPU models under one host
name, a (host, cell, rep) twice) raises MergeError; a gap (a shard or cells missing) is counted
for the report, not raised.
"""
import os

from heapbench import results

CSV_FILES = ("runs.csv", "phases.csv", "rss.csv", "sizes.csv", "allocstats.csv", "latency.csv")
CELL_REP = ("host", "workload", "allocator", "threads", "params", "env", "rep")


class MergeError(Exception):
    """Inputs that cannot be merged (message says which and what to do)."""


class Input:
    """One input directory: its meta, host, shard (i, n) or None, and run number -> host."""

    def __init__(self, directory, meta):
        self.dir = directory
        self.meta = meta
        self.host = meta.get("host") or ""
        self.shard = parse_shard(meta.get("shard"), directory)
        self.run_host = {}
        self.rows = 0
        self.distinct = 0

    def expected_rows(self):
        """shard_cells x reps when meta.json says them (runners that record them), else None."""
        cells, reps = self.meta.get("shard_cells"), self.meta.get("reps")
        return cells * reps if isinstance(cells, int) and isinstance(reps, int) else None


def parse_shard(text, directory):
    """(i, n) of meta.json's shard "i/N"; None when absent (a merged directory)."""
    if text is None:
        return None
    i, _, n = str(text).partition("/")
    if not (i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n)):
        raise MergeError(f"{directory}/meta.json: shard {str(text)[:20]!r} is not i/N; not written by heapbench run")
    return int(i), int(n)


class Inventory:
    """What every input holds: headers, hosts and CPU models, (host, cell, rep) keys, run numbers."""

    def __init__(self):
        self.inputs = []
        self.headers = {}      # CSV name -> (header, first dir)
        self.cpu = {}          # host -> (cpu_model, dir)
        self.seen = {}         # (host, cell, rep) -> dir
        self.duplicates = {}   # host -> [count, example]
        self.runs = {}         # host -> set of run numbers
        self.groups = {}       # (host, input index) -> set of run numbers
        self.cells = set()     # cell keys (with host)
        self.max_run = 0

    def add(self, directory):
        """Scans one input directory; raises results.ResultsError or MergeError."""
        if not os.path.isdir(directory):
            raise results.ResultsError(f"{directory}: not a directory; give results directories")
        results.judge(directory)
        entry = Input(directory, results.read_meta(directory))
        for name in CSV_FILES:
            self.check_header(directory, name)
        if entry.host:
            self.check_cpu(entry.host, entry.meta.get("cpu_model"), directory)
        self.scan_runs(entry)
        self.inputs.append(entry)

    def check_header(self, directory, name):
        """Every input's CSV `name` has the columns of the first input that has it."""
        header = results.read_header(os.path.join(directory, name))
        if header is None:
            if name == "runs.csv":
                raise results.ResultsError(f"{directory}/runs.csv: missing; is this a heapbench results directory?")
            return
        first = self.headers.setdefault(name, (header, directory))
        if first[0] != header:
            raise MergeError(f"{name} of {directory} has other columns than {first[1]} "
                             f"({len(header)} vs {len(first[0])}); merge only shards of the same 'run' command and version")

    def check_cpu(self, host, cpu_model, directory):
        """One CPU model per host name: two machines that share a name must not become one axis value."""
        known = self.cpu.setdefault(host, (cpu_model, directory))
        if cpu_model and known[0] and known[0] != cpu_model:
            raise MergeError(f"host {host!r} has CPU {known[0]!r} in {known[1]} but {cpu_model!r} in {directory}: "
                             "two machines under one host name; re-run one of them with a distinct host name")
        if cpu_model and not known[0]:
            self.cpu[host] = (cpu_model, directory)

    def scan_runs(self, entry):
        """Reads runs.csv row by row: run -> host, (host, cell, rep) keys, duplicates."""
        path = os.path.join(entry.dir, "runs.csv")
        header = self.headers["runs.csv"][0]
        try:
            col = {k: header.index(k) for k in CELL_REP + ("run",)}
        except ValueError as err:
            raise results.ResultsError(f"{path}: {err}; not a heapbench runs.csv") from None
        for line, fields in results.iter_csv(path):
            if line == 1 or not fields:
                continue
            if len(fields) != len(header) or fields[0] != str(results.SCHEMA) or not fields[col["run"]].isdigit():
                raise results.ResultsError(f"{path}:{line}: not a runs.csv row of schema {results.SCHEMA} "
                                           "(cut short, or another version); repair it with 'heapbench run --resume'")
            self.scan_row(entry, fields, col)

    def scan_row(self, entry, fields, col):
        """Records one runs.csv row."""
        host, run = fields[col["host"]], int(fields[col["run"]])
        entry.rows += 1
        entry.run_host[run] = host
        self.max_run = max(self.max_run, run)
        self.runs.setdefault(host, set()).add(run)
        self.groups.setdefault((host, len(self.inputs)), set()).add(run)
        key = tuple(fields[col[k]] for k in CELL_REP)
        self.cells.add(key[:-1])
        if key in self.seen:
            dup = self.duplicates.setdefault(host, [0, None])
            dup[0] += 1
            dup[1] = dup[1] or (f"{'/'.join(key[1:-1])} rep {key[-1]} is in both {self.seen[key]} and {entry.dir}")
            return
        self.seen[key] = entry.dir
        entry.distinct += 1

    def collide(self):
        """True when a run number occurs in two inputs or under two hosts (whole runs of one matrix on
        several hosts, or two runs of one host with other cells), so that run numbers must be renumbered."""
        total = sum(len(runs) for runs in self.groups.values())
        return len(set().union(*self.groups.values())) < total if self.groups else False

    def offsets(self):
        """(host, input index) -> the amount added to its run numbers: 0 for all, unless run numbers
        repeat across inputs or hosts; then group k (sorted by host, then input) gets k x the largest
        run number, so every run number of the merged directory is unique."""
        if not self.collide():
            return {g: 0 for g in self.groups}
        return {g: k * self.max_run for k, g in enumerate(sorted(self.groups))}
