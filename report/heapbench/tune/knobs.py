"""knobs.py - the catalogue of allocator knobs heapbench tune can sweep, per tunables family.

Always holds: every knob has a family, a short name (what --grid uses), a value type whose
parse() either returns the canonical text put in the environment or raises KnobError naming
the valid values, a default value and a default candidate list; env_of() is the only place
that turns settings into environment variables. A value that parses is syntactically valid;
whether the allocator really applied it is verify.py's question (glibc ignores out-of-range
values silently, so those are kept here as the ranges malloc enforces, not refused).
"""
import re

SIZE_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
U64_MAX = (1 << 64) - 1


class KnobError(Exception):
    """A knob name or value that cannot be used; the message names the valid ones."""


class Knob:
    """One knob: name, family, how its value is parsed, its default, its default candidates.

    kind: 'uint' (decimal, 0x hex or a k/M/G size), 'int' (may be negative, >= lo),
    'bool' (true/false, also 1/0), 'float' (>= 0), 'choice' (one of choices).
    lo/hi bound what parse() accepts; malloc_max is the largest value glibc's malloc itself
    takes (it ignores larger ones without a word), None when the loader's range is the limit.
    """

    def __init__(self, family, name, kind, default, candidates, doc, lo=0, hi=U64_MAX,
                 malloc_max=None, choices=None, env=None):
        """A knob; its candidates are parsed here, so a bad catalogue entry fails at import."""
        self.family, self.name, self.kind, self.doc = family, name, kind, doc
        self.lo, self.hi, self.malloc_max, self.choices = lo, hi, malloc_max, choices
        self.env = env
        self.default = default
        self.candidates = [self.parse(v) for v in candidates]

    def parse(self, text):
        """Canonical environment text of one value; raises KnobError saying what is valid."""
        text = str(text).strip()
        if self.kind == "bool":
            low = text.lower()
            if low in ("true", "1", "yes", "on"):
                return self.bool_text(True)
            if low in ("false", "0", "no", "off"):
                return self.bool_text(False)
            raise KnobError(f"{self.name}={text}: not a boolean; give true or false")
        if self.kind == "choice":
            if text in self.choices:
                return text
            raise KnobError(f"{self.name}={text}: valid values are {', '.join(self.choices)}")
        if self.kind == "float":
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not value >= 0 or value == float("inf"):
                raise KnobError(f"{self.name}={text}: not a number >= 0; give e.g. 1 or 2.5")
            return text
        value = knobs_parse_int(text, self.kind == "int")
        if value is None or value < self.lo or value > self.hi:
            raise KnobError(f"{self.name}={text}: not an integer in {self.lo}..{self.hi}"
                            f"{' (k/M/G suffixes allowed)' if self.kind == 'uint' else ''}")
        return str(value)

    def bool_text(self, flag):
        """How this family spells a boolean in its environment."""
        if self.family == "mimalloc":
            return "1" if flag else "0"
        return "true" if flag else "false"

    def describe(self):
        """One line for --list-knobs: name, valid values, default, candidates, meaning."""
        if self.kind == "bool":
            valid = "true|false"
        elif self.kind == "choice":
            valid = "|".join(self.choices)
        elif self.kind == "float":
            valid = ">= 0"
        else:
            valid = f"{self.lo}..{self.hi if self.hi != U64_MAX else 'max'}"
        limit = f", malloc takes <= {self.malloc_max}" if self.malloc_max is not None else ""
        tries = f"tries {','.join(self.candidates)}" if self.candidates else f"only with --grid {self.name}=..."
        return f"{self.name:32} {valid}{limit}; default {self.default}; {tries}: {self.doc}"


def knobs_parse_int(text, signed):
    """Integer of a decimal, 0x-hex or k/M/G-suffixed text; None when it is none of these."""
    match = re.fullmatch(r"(-?)(0x[0-9a-fA-F]+|\d+)([kKmMgG]?)", text)
    if not match or (match.group(1) and not signed):
        return None
    value = int(match.group(2), 0) * SIZE_SUFFIX[match.group(3).lower()]
    return -value if match.group(1) else value


def _glibc(name, default, candidates, doc, lo=0, malloc_max=None, choices=None):
    """A glibc.malloc.* tunable (set through GLIBC_TUNABLES)."""
    kind = "choice" if choices else "uint"
    return Knob("glibc", name, kind, default, candidates, doc, lo=lo, malloc_max=malloc_max,
                choices=choices)


