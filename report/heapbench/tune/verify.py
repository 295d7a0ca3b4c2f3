"""verify.py - did a point's settings really take effect? Asked of the allocator itself, before the point counts.

Always holds: verify_point() returns (True, how it was checked) only when every knob of the
point was read back from the allocator (or, where the allocator has no way to say, the value's
format was checked and the reason says so); otherwise (False, why) and the point is reported
`not applied`, never as a result. Each check runs a tiny program (/bin/true, the dynamic loader,
or python3 for tcmalloc's C API) under exactly the environment the point's runs get.

How each family is asked:
  glibc     `ld.so --list-tunables` (effective values after the loader's own range check), then
            the ranges glibc 2.36's malloc enforces silently (knob.malloc_max, hugetlb's needs);
  refmalloc REFMALLOC_REPORT=1: it writes `refmalloc: glibc.malloc.NAME=VALUE (from ...)` lines;
  jemalloc  "<jemalloc>: Invalid conf" warnings, and the opt.* values of its JSON stats dump;
  mimalloc  MIMALLOC_VERBOSE=1: its option dump and "invalid value" warnings;
  tcmalloc  MallocExtension_GetNumericProperty through ctypes (no property for the release rate);
  scudo     scudoprobe.py under python3: the quarantine limits of __scudo_print_stats, reused blocks'
            contents (zero_contents), a release to the kernel before / after the interval
            (release_to_os_interval_ms), operator new then free (dealloc_type_mismatch), and no
            "Scudo ERROR" or unrecognized-flag warning.
"""
import json
import os
import re
import subprocess

from heapbench.tune import knobs

LOADER = "/lib64/ld-linux-x86-64.so.2"
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
# Variables of every family; removed from the inherited environment so only the point's count.
FAMILY_VARS = re.compile(r"^(GLIBC_TUNABLES|MALLOC_ARENA_MAX|MALLOC_ARENA_TEST|MALLOC_CONF|TCMALLOC_\w+|"
                         r"MIMALLOC_\w+|REFMALLOC_\w+|SCUDO_OPTIONS|LD_PRELOAD)$")
TCMALLOC_PROPS = {"max_total_thread_cache_bytes": "tcmalloc.max_total_thread_cache_bytes",
                  "aggressive_decommit": "tcmalloc.aggressive_memory_decommit"}
TCMALLOC_PROBE = ("import ctypes,sys\nlib=ctypes.CDLL(None)\nfor name in sys.argv[1:]:\n"
                  " v=ctypes.c_size_t(0)\n ok=lib.MallocExtension_GetNumericProperty(name.encode(),ctypes.byref(v))\n"
                  " print(name, v.value if ok else 'none')\n")


class VerifyTarget:
    """What is tuned: allocator name, its library (None: the system's glibc), its knob family."""

    def __init__(self, name, library, family):
        """name: registry name; library: path preloaded (None: nothing); family: knob family."""
        self.name, self.library, self.family = name, library, family

    def is_refmalloc(self):
        """refmalloc takes glibc's names but answers for itself."""
        return self.name == "refmalloc" or os.path.basename(self.library or "").startswith("librefmalloc")


def verify_clean_env(base=None):
    """A copy of the environment without any allocator variable (so that only a point's settings count)."""
    base = os.environ if base is None else base
    return {k: v for k, v in base.items() if not FAMILY_VARS.match(k)}


def verify_run(argv, env, timeout=30):
    """(exit code, stdout, stderr) of a checking program; (-1, '', why) when it cannot run."""
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        return -1, "", str(err)
    return proc.returncode, proc.stdout, proc.stderr


