"""crossing.py - whether the absolute figures of two runs may be compared: only on one host and one testbed.

Always holds: absolute figures (times and memory counts alike: page faults and peak RSS depend on
the kernel, the CPU, the memory and the environment as much as times depend on the speed) are
compared only between cells of the same host whose testbeds (heapbench.testbed: CPU,
cores, memory, kernel, glibc, THP, containment, virtualization) agree; ratios to a reference
allocator of the same run (--relative) may cross both. A testbed fact that one meta.json lacks
(a directory written before it was recorded) is not held against it.
"""
from heapbench.testbed import testbed_of


class CrossingError(Exception):
    """Absolute figures of two hosts or testbeds were to be compared (message says what to do)."""


def facts(meta, host):
    """The testbed fields of one host of a results directory's meta.json (merged directories: per host)."""
    return testbed_of(meta, host if "hosts" in meta else None).fields


def differences(base_meta, base_host, new_meta, new_host):
    """['field: BASE value vs NEW value', ...] for the testbed facts both sides know and that differ."""
    a, b = facts(base_meta, base_host), facts(new_meta, new_host)
    return [f"{name} {a[name]!r} vs {b[name]!r}" for name in a
            if a[name] is not None and b.get(name) is not None and a[name] != b[name]]


def check(pairs, base, new, relative, fix="add --relative (ratios to glibc in the same run)"):
    """Raises CrossingError when an absolute comparison of the pairs (key, base host, new host)
    would cross hosts or testbeds; fix: what the message tells the user to do."""
    if relative:
        return
    for b, n in sorted({(b, n) for _, b, n in pairs}):
        if b != n:
            raise CrossingError(f"BASE ran on host {b!r} and NEW on {n!r}: absolute figures of different hosts "
                                f"are not comparable, memory counts included; {fix}")
        diff = differences(base["meta"], b, new["meta"], n)
        if diff:
            raise CrossingError(f"BASE and NEW ran on different testbeds ({'; '.join(diff)}): their absolute "
                                f"figures are not comparable, memory counts included; {fix}")