# glibc 2.36 malloc.c: do_set_tcache_count takes <= MAX_TCACHE_COUNT (UINT16_MAX), do_set_tcache_max
# <= MAX_TCACHE_SIZE (1032 bytes on 64-bit); both ignore larger values silently (measured with
# mallinfo2, report/heapbench/tune/README.md). mmap_threshold has no such cap in Debian's 2.36 (measured: 1 GiB
# is applied). The loader itself refuses arena_max/arena_test of 0 (min 1). hugetlb: 0 off,
# 1 THP madvise, 2 reserved huge pages (malloc falls back silently when none are reserved).
GLIBC_KNOBS = [
    _glibc("arena_max", "0 (8 x cores)", ["1", "2", "4", "8"], "most arenas (threads share them)", lo=1),
    _glibc("arena_test", "8", ["1", "2", "16"], "arenas created before arena_max is checked", lo=1),
    _glibc("tcache_count", "7", ["0", "1", "16", "64", "255"], "chunks per thread-cache bin",
           malloc_max=65535),
    _glibc("tcache_max", "1032", ["0", "64", "256", "1032"], "largest request the thread cache keeps",
           malloc_max=1032),
    _glibc("mmap_threshold", "131072 (dynamic)", ["32768", "131072", "1048576", "33554432"],
           "requests at least this big are mmapped (setting it disables the dynamic threshold)"),
    _glibc("trim_threshold", "131072 (dynamic)", ["0", "131072", "1048576", "67108864"],
           "free top memory above this is returned to the kernel"),
    _glibc("top_pad", "131072", ["0", "1048576", "16777216"], "extra bytes asked of the kernel per sbrk"),
    _glibc("hugetlb", "0", ["1"], "1: madvise THP on the heap, 2: reserved huge pages",
           choices=["0", "1", "2"]),
    Knob("glibc", "MALLOC_ARENA_MAX", "uint", "unset", ["1", "2", "4", "8"],
         "the old alias of arena_max (GLIBC_TUNABLES wins when both are set)", lo=1,
         env="MALLOC_ARENA_MAX"),
]

JEMALLOC_KNOBS = [
    Knob("jemalloc", "narenas", "uint", "4 x cores", ["1", "2", "4"], "number of arenas", lo=1,
         hi=(1 << 32) - 1),
    Knob("jemalloc", "tcache", "bool", "true", ["false"], "thread caches"),
    Knob("jemalloc", "dirty_decay_ms", "int", "10000", ["0", "1000", "-1"],
         "ms before unused dirty pages are purged (-1 never)", lo=-1, hi=(1 << 62)),
    Knob("jemalloc", "muzzy_decay_ms", "int", "0", ["1000", "-1"],
         "ms before muzzy pages are purged (-1 never)", lo=-1, hi=(1 << 62)),
    Knob("jemalloc", "background_thread", "bool", "false", ["true"], "purge from a background thread"),
]

TCMALLOC_KNOBS = [
    Knob("tcmalloc", "max_total_thread_cache_bytes", "uint", "33554432", ["1048576", "8388608", "134217728"],
         "all thread caches together (tcmalloc clamps to 512K..1G)", hi=(1 << 63) - 1,
         env="TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES"),
    Knob("tcmalloc", "release_rate", "float", "1.0", ["0", "5", "10"],
         "how fast freed pages go back to the kernel (0 never, 10 fastest)", env="TCMALLOC_RELEASE_RATE"),
    Knob("tcmalloc", "aggressive_decommit", "bool", "false", ["true"],
         "decommit free spans at once", env="TCMALLOC_AGGRESSIVE_DECOMMIT"),
]

MIMALLOC_KNOBS = [
    Knob("mimalloc", "eager_commit", "bool", "1", ["0"], "commit segments eagerly", env="MIMALLOC_EAGER_COMMIT"),
    Knob("mimalloc", "decommit_delay", "uint", "25", ["0", "100", "1000"], "ms before freed memory is decommitted",
         hi=(1 << 31) - 1, env="MIMALLOC_DECOMMIT_DELAY"),
    Knob("mimalloc", "allow_decommit", "bool", "1", ["0"], "return memory to the kernel",
         env="MIMALLOC_ALLOW_DECOMMIT"),
    Knob("mimalloc", "page_reset", "bool", "0", ["1"], "reset (madvise) free pages", env="MIMALLOC_PAGE_RESET"),
    Knob("mimalloc", "large_os_pages", "bool", "0", ["1"], "use large OS pages", env="MIMALLOC_LARGE_OS_PAGES"),
]

