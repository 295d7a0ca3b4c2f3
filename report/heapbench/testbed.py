"""testbed.py - the testbed of a run: a named fingerprint of what moves the numbers but is not under test.

Always holds: the fingerprint is built from meta.json's machine facts (FIELDS: CPU model,
cores, memory, kernel, glibc, THP mode, containment, virtualization) and the scheduling the
measured processes ran at (`priority`: normal, nice or rt; a run at SCHED_FIFO is not preempted by
the machine's load, so its times are another machine's), never from the host name,
the allocator libraries or anything under test, so two identical machines (CI runners with new
host names each time) share a testbed and an allocator upgrade stays a change inside one series.
The name is a readable prefix (CPU words and cores) plus 8 hex digits of the sha256 of the
canonical JSON of the fields: the same fields always give the same name. A field that meta.json
lacks (a directory written before it was recorded) is None, and is part of the fingerprint as such;
except priority, which a directory without it ran at (`normal`), and which enters the hash only when
it is not `normal` (DEFAULTS), so that the names of testbeds recorded before it are unchanged.
"""
import hashlib
import json
import re

# meta.json key -> testbed field (docs/DATA.md "meta.json").
FIELDS = (("cpu_model", "cpu_model"), ("cores", "cores"), ("mem_total_kb", "mem_total_kb"),
          ("kernel", "kernel"), ("glibc_version", "glibc"), ("thp", "thp"),
          ("containment", "containment"), ("virtualization", "virtualization"), ("priority", "priority"))
# Fields with a value every run had before the field was recorded: absent means it, and at it the
# field stays out of the name's hash.
DEFAULTS = {"priority": "normal"}


class Testbed:
    """A testbed: name (short, stable) and fields ({field: value}, FIELDS' order)."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = dict(fields)

    def __eq__(self, other):
        return isinstance(other, Testbed) and (self.name, self.fields) == (other.name, other.fields)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Testbed({self.name!r})"


def _prefix(fields):
    """A readable start of the name: the CPU model's first distinctive words and the cores."""
    words = re.findall(r"[A-Za-z0-9]+", str(fields.get("cpu_model") or "cpu"))
    skip = {"cpu", "processor", "r", "tm", "with", "radeon", "graphics", "core", "intel", "amd"}
    kept = [w.lower() for w in words if w.lower() not in skip and not re.fullmatch(r"\d+(ghz)?", w.lower())]
    head = "-".join(kept[:2]) or "cpu"
    return f"{head}-{fields['cores']}c" if fields.get("cores") else head


def name_of(fields):
    """The testbed name of fields: readable prefix + 8 hex digits of their canonical JSON's sha256."""
    hashed = {k: v for k, v in fields.items() if k not in DEFAULTS or v not in (None, DEFAULTS[k])}
    digest = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:8]
    return f"{_prefix(fields)}-{digest}"


def _fields(facts):
    """The fingerprint fields of a dict of meta.json facts (a missing fact is None)."""
    return {field: facts.get(key) if field not in DEFAULTS else facts.get(key) or DEFAULTS[field] for key, field in FIELDS}


def testbed_of(meta, host=None):
    """The Testbed of a results directory's meta.json (a dict). For a merged multi-host directory,
    host names one of its hosts: its facts come from meta['host_facts'][host] (written by
    heapbench merge) when present, else from the directory's own facts."""
    facts = meta
    if host is not None:
        facts = dict(meta, **((meta.get("host_facts") or {}).get(host) or {}))
        if not (meta.get("host_facts") or {}).get(host) and "cpu_models" in meta:
            facts["cpu_model"] = (meta.get("cpu_models") or {}).get(host, meta.get("cpu_model"))
    fields = _fields(facts)
    return Testbed(name_of(fields), fields)


def host_facts(meta):
    """The machine facts of one run's meta.json that testbed_of reads ({meta key: value}), for
    heapbench merge to keep per host."""
    return {key: meta.get(key) for key, _ in FIELDS if key in meta}