def verify_point(target, point, point_env):
    """(applied, reason) of one point: point = ((Knob, value), ...), point_env = its variables.

    The default point (nothing set) is applied by definition.
    """
    if not point:
        return True, "defaults"
    runner_set = [k.name for k, _ in point if k.env == knobs.THP_ENV]
    point = tuple((k, v) for k, v in point if k.env != knobs.THP_ENV)
    if not point:
        return True, "thp: applied by the runner, checked in runs.csv's thp column"
    env = verify_clean_env()
    env.update(point_env)
    if target.library:
        env["LD_PRELOAD"] = target.library
    checker = {"glibc": _verify_glibc, "jemalloc": _verify_jemalloc, "mimalloc": _verify_mimalloc,
               "tcmalloc": _verify_tcmalloc, "scudo": _verify_scudo}[target.family]
    if target.is_refmalloc():
        checker = _verify_refmalloc
    problems, notes = checker(point, env)
    if problems:
        return False, "; ".join(problems)
    notes += [f"{name}: checked in runs.csv's thp column" for name in runner_set]
    return True, "; ".join(notes) or "read back"


def _compare(point, actual, source):
    """Problems of knobs whose value read back (actual: {knob name: text}) differs from the one set."""
    problems = []
    for knob, value in point:
        got = actual.get(knob.name)
        if got is None:
            problems.append(f"{knob.name}: {source} does not list it")
        elif not _same(knob, value, got):
            problems.append(f"{knob.name}={value}: {source} has {got}")
    return problems


def _same(knob, value, got):
    """Whether a value read back equals the value set (numbers compared as numbers)."""
    if knob.kind in ("uint", "int", "choice"):
        try:
            return int(str(got), 0) == int(value, 0)
        except ValueError:
            return False
    if knob.kind == "bool":
        return str(got).lower() in (("true", "1") if value in ("true", "1") else ("false", "0"))
    return str(got) == value


def _verify_glibc(point, env):
    """glibc: the loader's effective tunables, then malloc's own limits. Returns (problems, notes)."""
    code, out, err = verify_run([LOADER, "--list-tunables"], env)
    if code != 0:
        return [f"{LOADER} --list-tunables failed ({err.strip() or code})"], []
    effective = dict(re.findall(r"^glibc\.malloc\.(\w+): (\S+)", out, re.M))
    names = {k.name for k, _ in point}
    problems = []
    if {"MALLOC_ARENA_MAX", "arena_max"} <= names:  # measured: GLIBC_TUNABLES wins, in any order
        problems.append("MALLOC_ARENA_MAX: overridden by GLIBC_TUNABLES glibc.malloc.arena_max")
        point = tuple((k, v) for k, v in point if k.name != "MALLOC_ARENA_MAX")
    actual = {k.name: effective.get("arena_max" if k.env else k.name) for k, _ in point}
    problems += _compare(point, actual, "the loader's effective value")
    for knob, value in point:
        if knob.malloc_max is not None and int(value) > knob.malloc_max:
            problems.append(f"{knob.name}={value}: glibc 2.36 malloc ignores values above {knob.malloc_max}")
        if knob.name == "hugetlb":
            problems += _hugetlb_problems(value)
    return problems, ["glibc: loader --list-tunables and malloc's limits"]


def _hugetlb_problems(value):
    """Why glibc.malloc.hugetlb=value would do nothing on this machine ([] when it takes effect)."""
    if value == "1":
        try:
            with open(THP_ENABLED) as fh:
                mode = re.search(r"\[(\w+)\]", fh.read())
        except OSError:
            mode = None
        if not mode or mode.group(1) != "madvise":
            return [f"hugetlb=1: malloc only madvises when THP is [madvise], it is "
                    f"{'[' + mode.group(1) + ']' if mode else 'unknown'}"]
    if value == "2":
        try:
            with open(NR_HUGEPAGES) as fh:
                reserved = int(fh.read().strip() or 0)
        except (OSError, ValueError):
            reserved = 0
        if reserved <= 0:
            return ["hugetlb=2: no huge pages reserved (vm.nr_hugepages=0), malloc falls back silently"]
    return []


