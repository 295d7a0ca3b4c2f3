"""candidates.py - what advise screens: every installed allocator at its defaults and at its key settings.

Always holds: every setting is a knob of tune's catalogue (heapbench.tune.knobs) at a value the
catalogue parses, and is verified by tune's verify_point before it is measured; a setting
whose verification failed is kept with its reason and never measured or recommended. An
allocator of the registry counts as installed when its library resolves (the system glibc
always does); the teaching allocators (matrix opt-in) are left out.
"""
from heapbench import registry
from heapbench.tune import knobs, verify

# The key settings per knob family: (knob, value) in the order they are tried when the profile
# gives no hint. Each is one knob alone; the profile's hints move the relevant ones first.
KEY_SETTINGS = {
    "glibc": [("arena_max", "2"), ("arena_max", "1"), ("tcache_count", "0"), ("trim_threshold", "0"),
              ("mmap_threshold", "33554432"), ("tcache_count", "64")],
    "jemalloc": [("narenas", "1"), ("dirty_decay_ms", "0"), ("background_thread", "true"), ("tcache", "false"),
                 ("muzzy_decay_ms", "-1")],
    "tcmalloc": [("release_rate", "10"), ("max_total_thread_cache_bytes", "1048576"), ("aggressive_decommit", "true")],
    "mimalloc": [("decommit_delay", "0"), ("eager_commit", "0"), ("large_os_pages", "1")],
    # Scudo's hardening knobs (quarantine, zero_contents, dealloc_type_mismatch) are off by default
    # and only add work, so they are tune's to sweep, not a way to a better answer here.
    "scudo": [("release_to_os_interval_ms", "0"), ("release_to_os_interval_ms", "-1")],
}


class Candidate:
    """One allocator and one setting of its knobs (point: tuple of (Knob, value); () = its defaults)."""

    def __init__(self, entry, family, point):
        """entry: the registry.Allocator; family: its knob family ('' when it has none)."""
        self.entry, self.family, self.point = entry, family, point
        self.applied, self.reason = True, "defaults"

    @property
    def allocator(self):
        """The registry name."""
        return self.entry.name

    def env(self):
        """{NAME: VALUE} of the setting (tune's knobs_env: the one place that spells them)."""
        return knobs.knobs_env(self.family, self.point) if self.point else {}

    def env_text(self):
        """The setting as the runner's --env word list, '' for the defaults."""
        return knobs.knobs_env_text(self.family, self.point) if self.point else ""

    def label(self):
        """'jemalloc narenas=1', 'glibc' (defaults)."""
        settings = " ".join(f"{k.name}={v}" for k, v in self.point)
        return f"{self.allocator} {settings}".strip()

    def is_baseline(self):
        """The system glibc at its defaults: what the program has now."""
        return self.allocator == "glibc" and not self.point


def candidates_installed(names=None):
    """[(registry.Allocator, family)] of the installed default-matrix allocators (or of names, in that order).

    family: the knob family tune knows ('glibc' for refmalloc), '' for one with no catalogued knobs.
    Raises ValueError naming the valid names for an unknown one, or the missing library.
    """
    entries = registry.read_registry()
    chosen = []
    for name in names or [n for n, e in entries.items() if e.matrix == "default"]:
        entry = entries.get(name)
        if entry is None:
            raise ValueError(f"unknown allocator '{name}'; valid: {', '.join(entries)}")
        if entry.library is None:
            if names:
                raise ValueError(f"allocator {name}: none of {entry.libraries} exists; install {entry.package} "
                                 "(make deps) or leave it out of -a")
            continue
        family = entry.tunables if entry.tunables in knobs.FAMILIES else ""
        chosen.append((entry, family))
    return chosen


def candidates_for(entry, family, hints):
    """The candidates of one allocator: its defaults, then its key settings, those the profile's
    hints name first (in hint order), each one knob alone."""
    out = [Candidate(entry, family, ())]
    if not family:
        return out
    settings = KEY_SETTINGS.get(family, [])
    rank = {name: i for i, name in enumerate(hints)}
    ordered = sorted(range(len(settings)), key=lambda i: (rank.get(settings[i][0], len(rank)), i))
    for i in ordered:
        name, value = settings[i]
        knob = knobs.knobs_find(family, name)
        out.append(Candidate(entry, family, ((knob, knob.parse(value)),)))
    return out


def candidates_verify(candidate):
    """Asks the allocator whether the candidate's setting took effect (tune's verify_point); sets
    candidate.applied and candidate.reason; returns candidate.applied."""
    if not candidate.point:
        return True
    target = verify.VerifyTarget(candidate.allocator, candidate.entry.library or None, candidate.family)
    candidate.applied, candidate.reason = verify.verify_point(target, candidate.point, candidate.env())
    return candidate.applied
