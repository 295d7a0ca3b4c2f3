"""latency.py - the latency histograms of latency.csv: bucket bounds, parse, exact merge, quantiles (docs/DATA.md).

Always holds: the bucket formula is the one of workloads/common/wl_hist.h (exact below 256 ns,
then 128 buckets per power of two); merging adds counts, so a merged histogram is exactly the
histogram of all the samples; a quantile q is the sample of rank ceil(q * n), reported as its
bucket's midpoint and never above the exact max.
"""
import math

SUB = 128
MAX_SHIFT = 32
BUCKETS = (MAX_SHIFT + 2) * SUB
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


def parse_buckets(text):
    """{index: count} from "i:c,i:c" (the latency_hist form); ValueError when malformed."""
    counts = {}
    for entry in filter(None, text.split(",")):
        index, count = entry.split(":")
        index, count = int(index), int(count)
        if not 0 <= index < BUCKETS or count < 0:
            raise ValueError(f"bad bucket entry {entry!r}")
        counts[index] = counts.get(index, 0) + count
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


def quantile(counts, q, max_ns):
    """The value at quantile q of the histogram (0 when empty)."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    if q >= 1:
        return float(max_ns)
    rank = max(1, math.ceil(q * n))
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= rank:
            return min(bucket_lo(i) + (bucket_width(i) - 1) / 2, float(max_ns))
    return float(max_ns)


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


def merged(rows):
    """The exact merge of latency.csv rows: (counts, max_ns, samples, sum_ns)."""
    counts, top = merge((parse_buckets(r["buckets"]), r["max"]) for r in rows)
    samples = sum(r["samples"] for r in rows)
    total = sum(r["mean"] * r["samples"] for r in rows)
    return counts, top, samples, total