def _verify_refmalloc(point, env):
    """refmalloc: its REFMALLOC_REPORT lines. Returns (problems, notes)."""
    env = dict(env, REFMALLOC_REPORT="1")
    code, _, err = verify_run(["/bin/true"], env)
    if code != 0:
        return [f"/bin/true under refmalloc failed ({code}: {err.strip()[:200]})"], []
    reported = dict(re.findall(r"^refmalloc: glibc\.malloc\.(\w+)=(\S+)", err, re.M))
    ignored = re.findall(r"^refmalloc: (glibc\.malloc\.\w+: ignored .*)$", err, re.M)
    actual = {k.name: reported.get("arena_max" if k.env else k.name) for k, _ in point}
    problems = _compare(point, actual, "refmalloc's report")
    return problems + (ignored if problems else []), ["refmalloc: REFMALLOC_REPORT"]


def _verify_jemalloc(point, env):
    """jemalloc: no "Invalid conf" warning, and its opt.* values. Returns (problems, notes)."""
    conf = env.get("MALLOC_CONF", "")
    env = dict(env, MALLOC_CONF=(conf + "," if conf else "") + "stats_print:true,stats_print_opts:Jmdablxeh")
    code, _, err = verify_run(["/bin/true"], env)
    problems = [line.strip() for line in err.splitlines() if "Invalid conf" in line]
    start = err.find('{"jemalloc"')
    if code != 0 or start < 0:
        return problems + [f"jemalloc printed no stats (exit {code}); is LD_PRELOAD of it working?"], []
    try:
        opts, _ = json.JSONDecoder().raw_decode(err[start:])
        opts = opts["jemalloc"]["opt"]
    except (ValueError, KeyError) as exc:
        return problems + [f"jemalloc stats unreadable ({exc})"], []
    actual = {k.name: json.dumps(opts[k.name]) if k.name in opts else None for k, _ in point}
    return problems + _compare(point, actual, "jemalloc opt"), ["jemalloc: opt.* of its stats"]


def _verify_mimalloc(point, env):
    """mimalloc: its verbose option dump and invalid-value warnings. Returns (problems, notes)."""
    code, out, err = verify_run(["/bin/true"], dict(env, MIMALLOC_VERBOSE="1"))
    text = out + err
    problems = [line.strip() for line in text.splitlines() if "invalid value" in line]
    options = dict(re.findall(r"^mimalloc: option '(\w+)': (-?\d+)", text, re.M))
    if code != 0 or not options:
        return problems + [f"mimalloc printed no option dump (exit {code}); is LD_PRELOAD of it working?"], []
    return problems + _compare(point, options, "mimalloc's option dump"), ["mimalloc: MIMALLOC_VERBOSE dump"]


def _verify_tcmalloc(point, env):
    """tcmalloc: its numeric properties through the C API. Returns (problems, notes)."""
    props = [TCMALLOC_PROPS[k.name] for k, _ in point if k.name in TCMALLOC_PROPS]
    code, out, err = verify_run(["/usr/bin/python3", "-c", TCMALLOC_PROBE] + props, env)
    if code != 0:
        return [f"tcmalloc property probe failed ({err.strip()[-200:]})"], []
    values = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    actual = {name: values.get(prop) for name, prop in TCMALLOC_PROPS.items()}
    notes = ["tcmalloc: MallocExtension numeric properties"]
    checked = [(k, v) for k, v in point if k.name in TCMALLOC_PROPS]
    if len(checked) < len(point):
        notes.append("release_rate: tcmalloc has no property for it, only its format was checked")
    return _compare(checked, actual, "tcmalloc"), notes


SCUDO_PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scudoprobe.py")
# Scudo's default release_to_os_interval_ms on Linux (flags.inc): no release before it has passed.
SCUDO_DEFAULT_INTERVAL_MS = 5000


def _scudo_batches(err):
    """[(ms, reused, dirty, releases so far)] of scudoprobe's batches in its stderr."""
    out = []
    for part in re.split(r"^scudoprobe: batch ", err, flags=re.M)[1:]:
        ms, reused, dirty = (int(x) for x in part.split(None, 3)[:3])
        out.append((ms, reused, dirty, sum(int(n) for n in re.findall(r"releases:\s*(\d+)", part))))
    return out