# Scudo standalone (LLVM 14's compiler-rt, flags.inc): SCUDO_OPTIONS=name=value:name=value. The
# allocator aborts at start-up when quarantine_size_kb > 0 and thread_local_quarantine_size_kb is
# 0 (quarantine.h's CHECK); verify.py says so rather than measure such a point.
SCUDO_KNOBS = [
    Knob("scudo", "release_to_os_interval_ms", "int", "5000", ["0", "1000", "-1"],
         "ms between releases of free pages to the kernel (-1 never)", lo=-1, hi=(1 << 31) - 1),
    Knob("scudo", "quarantine_size_kb", "uint", "0", ["256", "4096"],
         "freed chunks held back before reuse, all threads (needs thread_local_quarantine_size_kb)",
         hi=(1 << 31) - 1),
    Knob("scudo", "thread_local_quarantine_size_kb", "uint", "0", ["64", "1024"],
         "per-thread quarantine cache (0: none; needed by quarantine_size_kb)", hi=(1 << 31) - 1),
    Knob("scudo", "dealloc_type_mismatch", "bool", "false", ["true"],
         "abort when free/delete/delete[] does not match the allocation's kind"),
    Knob("scudo", "zero_contents", "bool", "false", ["true"], "zero every allocation"),
]

# The transparent-huge-page mode of the process, a knob of every family: the runner applies it
# (HEAPBENCH_THP in an env set: PR_SET_THP_DISABLE and the allocator's own switch, docs/DATA.md)
# and says in runs.csv's thp column which mode was in effect; measure.py counts a run only when
# that is the mode asked. No default candidates: only swept when --grid names it (thp=never,always).
THP_ENV = "HEAPBENCH_THP"
for _family, _knobs in (("glibc", GLIBC_KNOBS), ("jemalloc", JEMALLOC_KNOBS), ("tcmalloc", TCMALLOC_KNOBS),
                        ("mimalloc", MIMALLOC_KNOBS), ("scudo", SCUDO_KNOBS)):
    _knobs.append(Knob(_family, "thp", "choice", "madvise", [], "transparent huge pages of the process "
                       "(never, madvise, always; applied by the runner)", choices=["never", "madvise", "always"],
                       env=THP_ENV))

FAMILIES = {"glibc": GLIBC_KNOBS, "jemalloc": JEMALLOC_KNOBS, "tcmalloc": TCMALLOC_KNOBS,
            "mimalloc": MIMALLOC_KNOBS, "scudo": SCUDO_KNOBS}

# The families whose knobs share one variable: (variable, one setting's spelling, separator).
JOINED = {"glibc": ("GLIBC_TUNABLES", "glibc.malloc.{}={}", ":"),
          "jemalloc": ("MALLOC_CONF", "{}:{}", ","),
          "scudo": ("SCUDO_OPTIONS", "{}={}", ":")}


def knobs_family(family):
    """The knob list of a tunables family; KnobError naming the families that have knobs."""
    if family not in FAMILIES:
        raise KnobError(f"allocator knobs of family '{family}' are not catalogued; "
                        f"tune works with {', '.join(sorted(FAMILIES))} (and refmalloc, which uses glibc's)")
    return FAMILIES[family]


def knobs_find(family, name):
    """The knob of a family by short name or full name (glibc.malloc.X, TCMALLOC_X, MIMALLOC_X).

    Raises KnobError listing the valid names of the family.
    """
    knobs = knobs_family(family)
    for knob in knobs:
        if name in (knob.name, knob.env, f"glibc.malloc.{knob.name}"):
            return knob
    raise KnobError(f"unknown {family} knob '{name}'; valid: {', '.join(k.name for k in knobs)}")


def knobs_env(family, settings):
    """Environment variables {NAME: VALUE} of settings, a list of (knob, canonical value) pairs.

    glibc tunables go together into GLIBC_TUNABLES (name=value joined by ':'), jemalloc's into
    MALLOC_CONF (name:value joined by ','), scudo's into SCUDO_OPTIONS (name=value joined by ':');
    knobs with their own variable (env) get it.
    """
    env = {}
    for knob, value in settings:
        if knob.env:
            env[knob.env] = value
            continue
        var, fmt, sep = JOINED[family]
        item = fmt.format(knob.name, value)
        env[var] = env[var] + sep + item if var in env else item
    return env


def knobs_var_family(name):
    """The knob family whose allocator reads environment variable name (GLIBC_TUNABLES: glibc,
    MALLOC_CONF: jemalloc, TCMALLOC_RELEASE_RATE: tcmalloc, ...), None for one the runner applies
    to every allocator (HEAPBENCH_THP) or one no catalogued knob spells."""
    for family, knobs in FAMILIES.items():
        for knob in knobs:
            var = knob.env or JOINED[family][0]
            if var == name and var != THP_ENV:
                return family
    return None


def knobs_env_text(family, settings):
    """The settings as the runner's --env word list ('K=V K2=V2'), '' for the defaults."""
    return " ".join(f"{k}={v}" for k, v in knobs_env(family, settings).items())
