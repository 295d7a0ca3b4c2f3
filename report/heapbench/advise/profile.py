"""profile.py - advise's profile stage: one trace recorded with `heapbench record`, its statistics read from `heapbench trace`.

Always holds: the trace is recorded and read only through the CLI (record, trace), so the
recorder and the trace reader stay the replay component's; the statistics are parsed from
`heapbench trace`'s printed lines (replay/trace/hbtrace.c) and nothing else; a failure of either
command comes back as ProfileError with the command's own last line.
"""
import re
import subprocess

from heapbench import cli

# Fewer malloc-API calls than this (and no large block): the allocator cannot matter (advise says so and stops).
FEW_OPS = 1000
# A generous cost of one malloc-API call with what it does to the program around it (a call takes
# 20-100 ns on this machine; a page fault of a fresh small block ~1-2 us): for the time goals, calls
# that would cost less than half the threshold of the run's time at this rate cannot matter either.
CALL_COST_S = 2e-6
LARGE_BLOCK = 128 * 1024  # glibc's default mmap threshold: blocks at least this big are "large"


class ProfileError(Exception):
    """The trace could not be recorded or read; the message is one line saying why and what to do."""


def profile_record(command, workload, trace, log):
    """Records one trace of the command (or of -w prog:NAME) into trace; raises ProfileError."""
    argv = [cli.binary(), "record", "-o", trace]
    argv += ["-w", workload] if workload else ["--"] + list(command)
    proc = subprocess.run(argv, stdout=log, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                          start_new_session=True)  # no terminal: advise's stop.py forwards its signals
    if proc.returncode == 130:
        raise KeyboardInterrupt
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ProfileError(f"the allocations could not be recorded ({last})")


