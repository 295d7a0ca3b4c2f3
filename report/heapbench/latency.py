"""latency.py - the latency histograms of latency.csv: bucket bounds, parse, exact merge, quantiles (docs/DATA.md).

Always holds: the bucket formula is the one of contract/wl_hist.h (exact below 256 ns,
then 128 buckets per power of two); merging adds counts, so a merged histogram is exactly the
histogram of all the samples; a quantile is wl_hist_quantile's (wl_hist.c), the same sums in the
same order: with a clock step <= 1 ns the sample of rank ceil(q * n) reported as its bucket's
midpoint, with a coarser step continuity-corrected across the step; never below 0 nor above the
exact max.
"""
import collections
import math
import re

SUB = 128
MAX_SHIFT = 32
BUCKETS = (MAX_SHIFT + 2) * SUB
# The runner's --latency modes (docs/DATA.md, Latency sampling), the one Python spelling of them.
OFF, SAMPLED, ALL = MODES = ("off", "sampled", "all")
MODES_TEXT = f"{OFF}, {SAMPLED} or {ALL}"
QUANTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999), ("p99.99", 0.9999))


def bucket_index(v):
    """The bucket of a value v in ns (wl_hist_index): v below 256, else shift * 128 + (v >> shift)
    with shift = floor(log2 v) - 7; values of 2^40 ns and more share the last bucket."""
    if v < 2 * SUB:
        return int(v)
    shift = int(v).bit_length() - 1 - 7
    return BUCKETS - 1 if shift > MAX_SHIFT else shift * SUB + (int(v) >> shift)


def bucket_lo(i):
    """Lower bound in ns of bucket i."""
    if i < 2 * SUB:
        return i
    shift = i // SUB - 1
    return (i - shift * SUB) << shift


