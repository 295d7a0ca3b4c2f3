"""cells.py - turns results rows into per-cell samples and pairs the cells of two runs (compare, ci).

Always holds: a sample holds one value per `ok` repetition (never a failed, timed-out or
skipped run, never an empty counter); cells are matched on (workload, allocator, threads,
params, env) and carry their host, so a caller can refuse to put absolute figures of two
different hosts side by side; in relative mode a value is the cell's figure divided by the
reference allocator's figure of the same host, cell and repetition in the same run.
"""
from heapbench import results

MATCH_KEY = results.MATCH_KEY

# Metrics where the machine's speed does not matter: their thresholds can be tight.
# metric_instructions is valgrind's count (`heapbench run --count-instructions`: cachegrind; callgrind with
# --count-alloc-instructions, which adds metric_alloc_instructions, the allocator's share).
DETERMINISTIC = {"maxrss_kb", "minflt", "page_faults", "instructions", "metric_instructions", "metric_alloc_instructions"}
MEMORY = {"maxrss_kb", "minflt", "majflt", "page_faults"}
THRESHOLD_TIME = 0.05
THRESHOLD_MEMORY = 0.10
THRESHOLD_TIGHT = 0.02
# p99 and p99.9 stand for every (phase, op) of latency.csv (heapbench.latency.expand); a run
# without latency rows simply has no such metric.
DEFAULT_METRICS = ("wall_s", "maxrss_kb", "p99", "p99.9")


def threshold(metric, relative):
    """Default threshold of a metric (fraction): tight for deterministic metrics in relative
    mode, 10% for other memory metrics, 5% for time and everything else."""
    if relative and metric in DETERMINISTIC:
        return THRESHOLD_TIGHT
    return THRESHOLD_MEMORY if metric in MEMORY else THRESHOLD_TIME


def group(runs):
    """Groups runs.csv rows by cell: {match key: {host: [rows...]}} (every status kept)."""
    cells = {}
    for (host, *key), rows in results.group(runs).items():
        cells.setdefault(tuple(key), {})[host] = rows
    return cells


def _ok_values(rows, metric):
    """{rep: value} of the ok rows of one cell that have a numeric value for metric."""
    out = {}
    for row in rows:
        value = row.get(metric)
        if row.get("status") == "ok" and isinstance(value, (int, float)):
            out[row.get("rep")] = float(value)
    return out


def sample(cells, key, host, metric, reference=None):
    """The sample of one cell on one host for metric, ordered by rep.

    reference=None: the raw values. reference=NAME: each rep's value divided by the value of
    allocator NAME in the same host/workload/threads/params/env and rep (reps where the
    reference is missing, failed or 0 are dropped). Returns a list of floats.
    """
    values = _ok_values(cells.get(key, {}).get(host, []), metric)
    if reference is None:
        return [values[rep] for rep in sorted(values)]
    ref_key = (key[0], reference) + key[2:]
    ref = _ok_values(cells.get(ref_key, {}).get(host, []), metric)
    return [values[rep] / ref[rep] for rep in sorted(values) if ref.get(rep)]


def broken(cells, key, host):
    """'failed'/'crashed'/'timeout' (comma-joined) when the cell has runs on host and none of them
    is ok or skipped; '' otherwise (a skipped cell - allocator missing - is not broken)."""
    statuses = {row.get("status") for row in cells.get(key, {}).get(host, [])}
    if not statuses or statuses & {"ok", "skipped"}:
        return ""
    return ",".join(sorted(statuses))


def pair(base_cells, new_cells):
    """Pairs the cells of two runs.

    Returns (pairs, missing, extra): pairs is a sorted list of (key, base_host, new_host); a key
    present on the same host(s) on both sides pairs host by host; a key on exactly one host on
    each side pairs across hosts (the caller decides whether that is allowed); missing lists
    (key, host) only in base, extra (key, host) only in new.
    """
    pairs, missing, extra = [], [], []
    for key in sorted(set(base_cells) | set(new_cells)):
        base_hosts = sorted(base_cells.get(key, {}))
        new_hosts = sorted(new_cells.get(key, {}))
        if len(base_hosts) == 1 and len(new_hosts) == 1:
            pairs.append((key, base_hosts[0], new_hosts[0]))
            continue
        for host in base_hosts:
            if host in new_hosts:
                pairs.append((key, host, host))
            else:
                missing.append((key, host))
        extra.extend((key, host) for host in new_hosts if host not in base_hosts)
    return pairs, missing, extra


def label(key):
    """A short readable name of a cell: 'workload/allocator/tN [params] {env}'."""
    workload, allocator, threads, params, env = key
    label = f"{workload}/{allocator}/t{threads}"
    if params:
        label += f" [{params}]"
    if env:
        label += " {" + env + "}"
    return label