def profile_read(trace):
    """The statistics of a trace as a dict (profile_parse of `heapbench trace FILE`); raises ProfileError."""
    proc = subprocess.run([cli.binary(), "trace", trace], capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ProfileError(f"the trace could not be read ({last})")
    return profile_parse(proc.stdout)


def profile_parse(text):
    """{threads, ops, mallocs, frees, cross_frees, peak_live, peak_mapped, peak_total, original_wall,
    original_peak_kb, sizes: [(lo, hi, count)], lifetimes: [(label, count)], produced} of trace text."""
    out = {"sizes": [], "lifetimes": []}
    section = None
    for line in text.splitlines():
        if line.startswith("size histogram"):
            section = "sizes"
            continue
        if line.startswith("lifetime histogram"):
            section = "lifetimes"
            continue
        if not line.startswith("  "):
            section = None
        _parse_line(out, section, line)
    return out


def _int(pattern, line):
    """The first group of pattern in line as an int, None without a match."""
    match = re.search(pattern, line)
    return int(match.group(1)) if match else None


def _parse_line(out, section, line):
    """Adds what one line of `heapbench trace` says to out."""
    if section == "sizes":
        match = re.match(r"\s+(\d+)\.\.(\d+): (\d+)", line)
        if match:
            out["sizes"].append(tuple(int(g) for g in match.groups()))
        return
    if section == "lifetimes":
        match = re.match(r"\s+(.+?): (\d+)", line)
        if match:
            out["lifetimes"].append((match.group(1), int(match.group(2))))
        return
    simple = [("threads", r"^threads: \d+ \(with events: (\d+)\)"), ("ops", r"^operations: (\d+)"),
              ("mallocs", r"^  malloc: (\d+)"), ("produced", r"^objects: (\d+) produced"),
              ("peak_live", r"^peak live bytes: (\d+)"), ("peak_mapped", r"^mapped by the program: .*peak (\d+) bytes"),
              ("peak_total", r"^peak live \+ mapped bytes: (\d+)"), ("original_peak_kb", r"^original run: .* (\d+) KiB")]
    for key, pattern in simple:
        value = _int(pattern, line)
        if value is not None:
            out[key] = value
    match = re.match(r"^cross-thread frees: (\d+) of (\d+)", line)
    if match:
        out["cross_frees"], out["frees"] = int(match.group(1)), int(match.group(2))
    match = re.match(r"^original run: ([0-9.]+) s wall", line)
    if match:
        out["original_wall"] = float(match.group(1))


def profile_negligible(stats, goal, run_s, threshold):
    """Why the program does not allocate enough for the allocator to matter ('' when it does): fewer
    than FEW_OPS malloc-API calls, or for a time goal calls that at CALL_COST_S each would be less
    than half of threshold (a fraction) of the run's run_s seconds; never with a block of
    LARGE_BLOCK or more (its page faults and mmap/trim policy differ by allocator) or memory the
    program maps itself."""
    ops = stats.get("ops", 0) or 0
    large = sum(c for lo, _, c in stats.get("sizes", []) if lo >= LARGE_BLOCK)
    if large or (stats.get("peak_mapped") or 0) > 0:
        return ""
    if ops < FEW_OPS:
        return f"{ops} malloc-API calls in a run, fewer than {FEW_OPS}, none of a large block"
    share = ops * CALL_COST_S / run_s if run_s > 0 else float("inf")
    if goal in ("time", "latency") and share < threshold / 2:
        return (f"{ops} malloc-API calls in a run of {run_s:.2f} s: at {CALL_COST_S * 1e6:g} us each they would be "
                f"{share * 100:.2f}% of it, under half the {threshold * 100:g}% threshold; none of a large block")
    return ""


def profile_traits(stats):
    """[(trait, sentence, knob hints)] this profile shows; knob hints are the catalogue's knob
    names (any family) that the trait makes relevant, in the order advise tries them."""
    traits = []
    threads, produced = stats.get("threads", 1) or 1, stats.get("produced", 0) or 0
    if threads > 1:
        traits.append(("threads", f"{threads} threads allocate: arenas and per-thread caches matter",
                       ["arena_max", "narenas", "tcache", "max_total_thread_cache_bytes", "tcache_count"]))
    frees, cross = stats.get("frees", 0) or 0, stats.get("cross_frees", 0) or 0
    if frees and cross / frees >= 0.05:
        traits.append(("cross-thread", f"{cross / frees:.0%} of frees are cross-thread: remote frees return to "
                       "their arena", ["arena_max", "narenas"]))
    large = sum(c for lo, _, c in stats["sizes"] if lo >= LARGE_BLOCK)
    if produced and large / produced >= 0.01 or (stats.get("peak_mapped") or 0) > 0:
        traits.append(("large", f"{large} blocks of {LARGE_BLOCK // 1024} KiB or more"
                       f"{' and the program maps memory itself' if stats.get('peak_mapped') else ''}: "
                       "mmap and trim thresholds matter", ["mmap_threshold", "trim_threshold", "large_os_pages"]))
    long_lived = sum(c for label, c in stats["lifetimes"] if label in ("< 1 s", "< 10 s", ">= 10 s", "live at end"))
    if produced and long_lived / produced >= 0.05:
        traits.append(("long-lived", f"{long_lived / produced:.0%} of objects live 100 ms or longer: "
                       "decay and purge of freed memory matter",
                       ["dirty_decay_ms", "muzzy_decay_ms", "background_thread", "release_rate", "decommit_delay"]))
    small = sum(c for _, hi, c in stats["sizes"] if hi <= 1024)
    if produced and small / produced >= 0.5:
        traits.append(("small", f"{small / produced:.0%} of blocks are 1 KiB or less: thread caches serve them",
                       ["tcache_count", "tcache"]))
    return traits


def profile_text(stats, traits):
    """The profile as printed lines: the statistics, then the relevant knobs."""
    if not stats.get("ops"):
        return ["  no malloc-API call was recorded (the program, or each process it started, allocated nothing)"]
    peak_live = (stats.get("peak_live") or 0) / 1048576
    lines = [f"  threads {stats.get('threads', '?')}, {stats.get('ops', 0)} malloc-API calls, "
             f"{stats.get('cross_frees', 0)} of {stats.get('frees', 0)} frees cross-thread",
             f"  peak live {peak_live:.1f} MiB, mapped by the program {(stats.get('peak_mapped') or 0) / 1048576:.1f} MiB "
             f"(original run: {stats.get('original_wall', 0):.2f} s, {(stats.get('original_peak_kb') or 0) / 1024:.1f} MiB peak RSS)",
             "  size classes: " + ", ".join(f"{_size(lo)}-{_size(hi)} {c}" for lo, hi, c in stats["sizes"][:8]),
             "  lifetimes: " + ", ".join(f"{label} {c}" for label, c in stats["lifetimes"])]
    for _, sentence, hints in traits:
        lines.append(f"  relevant: {sentence} ({', '.join(hints)})")
    if not traits:
        lines.append("  relevant: nothing stands out; each allocator is screened at its defaults and key settings")
    return lines


def _size(n):
    """A byte count as 512, 4K, 2M."""
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div in (0, div - 1):
            return f"{(n + 1) // div}{unit}"
    return str(n)