def bucket_width(i):
    """Width in ns of bucket i."""
    return 1 if i < 2 * SUB else 1 << (i // SUB - 1)


_BUCKET = re.compile(r"([0-9]{1,20}):([0-9]{1,20})")


def parse_buckets(text, samples=None):
    """{index: count} from "i:c,i:c" (the latency_hist form); ValueError when malformed: an entry
    that is not digits:digits, an index beyond the last bucket, a count above 2^64-1, or (samples
    given) counts that do not add up to samples. The rule of heapbench check (runner/cli/content.c)."""
    counts = {}
    for entry in text.split(",") if text else ():
        match = _BUCKET.fullmatch(entry)
        if not match or int(match[1]) >= BUCKETS or int(match[2]) > 2 ** 64 - 1:
            raise ValueError(f"bad bucket entry {entry[:40]!r}")
        index, count = int(match[1]), int(match[2])
        counts[index] = counts.get(index, 0) + count
    if samples is not None and sum(counts.values()) != samples:
        raise ValueError(f"the counts add up to {sum(counts.values())}, not to samples {samples}")
    return counts


def format_buckets(counts):
    """The "i:c,i:c" form of {index: count}, ascending, empty buckets left out."""
    return ",".join(f"{i}:{c}" for i, c in sorted(counts.items()) if c)


def merge(histograms):
    """Adds up (counts, max_ns) pairs: ({index: count}, max). Exact."""
    total, top = {}, 0
    for counts, max_ns in histograms:
        for i, c in counts.items():
            total[i] = total.get(i, 0) + c
        top = max(top, max_ns)
    return total, top


def bucket_mid(i):
    """Midpoint in ns of bucket i: what a sample in it is reported as."""
    return bucket_lo(i) + (bucket_width(i) - 1) / 2


def _rank_quantile(counts, q, n, max_ns):
    """The fine-clock rule: the midpoint of the bucket holding the sample of rank ceil(q * n)."""
    rank = max(1, math.ceil(q * n))
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= rank:
            return bucket_mid(i)
    return float(max_ns)


def _spread_quantile(counts, q, n, step_ns):
    """The stepping-clock rule: each bucket's samples spread uniformly over [mid - step/2,
    mid + step/2); where the piecewise-linear CDF reaches q * n. The intervals are all one step
    wide, so starts and ends both come in bucket order; wl_hist_spread_quantile's sweep."""
    order = [i for i in sorted(counts) if counts[i]]
    target, half, slope, f = q * n, step_ns / 2, 0.0, 0.0
    a = b = 0
    x = bucket_mid(order[0]) - half
    while b < len(order):
        xa = bucket_mid(order[a]) - half if a < len(order) else math.inf
        xb = bucket_mid(order[b]) + half
        nx = xa if xa <= xb else xb
        nf = f + slope * (nx - x)
        if slope > 0 and nf >= target:
            return x + (target - f) / slope
        x, f = nx, nf
        if xa <= xb:
            slope += counts[order[a]] / step_ns
            a += 1
        else:
            slope -= counts[order[b]] / step_ns
            b += 1
    return x


def quantile(counts, q, max_ns, step_ns):
    """The value at quantile q of the histogram of samples read with a clock of step step_ns
    (latency.csv's clock_step_ns; 0 when unknown), never below 0 nor above max_ns; max_ns at
    q = 1, 0.0 when empty. step_ns <= 1: the sample of rank ceil(q * n), its bucket's midpoint;
    coarser: continuity-corrected (docs/DATA.md "Quantiles")."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    if q >= 1:
        return float(max_ns)
    v = _spread_quantile(counts, q, n, step_ns) if step_ns > 1 else _rank_quantile(counts, q, n, max_ns)
    return max(0.0, min(v, float(max_ns)))


# The quantile columns of latency.csv, lower is better for all of them (compare, ci, tune).
COLUMNS = tuple(name for name, _ in QUANTILES) + ("max", "mean")


def metric_name(column, phase, op):
    """The runs-level metric of one latency column of one phase and op: 'p99:churn:malloc'."""
    return f"{column}:{phase}:{op}"


def is_metric(name):
    """True for a latency metric name (column:phase:op) or a bare latency column (p99, p99.9...)."""
    return name.split(":", 1)[0] in COLUMNS


def attach(data):
    """Adds each latency.csv row's quantile columns to its runs.csv row as metrics named
    metric_name(column, phase, op) (rows matched on run_id and run); returns the sorted names.
    A run without latency rows simply lacks them (its cell then has no sample of that metric)."""
    by_run = {}
    for row in data.get("latency", []):
        by_run.setdefault((row["run_id"], row["run"]), []).append(row)
    names = set()
    for run in data["runs"]:
        for row in by_run.get((run["run_id"], run["run"]), []):
            for column in COLUMNS:
                name = metric_name(column, row["phase"], row["op"])
                run[name] = row[column]
                names.add(name)
    return sorted(names)


def expand(metrics, known):
    """Replaces each bare latency column of metrics (p99) by every known metric of it
    (p99:churn:malloc, p99:churn:free, ...), keeping the order; other names pass through."""
    out = []
    for m in metrics:
        if m in COLUMNS:
            out.extend(k for k in known if k.split(":", 1)[0] == m)
        else:
            out.append(m)
    return out


Merged = collections.namedtuple("Merged", "counts max_ns samples sum_ns step_ns")


def row_step(row):
    """A latency.csv row's clock step in ns (clock_step_ns; 0 for a file written before it existed)."""
    return row.get("clock_step_ns") or 0.0


def merged(rows):
    """The exact merge of latency.csv rows as a Merged; its step_ns is the largest of the rows'
    (rows of one host share one clock; the coarsest step is the one every sample may carry)."""
    counts, top = merge((parse_buckets(r["buckets"]), r["max"]) for r in rows)
    samples = sum(r["samples"] for r in rows)
    total = sum(r["mean"] * r["samples"] for r in rows)
    return Merged(counts, top, samples, total, max((row_step(r) for r in rows), default=0.0))


def merged_quantile(m, q):
    """quantile() of a Merged."""
    return quantile(m.counts, q, m.max_ns, m.step_ns)