def _verify_scudo(point, env):
    """scudo: scudoprobe.py's statistics and behaviour under the point's SCUDO_OPTIONS. Returns (problems, notes)."""
    values = {k.name: v for k, v in point}
    interval = int(values.get("release_to_os_interval_ms", SCUDO_DEFAULT_INTERVAL_MS))
    argv = ["/usr/bin/python3", SCUDO_PROBE]
    if "release_to_os_interval_ms" in values and interval != 0:
        argv += ["--after", str(SCUDO_DEFAULT_INTERVAL_MS if interval < 0 else min(interval, SCUDO_DEFAULT_INTERVAL_MS))]
    code, _, err = verify_run(argv, env, timeout=60)
    problems = [line.strip() for line in err.splitlines() if line.startswith("Scudo ERROR") or "unrecognized flag" in line]
    batches = _scudo_batches(err)
    limits = re.search(r"Quarantine limits: global: (\d+)K; thread local: (\d+)K", err)
    if code != 0 or not batches or not limits:
        return problems + [f"scudo probe printed no statistics (exit {code}); is LD_PRELOAD of Scudo working?"
                           + (" (quarantine_size_kb > 0 needs thread_local_quarantine_size_kb > 0)"
                              if int(values.get("quarantine_size_kb", 0)) and
                              not int(values.get("thread_local_quarantine_size_kb", 0)) else "")], []
    actual = {"quarantine_size_kb": limits.group(1), "thread_local_quarantine_size_kb": limits.group(2)}
    notes = ["scudo: scudoprobe.py statistics and behaviour"]
    _, reused, dirty, releases = batches[0]
    if "zero_contents" in values:
        zeroed = reused > 0 and dirty == 0
        actual["zero_contents"] = "true" if zeroed else "false" if dirty else None
    if "release_to_os_interval_ms" in values:
        actual["release_to_os_interval_ms"], note = _scudo_interval(interval, batches)
        if note:
            (notes if actual["release_to_os_interval_ms"] is not None else problems).append(note)
    if "dealloc_type_mismatch" in values:
        code, _, err = verify_run(["/usr/bin/python3", SCUDO_PROBE, "--mismatch"], env, timeout=60)
        survived = "scudoprobe: mismatch survived" in err
        actual["dealloc_type_mismatch"] = ("false" if survived else
                                           "true" if "allocation type mismatch" in err else None)
    checked = tuple((k, v) for k, v in point if k.name in actual)
    return problems + _compare(checked, {k: v for k, v in actual.items() if v is not None},
                               "scudo's behaviour"), notes


def _scudo_interval(interval, batches):
    """(the release interval the batches show, as text, or None; a note) for the one set.

    0 releases at once; a positive interval not before it has passed (and, below Scudo's default,
    after it has: the probe's second batch, which must end before the default's first release
    could, else the two cannot be told apart); a negative one never (not even after the default's).
    """
    first_ms, _, _, first = batches[0]
    later = batches[1][3] - first if len(batches) > 1 else None
    if interval == 0:
        return ("0" if first else None), None
    if first and first_ms < (interval if interval > 0 else SCUDO_DEFAULT_INTERVAL_MS):
        return "0", None
    if interval < 0:
        return (str(interval) if later == 0 else None), None
    if interval < SCUDO_DEFAULT_INTERVAL_MS:
        if len(batches) > 1 and batches[1][0] >= SCUDO_DEFAULT_INTERVAL_MS:
            return None, (f"release_to_os_interval_ms={interval}: the probe's second batch ended "
                          f"{batches[1][0]} ms after start, past the default's {SCUDO_DEFAULT_INTERVAL_MS} ms "
                          "(a loaded machine): not told apart from the default; verify again")
        return (str(interval) if later else None), None
    return str(interval), (f"release_to_os_interval_ms={interval}: only 'no release before it' was checked "
                           f"(not told apart from other values >= {SCUDO_DEFAULT_INTERVAL_MS})")
