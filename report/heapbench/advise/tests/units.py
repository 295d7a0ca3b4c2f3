"""units.py - advise's unit checks (no runner needed): the trace statistics reader, the relevant knobs,
the candidates, the verdicts with Holm (keep only when decided, else undecided), the budget plan and
its clock (live: the running children's CPU counted), the watchdog at the budget, the speed figure's
choice, the stop on SIGTERM, the snippets.

Always holds: prints one `PASS name` or `FAIL name: why` line per check and nothing else on stdout;
every expected value is worked out by hand from the fixture.
"""
import io
import os
import signal
import subprocess
import sys
import tempfile
import time

from heapbench import cli, registry, stats
from heapbench.advise import advise, answer, budget, candidates, choose, profile, progress, recommend, snippets, stop, watchdog

TRACE_TEXT = """trace: /tmp/x.hbt
format version: 2
original run: 0.586770 s wall, 33400 KiB peak RSS (without the recorder)
threads: 9 (with events: 9)
operations: 16493
  malloc: 8225 (49.9%)
  free: 8244 (50.0%)
objects: 8249 produced, 5 live at end (5248 bytes)
peak live bytes: 4163904 at 0.102059 s
mapped by the program: 0 bytes in 0 mmaps, 0 munmaps; peak 0 bytes at 0.000000 s; 0 bytes in 0 mappings at end
peak live + mapped bytes: 4163904 at 0.102059 s
cross-thread frees: 824 of 8244 (10.0%)
size histogram (requested bytes):
  257..512: 8 (0.1%)
  2049..4096: 8200 (99.4%)
  131073..262144: 41 (0.5%)
lifetime histogram (objects):
  < 1 ms: 242 (2.9%)
  < 100 ms: 7089 (85.9%)
  < 1 s: 918 (11.1%)
"""


def check(name, condition, why=""):
    """Prints the PASS/FAIL line of one check."""
    print(f"PASS {name}" if condition else f"FAIL {name}: {why}", flush=True)


def test_profile():
    """The trace statistics and the traits they make relevant."""
    s = profile.profile_parse(TRACE_TEXT)
    check("profile-parse", (s["threads"], s["ops"], s["mallocs"], s["peak_live"], s["cross_frees"], s["frees"],
                            s["original_wall"], s["original_peak_kb"]) == (9, 16493, 8225, 4163904, 824, 8244,
                                                                             0.58677, 33400), s)
    check("profile-sizes", s["sizes"] == [(257, 512, 8), (2049, 4096, 8200), (131073, 262144, 41)], s["sizes"])
    check("profile-lifetimes", s["lifetimes"] == [("< 1 ms", 242), ("< 100 ms", 7089), ("< 1 s", 918)], s["lifetimes"])
    traits = [t for t, _, _ in profile.profile_traits(s)]
    # 9 threads; 10% cross-thread frees; 41 of 8249 (0.5%) large: below 1%; 918/8249 = 11% long-lived.
    check("profile-traits", traits == ["threads", "cross-thread", "long-lived"], traits)


def test_candidates():
    """Each allocator's defaults first, then its key settings with the hinted knobs first; no knobs, defaults only."""
    entries = registry.read_registry()
    cands = candidates.candidates_for(entries["glibc"], "glibc", ["tcache_count"])
    labels = [c.label() for c in cands]
    check("candidates-hint-first", labels[:3] == ["glibc", "glibc tcache_count=0", "glibc tcache_count=64"], labels)
    check("candidates-env", cands[1].env_text() == "GLIBC_TUNABLES=glibc.malloc.tcache_count=0", cands[1].env_text())
    tbb = candidates.candidates_for(entries["tbbmalloc"], "", ["arena_max"])
    check("candidates-no-tunables", [c.label() for c in tbb] == ["tbbmalloc"], [c.label() for c in tbb])
    try:
        candidates.candidates_installed(["nosuch"])
        check("candidates-unknown", False, "accepted")
    except ValueError as err:
        check("candidates-unknown", "unknown allocator 'nosuch'" in str(err), str(err))


def _rec(time, peak):
    """A confirmed record: samples of time and peak (cpu and wall = time)."""
    return {"time_samples": time, "peak_samples": peak, "cpu_samples": time, "wall_samples": time}


def test_keep_covered():
    """A screen that ranks glibc first: "keep what you have" stands only when the candidates ranked after it
    (the screen's best RESERVE_K) ran on the program; one left untested makes the answer undecided."""
    rows = [{"stage": "screen", "allocator": a, "settings": [], "label": label, "env": env, "time": t, "peak_kb": 100,
             "baseline": label == "glibc"} for a, label, env, t in
            (("glibc", "glibc", "", 1.0), ("jemalloc", "jemalloc", "", 1.2), ("tcmalloc", "tcmalloc", "", 1.1),
             ("glibc", "glibc arena_max=1", "GLIBC_TUNABLES=glibc.malloc.arena_max=1", 1.3))]
    order = choose.choose(rows, "time", program=True)
    check("keep-screen-glibc-first-order", [c["label"] for c in order][:2] == ["tcmalloc", "jemalloc"], order)
    base = dict(_rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98], [100.0] * 6), reps_ok=6)
    slower = dict(_rec([1.3, 1.31, 1.29, 1.32, 1.3, 1.28], [100.0] * 6), reps_ok=6)
    for tested, verdict in ((1, recommend.UNDECIDED), (2, recommend.KEEP)):
        conf = {"chosen": order[:tested], "untested": order[tested:]}
        records = {c["label"]: slower for c in order[:tested]}
        got = recommend.recommend("time", base, records, 0.05, 0.05)
        check(f"keep-before-guard-{tested}", got["verdict"] == recommend.KEEP, got["verdict"])
        answer.answer_keep_covered(got, conf, records, {}, "program")
        check(f"keep-covered-{tested}-tested", got["verdict"] == verdict, (tested, got))
    check("keep-names-untested", "1 other candidate(s) ranked below them by short runs of the program were not: "
          "glibc arena_max=1" in got["why"] and "run on the program: tcmalloc, jemalloc" in got["why"], got["why"])
    refused = recommend.recommend("time", base, {"tcmalloc": slower}, 0.05, 0.05)
    answer.answer_keep_covered(refused, {"chosen": order[:2], "untested": order[2:]}, {"tcmalloc": slower},
                               {"jemalloc": "failed in 3 of 6 runs"}, "program")
    check("keep-refused-counts-as-run", refused["verdict"] == recommend.KEEP, refused)


def test_recommend_rounds():
    """Candidates confirmed in rounds: each is tested against its own round's baseline ("vs"), Holm over all."""
    fast_round = _rec([0.5, 0.51, 0.49, 0.5, 0.52, 0.5], [100.0] * 6)
    cand = _rec([0.5, 0.5, 0.51, 0.49, 0.5, 0.51], [100.0] * 6)
    slow_first = _rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98], [100.0] * 6)
    other = _rec([1.3, 1.31, 1.29, 1.32, 1.3, 1.28], [100.0] * 6)
    alone = recommend.recommend_tests(slow_first, {"c": cand, "o": other}, "time", 0.05, 0.05)
    check("rounds-without-vs-sees-a-change", alone["c"]["change"] < -0.4, alone["c"]["change"])
    tests = recommend.recommend_tests(slow_first, {"c": dict(cand, vs=fast_round), "o": other}, "time", 0.05, 0.05)
    check("rounds-vs-own-baseline", abs(tests["c"]["change"]) < 0.03 and tests["c"]["verdict"] != "IMPROVEMENT"
          and tests["o"]["change"] > 0.25, {k: (t["change"], t["verdict"]) for k, t in tests.items()})


def test_recommend():
    """Holm over the candidates; a clear memory win is recommended with its interval; noise is KEEP."""
    base = _rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98], [100.0, 101, 99, 100, 102, 100])
    win = _rec([1.0, 1.02, 0.99, 1.01, 1.0, 0.97], [60.0, 61, 59, 60, 62, 61])
    noise = _rec([1.01, 0.99, 1.0, 1.02, 0.98, 1.0], [100.0, 99, 101, 100, 100, 102])
    answer = recommend.recommend("memory", base, {"a": win, "b": noise}, 0.05, 0.05)
    t = answer.get("test", {})
    check("recommend-memory-win", answer["verdict"] == "recommend" and answer["label"] == "a"
          and t["ci_high"] < -0.3 and abs(t["change"] + 0.4) < 0.02, answer)
    # 6 vs 6, complete separation: p = 2 * 2 / C(12, 6) = 0.004329; Holm over 2 (the smallest first): x2.
    check("recommend-holm", abs(t["p_adjusted"] - 2 * 4 / 924) < 1e-9, t.get("p_adjusted"))
    keep = recommend.recommend("time", base, {"a": win, "b": noise}, 0.05, 0.05)
    check("recommend-keep", keep["verdict"] == recommend.KEEP and "beyond noise" in keep["why"], keep.get("why"))
    check("recommend-keep-text", recommend.recommend_text(keep).startswith("keep what you have: ")
          and "could have seen a difference of about" in recommend.recommend_text(keep), recommend.recommend_text(keep))
    few = recommend.recommend("memory", _rec([1, 1.1], [100, 101]), {"a": _rec([1, 1.1], [50, 51])}, 0.05, 0.05)
    check("recommend-too-few-reps-undecided", few["verdict"] == recommend.UNDECIDED and "need 5 per side" in few["why"],
          few.get("why"))
    # A candidate whose interval still reaches an improvement beyond the threshold: undecided, not keep.
    wide = _rec([1.0, 0.7, 1.3, 0.8, 1.2, 0.9], [100.0] * 6)
    und = recommend.recommend("time", base, {"w": wide}, 0.05, 0.05)
    check("recommend-wide-interval-undecided", und["verdict"] == recommend.UNDECIDED and und["open"] == ["w"]
          and recommend.recommend_text(und).startswith("undecided: "), und.get("why"))
    check("recommend-needs-interval-below-0", not recommend.recommend_better(
        {"verdict": "IMPROVEMENT", "ci_low": -0.62, "ci_high": 0.13}) and recommend.recommend_better(
        {"verdict": "IMPROVEMENT", "ci_low": -0.62, "ci_high": -0.2}))
    # Significantly better, but its simultaneous interval reaches 0: undecided, and the answer says that interval.
    saved = stats.stats_ratio_ci
    stats.stats_ratio_ci = lambda b, n, seed=0, level=0.95, resamples=0: (0.3, 1.05) if level >= 0.99 else (0.45, 0.6)
    try:
        sure = _rec([0.5, 0.51, 0.49, 0.5, 0.52, 0.5, 0.48, 0.5, 0.51, 0.49], [100.0] * 10)
        wide10 = _rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98, 1.0, 1.01, 0.99, 1.0], [100.0] * 10)
        held = recommend.recommend("time", wide10, {"m": sure}, 0.05, 0.05, look=1)
    finally:
        stats.stats_ratio_ci = saved
    check("recommend-undecided-names-simultaneous-interval", held["verdict"] == recommend.UNDECIDED
          and held["tests"]["time"]["m"]["verdict"] == stats.IMPROVEMENT
          and "m -50.0% [-55, -40] (95%; its 99% interval over 1 candidate(s), which a recommendation needs below 0,"
          " is [-70, +5])" in held["why"], held.get("why"))
    none = recommend.recommend("time", base, {}, 0.05, 0.05)
    check("recommend-nothing-measured-undecided", none["verdict"] == recommend.UNDECIDED, none.get("verdict"))
    slower = _rec([1.3, 1.31, 1.29, 1.32, 1.3, 1.28], [100.0] * 6)
    kept = recommend.recommend("time", base, {"s": slower, "b": noise}, 0.05, 0.05)
    check("recommend-keep-when-tested", kept["verdict"] == recommend.KEEP, kept.get("why"))


def _false_changes(trials, spend, seed=7, reps=10, k=4):
    """The share of seeded trials of the confirmation's 4 rounds (k new candidates each, each round with
    its own baseline, nothing different from the baseline) in which some look called a candidate a
    change (IMPROVEMENT or REGRESSION: the family-wise error Holm bounds). The test's p-value is drawn
    uniform (an exact test: the worst case a rule must hold under) and the interval never stands in the
    way; spend: each look at its sequential alpha (recommend's looks), else alpha at every look."""
    import random
    rng = random.Random(seed)
    saved = stats.stats_p_value, stats.stats_ratio_ci
    stats.stats_p_value = lambda base, new: rng.random()
    stats.stats_ratio_ci = lambda base, new, seed=0, level=0.95, resamples=0: (0.5, 0.9)
    try:
        errors = 0
        for _ in range(trials):
            records = {}
            for look in range(1, 5):
                base = {"time_samples": [1.0 + rng.random() for _ in range(reps)]}
                records.update({f"c{look}.{c}": {"time_samples": [1.0 + rng.random() for _ in range(reps)], "vs": base}
                                for c in range(k)})
                got = recommend.recommend("time", base, records, 0.0, 0.05, look=look if spend else None)
                if any(t["verdict"] in (stats.IMPROVEMENT, stats.REGRESSION) for t in got["tests"]["time"].values()):
                    errors += 1
                    break
        return errors / trials
    finally:
        stats.stats_p_value, stats.stats_ratio_ci = saved


def _wrong_keeps(trials, share=None, seed=11):
    """The share of seeded trials in which "keep" reads a candidate as closed although it beats the baseline
    by exactly the threshold (-5%, the worst case of a wrong keep): the candidate runs again while its look
    leaves it open, up to 4 runs. Each one-sided bound is drawn to lie above the truth with exactly its
    nominal chance (an exact interval); share: the keep's share of alpha per run (None: recommend's)."""
    import random
    rng = random.Random(seed)
    saved = stats.stats_ratio_ci, recommend.recommend_keep_share
    stats.stats_ratio_ci = lambda base, new, seed=0, level=0.95, resamples=0: (
        0.955 if rng.random() < (1 - level) / 2 else 0.945, 1.10)
    if share:
        recommend.recommend_keep_share = share
    try:
        samples = [1.0 + 0.05 * i for i in range(10)]
        base, errors = _rec(samples, [100.0] * 10), 0
        for _ in range(trials):
            for run in range(1, 5):
                rec = dict(_rec(samples, [100.0] * 10), tests=run)
                if not recommend.recommend_open(recommend.recommend_tests(base, {"c": rec}, "time", 0.05, 0.05, run), 0.05):
                    errors += 1
                    break
        return errors / trials
    finally:
        stats.stats_ratio_ci, recommend.recommend_keep_share = saved


def test_keep_runs_again():
    """A candidate a look left open runs again and its new runs replace the old: "keep" splits its alpha
    over the runs (0.8, 0.1, 0.05, ...), so a wrong keep stays at or below alpha; alpha on every run does not."""
    shares = [recommend.recommend_keep_share(t) for t in range(1, 30)]
    check("keep-shares-add-up-to-at-most-1", shares[0] == 0.8 and shares[1] == 0.1 and sum(shares) <= 1.0, shares[:4])
    trials = 2000
    split, whole = _wrong_keeps(trials), _wrong_keeps(trials, share=lambda t: 1.0)
    margin = 2 * (0.05 * 0.95 / trials) ** 0.5
    check("keep-split-holds-alpha", split <= 0.05 + margin, split)
    check("keep-whole-alpha-every-run-exceeds-it", whole > 0.05 + margin, whole)
    base = _rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98, 1.01, 0.99, 1.0, 1.02], [100.0] * 10)
    cand = _rec([1.0, 0.97, 1.03, 0.99, 1.01, 0.96, 1.02, 1.0, 0.98, 1.04], [100.0] * 10)
    first = recommend.recommend_tests(base, {"c": dict(cand, tests=1)}, "time", 0.05, 0.05, 1)["c"]["keep_low"]
    again = recommend.recommend_tests(base, {"c": dict(cand, tests=2)}, "time", 0.05, 0.05, 2)["c"]["keep_low"]
    check("keep-bound-wider-on-runs-again", again < first, (first, again))


def test_looks():
    """The confirmation's rounds are looks: alpha spent over them by the sequential rule of ci --ab, Holm over
    the candidates at each look, a recommendation's interval simultaneous over both; keep's stays per candidate."""
    alphas = [recommend.recommend_look_alpha(0.05, j) for j in range(1, 5)]
    check("looks-alpha-spent", [round(a, 6) for a in alphas] == [0.005, 0.01, 0.015, 0.02]
          and abs(sum(alphas) - 0.05) < 1e-12, alphas)
    # look 1 over 4 candidates: 1 - 2 x 0.005 / 4 = 0.9975; a single look of one candidate: 95%.
    check("looks-family-level", abs(recommend.recommend_family_level(0.05, 1, 4) - 0.9975) < 1e-12
          and recommend.recommend_family_level(0.05, None, 1) == 0.95, recommend.recommend_family_level(0.05, 1, 4))
    base = _rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98, 1.01, 0.99, 1.0, 1.02], [100.0] * 10)
    win = _rec([0.9, 0.93, 0.88, 0.91, 0.9, 0.87, 0.92, 0.9, 0.89, 0.95], [100.0] * 10)
    noise = _rec([1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.0], [100.0] * 10)
    tests = recommend.recommend_tests(base, {"w": win, "n": noise}, "time", 0.05, 0.05, look=1)
    w = tests["w"]
    check("looks-family-interval-wider", w["family_low"] <= w["ci_low"] and w["family_high"] >= w["ci_high"]
          and w["family_level"] > w["ci_level"] and w["ci_level"] == 0.95, w)
    # 10 vs 10: p = 2 x 2 / C(20, 10) = 2.2e-5, Holm over 2 = 4.3e-5 <= look 1's 0.005.
    check("looks-holm-at-look-alpha", w["verdict"] == stats.IMPROVEMENT and w["look_alpha"] == 0.005, w["verdict"])
    text = recommend.recommend_text(recommend.recommend("time", base, {"w": win, "n": noise}, 0.05, 0.05, look=1))
    check("looks-text-names-level", "at alpha 0.005, look 1 of 4; the 99.5% interval over 2 candidate(s)" in text, text)
    # keep reads each candidate's one-sided bound at alpha (not the two-sided 95% interval, nor the family's).
    undecided = {"verdict": stats.UNDECIDED, "ci_low": -0.07, "ci_high": 0.03, "reachable": True}
    check("looks-keep-reads-one-sided-bound", recommend.recommend_open({"a": dict(undecided, keep_low=-0.04)}, 0.05) == []
          and recommend.recommend_open({"a": dict(undecided, keep_low=-0.06)}, 0.05) == ["a"])
    check("looks-keep-bound-level", w["keep_low"] >= w["ci_low"], (w["keep_low"], w["ci_low"]))
    # The seeded synthetic case: 4 rounds of 4 candidates equal to the baseline. Alpha at every look lets the
    # family-wise error grow past alpha with the rounds; spent over the looks it stays at or below it.
    trials = 800
    spent, unspent = _false_changes(trials, True), _false_changes(trials, False)
    margin = 2 * (0.05 * 0.95 / trials) ** 0.5
    check("looks-spent-holds-alpha", spent <= 0.05 + margin, spent)
    check("looks-unspent-exceeds-alpha", unspent > 0.05 + margin, unspent)


class _Rounds(advise.Advise):
    """An Advise whose confirmation rounds are recorded, not run: each round's (tag, labels, look, reps cap);
    the prior rounds' records a fixture (tcmalloc's interval too wide to decide, jemalloc slower)."""

    def __init__(self, st):  # no runner, no directory: only what confirm() reads
        self.opts, self.st, self.calls = st["opts"], st, []

    def records(self, conf=None):
        base = dict(_rec([1.0, 1.01, 0.99, 1.02, 1.0, 0.98, 1.01, 0.99, 1.0, 1.02], [100.0] * 10), reps_ok=10)
        fixture = {"tcmalloc": _rec([1.0, 0.7, 1.3, 0.8, 1.2, 0.9, 1.0, 0.7, 1.3, 0.8], [100.0] * 10),
                   "jemalloc": _rec([1.3, 1.31, 1.29, 1.32, 1.3, 1.28, 1.3, 1.31, 1.29, 1.3], [100.0] * 10)}
        return base, {c["label"]: dict(fixture.get(c["label"], base), reps_ok=10) for c in conf["chosen"]}, "time", {}

    def confirm_plan(self, remaining, family_before, max_reps, look):
        self.plan = (look, family_before, max_reps)
        return min(2, len(remaining)), 9, 1.0

    def confirm_round(self, tag, batch, reps, cost, total):
        self.calls.append((tag, [c["label"] for c in batch]) + self.plan)
        return True

    still = set()  # the labels every look leaves open (run again in the next round)

    def confirm_look(self, rounds, tested, remaining):
        return "", self.still  # undecided at every look: the rounds go on while candidates and looks are left

    def save(self, stage, result):
        self.st["done"][stage] = result


def test_resume_looks():
    """--resume --budget N after an undecided answer continues the confirmation's looks (the alpha already
    spent stays spent): the next round is look 2, with the candidate look 1 left open run again and the one
    never run; a fresh confirmation starts at look 1; once the 4 looks are taken, --resume refuses (exit 2)."""
    rows = [{"stage": "screen", "allocator": a, "settings": [], "label": label, "env": env, "time": t, "peak_kb": 100,
             "baseline": label == "glibc"} for a, label, env, t in
            (("glibc", "glibc", "", 1.0), ("jemalloc", "jemalloc", "", 1.2), ("tcmalloc", "tcmalloc", "", 1.1),
             ("glibc", "glibc arena_max=1", "GLIBC_TUNABLES=glibc.malloc.arena_max=1", 1.3))]
    order = choose.choose(rows, "time", program=True)  # tcmalloc, jemalloc, glibc arena_max=1

    def state(rounds):
        conf = {"dir": "confirm", "rounds": rounds, "chosen": order[:2], "untested": order[2:], "reps": 9}
        return {"opts": {"budget": 100, "alpha": 0.05, "goal": "time", "threshold": 5}, "verdict": "undecided",
                "cut": ["confirm"], "dropped": ["confirmation of glibc arena_max=1"],
                "done": {"screen": {"candidates": rows, "mode": "program"}, "confirm": conf}}
    fresh = _Rounds({"opts": {"budget": 100, "alpha": 0.05, "goal": "time", "threshold": 5}, "dropped": [],
                     "done": {"screen": {"candidates": rows, "mode": "program"}}})
    fresh.confirm()
    check("resume-looks-fresh-starts-at-look-1", fresh.calls == [
        ("confirm", ["tcmalloc", "jemalloc"], 1, 0, budget.MAX_REPS), ("confirm2", ["glibc arena_max=1"], 2, 2, 9)],
        fresh.calls)
    # A look that leaves tcmalloc open runs it again first (before the untested glibc arena_max=1), Holm over
    # the others tested before it, with up to twice the first round's reps; while it stays open, every look.
    again = _Rounds({"opts": {"budget": 100, "alpha": 0.05, "goal": "time", "threshold": 5}, "dropped": [],
                     "done": {"screen": {"candidates": rows, "mode": "program"}}})
    again.still = {"tcmalloc"}
    again.confirm()
    check("looks-open-run-again-first", again.calls == [
        ("confirm", ["tcmalloc", "jemalloc"], 1, 0, budget.MAX_REPS),
        ("confirm2", ["tcmalloc", "glibc arena_max=1"], 2, 1, 18),
        ("confirm3", ["tcmalloc"], 3, 2, 18), ("confirm4", ["tcmalloc"], 4, 2, 18)], again.calls)
    conf = again.st["done"]["confirm"]
    check("looks-open-run-again-saved", [r["labels"] for r in conf["rounds"]][1:] == [
        ["tcmalloc", "glibc arena_max=1"], ["tcmalloc"], ["tcmalloc"]]
        and [c["label"] for c in conf["chosen"]] == ["tcmalloc", "jemalloc", "glibc arena_max=1"]
        and conf["untested"] == [], conf)
    st = state([{"dir": "confirm", "labels": ["tcmalloc", "jemalloc"], "reps": 9}])
    advise.advise_resume_budget(st, 600)
    adv = _Rounds(st)
    adv.confirm()
    # look 1 left tcmalloc open (its interval reaches -30%) and jemalloc decided (slower): tcmalloc runs again
    # with glibc arena_max=1 at look 2, Holm over the 3 candidates (1 before), up to the grown cap of reps.
    check("resume-looks-continue", adv.calls == [("confirm2", ["tcmalloc", "glibc arena_max=1"], 2, 1,
                                                  budget.MAX_REPS_GROWN)], adv.calls)
    conf = st["done"]["confirm"]
    check("resume-looks-saved", [r["dir"] for r in conf["rounds"]] == ["confirm", "confirm2"]
          and [c["label"] for c in conf["chosen"]] == ["tcmalloc", "jemalloc", "glibc arena_max=1"]
          and conf["untested"] == [] and "confirm_before" not in st, conf)
    spent = state([{"dir": "confirm" + (str(j) if j > 1 else ""), "labels": ["tcmalloc"], "reps": 9} for j in range(1, 5)])
    try:
        advise.advise_resume_budget(spent, 600)
        check("resume-looks-spent-refused", False, "no refusal")
    except advise.AdviseStop as err:
        check("resume-looks-spent-refused", err.code == 2 and "took its 4 looks (alpha 0.05 spent over them)" in str(err)
              and "-o NEWDIR" in str(err), str(err))


def test_knownanswer_scoring():
    """The known-answer suite scores a "keep what you have" with no candidate run on the program as wrong
    (whatever its program's right answer), and counts the candidates run on the program, not the baseline."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "knownanswer.py")
    spec = importlib.util.spec_from_file_location("knownanswer", path)
    ka = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ka)
    keep = {"recommendation": {"verdict": "keep what you have", "text": "keep what you have: no room left"},
            "candidates": [{"stage": "screen", "label": "jemalloc", "baseline": False, "reps": 2},
                           {"stage": "confirm", "label": "glibc (baseline)", "baseline": True, "reps": 9}]}
    check("knownanswer-runs-the-clis-binary", ka.cli is cli and not hasattr(ka, "heapbench"))
    check("knownanswer-keep-untested", ka.keep_untested(keep) and ka.tested_on_program(keep) == 0,
          ka.tested_on_program(keep))
    keep["candidates"] += [{"stage": "confirm", "label": "jemalloc", "baseline": False, "reps": 9},
                           {"stage": "confirm", "label": "mimalloc", "baseline": False, "reps": 0}]
    check("knownanswer-keep-tested", not ka.keep_untested(keep) and ka.tested_on_program(keep) == 1,
          ka.tested_on_program(keep))
    # python3-alloc: only trim_threshold=0 cuts its peak RSS beyond the 5% threshold (exec): a keep misses it.
    py = ka.PROGRAMS["python3"][4]
    check("knownanswer-python3-right", py({"verdict": "recommend", "label": "glibc trim_threshold=0"})
          and not py({"verdict": "keep what you have", "label": ""}) and not py({"verdict": "recommend", "label": "jemalloc"}))
    # crossfree is judged by an exec right after its run: an allocator with >= 75% of the best median is right.
    best = {"glibc": 1.0e6, "jemalloc": 6.4e6, "mimalloc": 3.4e6, "tcmalloc": 5.0e6}
    cf = ka.PROGRAMS["crossfree"][4]
    check("knownanswer-crossfree-near-best", cf({"verdict": "recommend", "allocator": "jemalloc"}, best)
          and cf({"verdict": "recommend", "allocator": "tcmalloc"}, best)
          and not cf({"verdict": "recommend", "allocator": "mimalloc"}, best)
          and not cf({"verdict": "recommend", "allocator": "refmalloc"}, best)
          and not cf({"verdict": "keep what you have", "allocator": "jemalloc"}, best) and not cf({}, {}))
    run = {"status": "ok", "workload": "crossfree", "threads": 1, "params": "", "env": "", "wall_s": 0.5,
           "maxrss_kb": 2000, "page_faults": 500, "reason": ""}
    rows = [dict(run, run=i, allocator="glibc", metric_ops=v) for i, v in enumerate((1.0, 3.0, 2.0))]
    rows += [dict(run, run=3, allocator="jemalloc", metric_ops=9.0), dict(run, run=4, allocator="tbbmalloc", metric_ops=None),
             dict(run, run=5, status="timeout", allocator="mimalloc", metric_ops=50.0)]
    data = {"meta": {"metrics": {"ops": "higher"}}, "runs": rows, "phases": []}
    check("knownanswer-medians-ok-runs-only", ka.medians(data) == {"glibc": 2.0, "jemalloc": 9.0}, ka.medians(data))
    check("knownanswer-shares", ka.shares({"glibc": 1.0, "jemalloc": 4.0}) == "jemalloc 1.00, glibc 0.25",
          ka.shares({"glibc": 1.0, "jemalloc": 4.0}))
    # The budget is judged by the larger of advise's own clock and getrusage's CPU seconds of its tree.
    advice = {"elapsed_s": 300.0, "budget_s": 300.0}
    check("knownanswer-overrun-by-getrusage", ka.overrun(advice, 340.0) > 0.10 and abs(ka.overrun(advice, 315.0) - 0.05)
          < 1e-9 and ka.overrun(dict(advice, elapsed_s=200.0), 201.0) == 0.0, ka.overrun(advice, 340.0))
    check("knownanswer-outcomes", [ka.outcome("recommend", True), ka.outcome("undecided", False),
                                   ka.outcome("keep what you have", False)] == ["right", "undecided", "wrong"])
    rows = [{"program": "small", "load_before": "1.0", "load_after": "2.0", "right": o == "right", "within": True,
             "outcome": o, "answer": o, "tau": ""} for o in ("right", "undecided", "wrong", "error")]
    with tempfile.TemporaryDirectory() as out:
        line = [x for x in ka.summary(rows, out, 0) if x.startswith("| small |")]
    check("knownanswer-summary-counts", line and line[0].split(" | ")[2:6] == ["4", "1", "1", "2"], line)


def test_budget():
    """The confirmation's size: reps enough for Holm over K, K as large as fits."""
    plan = budget.budget_confirm_plan(300, 100, 1.0, lambda k: k + 1, 0.05, 6)
    # left = 285 - 100 - 0.6 = 184.4; K = MAX_K = 4 needs 6 reps (min p 2 x 2/924 = 0.0043 <= 0.05/2/4) + 1 warm-up,
    # x 5 cells x 1.15 = 40.25 s: fits, and the reps then fill what is left: 184.4 // 5.75 - 1 = 31, capped at MAX_REPS = 20.
    check("budget-k4", plan is not None and plan[0] == 4 and plan[1] == 20, plan)
    check("budget-none", budget.budget_confirm_plan(20, 19, 1.0, lambda k: k + 1, 0.05, 3) is None)
    check("budget-too-small", budget.budget_too_small(5, 1.0) > 5 and budget.budget_too_small(300, 1.0) == 0.0)
    # The smallest budget counts the screen of every allocator: 7 allocators need more than 2.
    check("budget-smallest-counts-allocators", budget.budget_too_small(1, 1.0, 7) > budget.budget_too_small(1, 1.0, 2) + 9,
          (budget.budget_too_small(1, 1.0, 7), budget.budget_too_small(1, 1.0, 2)))
    # The screen stops before the confirmation's reserve: what is left after it still fits K=1 or 2.
    # Before any run: the floor is the plan of a run of no length; the longest run a budget can answer
    # with inverts budget_smallest (linear in the run's length); the probe stops at a tenth of the budget.
    floor = budget.budget_floor(7, 0.05)
    check("budget-floor-is-plan-at-zero", 0 < floor == budget.budget_smallest(0, 0, 7, 0.05) and floor > 3, floor)
    for total in (10, 60, 300):
        longest = budget.budget_longest_run(total, 7, 0.05)
        check(f"budget-longest-run-inverts-{total}", abs(budget.budget_smallest(longest, longest, 7, 0.05) - total) < 1e-6
              and budget.budget_too_small(total, longest * 1.01, 7) > total and not budget.budget_too_small(total, longest * 0.99, 7),
              longest)
    check("budget-longest-run-below-floor", budget.budget_longest_run(floor / 2, 7, 0.05) == 0.0)
    check("budget-probe-limit", budget.budget_probe_limit(300, 7, 0.05) == 30.0
          and abs(budget.budget_probe_limit(6, 7, 0.05) - 0.6) < 1e-9, budget.budget_probe_limit(6, 7, 0.05))
    check("budget-smallest-counts-probe", budget.budget_need(1, 1, 2, 0.05) - budget.budget_need(0, 0, 2, 0.05)
          > budget.PROBE_REPS + budget.BASELINE_REPS + 2.5 + 2 * budget.PROGRAM_SCREEN_REPS)
    # The reserve: 5% of the budget, at least RESERVE_S (the recommendation's own cost at a budget of a few s).
    check("budget-reserve-floor", budget.budget_reserve(300) == 15.0 and budget.budget_reserve(5) == budget.RESERVE_S
          and budget.budget_with_reserve(3.0) == 3.0 + budget.RESERVE_S
          and abs(budget.budget_with_reserve(95.0) - 100.0) < 1e-9, budget.budget_reserve(5))
    # The budget a refusal suggests is rounded up: "needs about 5.1 CPU s; give --budget 5" refused the 5 it named.
    check("budget-whole-rounds-up", [budget.budget_whole(x) for x in (4.6, 5.0, 5.02, 0.1)] == [5, 5, 6, 1])
    tiny = budget.budget_confirm_plan(5, 2.0, 0.01, lambda k: k + 1, 0.05, 4)
    check("budget-tiny-leaves-reserve", tiny is not None and 2.0 + tiny[2] <= 5 - budget.RESERVE_S + 1e-9, tiny)
    end = budget.budget_screen_end(100, 10, 1.0, 0.05, 7)
    left_after = 100 - budget.budget_reserve(100) - end
    check("budget-screen-leaves-confirm", left_after >= budget.budget_confirm_min(1.0, 0.05, 2) - 1e-9
          and end > 10, (end, left_after))
    check("budget-screen-none-when-tight", budget.budget_screen_end(30, 10, 1.0, 0.05, 7) == 10,
          budget.budget_screen_end(30, 10, 1.0, 0.05, 7))
    check("budget-replay-cost", abs(budget.budget_replay_cost(2_000_000) - (budget.REPLAY_FIXED_S + 1.0)) < 1e-9)
    # A later round of the confirmation: Holm corrects over every candidate tested, so its reps grow.
    first = budget.budget_confirm_plan(3000, 0, 0.01, lambda k: k + 1, 0.05, 4, max_reps=5)
    later = budget.budget_confirm_plan(3000, 0, 0.01, lambda k: k + 1, 0.05, 4, max_reps=5, family_before=12)
    check("budget-later-round-more-reps", first is not None and later is not None and later[1] > first[1]
          and later[1] >= stats.stats_needed_reps(0.05 / budget.POWER_MARGIN, 16), (first, later))
    grown = budget.budget_confirm_plan(3000, 0, 1.0, lambda k: 2, 0.05, 1, max_reps=budget.MAX_REPS_GROWN)
    check("budget-grown-reps", grown is not None and grown[1] == 40, grown)


def test_speed():
    """--speed auto: the metric when read, else the steadier of wall and CPU time in the baseline."""
    steady = {"time_samples": [1.0, 1.01, 0.99], "cpu_samples": [0.5, 0.6, 0.4], "reps_ok": 3}
    check("speed-wall-when-steady", advise.advise_speed("auto", steady)[0] == "wall")
    noisy = {"time_samples": [1.0, 1.45, 0.6], "cpu_samples": [0.5, 0.51, 0.49], "reps_ok": 3}
    axis, why = advise.advise_speed("auto", noisy)
    check("speed-cpu-when-wall-noisy", axis == "cpu" and "±42% in wall time" in why, why)
    check("speed-metric-first", advise.advise_speed("auto", dict(noisy, metric_name="ops"))[0] == "metric")
    check("speed-asked", advise.advise_speed("wall", noisy)[0] == "wall")


def test_stop():
    """SIGTERM to a process with a child and a grandchild in its own session: stop_all ends both within the grace."""
    code = ("import os, subprocess, sys, time\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "from heapbench.advise import stop\n"
            "stop.stop_install()\n"
            "try:\n"
            "    p = subprocess.Popen(['sh', '-c', 'trap \"\" TERM; setsid sleep 60 & echo $! >' + sys.argv[2] + '; wait'],"
            " start_new_session=True)\n"
            "    p.wait()\nexcept KeyboardInterrupt:\n    print('stopped', flush=True)\n    sys.exit(130)\n")
    with tempfile.TemporaryDirectory() as tmp:
        pidfile = os.path.join(tmp, "pid")
        proc = subprocess.Popen([sys.executable, "-c", code, os.path.join(os.path.dirname(__file__), "..", "..", ".."),
                                 pidfile], stdout=subprocess.PIPE, text=True)
        for _ in range(300):
            if os.path.exists(pidfile) and open(pidfile).read().strip():
                break
            time.sleep(0.05)
        grandchild = int(open(pidfile).read())
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        took = time.monotonic() - start
        time.sleep(0.2)
        check("stop-exit-130", proc.returncode == 130 and "stopped" in out, (proc.returncode, out))
        check("stop-within-grace", took < 2.0 + 1.0, took)
        check("stop-grandchild-gone", not stop.stop_alive(grandchild), grandchild)


def test_watchdog():
    """A runner still running at the limit gets SIGINT (here: sleep 30 ends at once); below it, nothing happens."""
    class Clock:
        def __init__(self, value):
            self.value = value

        def elapsed_live(self):
            return self.value
    start = time.monotonic()
    with watchdog.Watchdog(Clock(10.0), 5.0) as dog:
        rc = subprocess.run(["sleep", "30"]).returncode
    check("watchdog-stops-runner", dog.fired() and rc in (-signal.SIGINT, -signal.SIGTERM) and time.monotonic() - start < 5,
          (dog.fired(), rc, time.monotonic() - start))
    with watchdog.Watchdog(Clock(1.0), 5.0) as calm:
        rc = subprocess.run(["sleep", "0.6"]).returncode
    check("watchdog-quiet-below-limit", not calm.fired() and rc == 0, (calm.fired(), rc))
    live = progress.Progress(100, clock="cpu")
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                                "while time.process_time() - t < 0.5: pass\ntime.sleep(30)"])
    time.sleep(0.2)
    # (no speed claim: at load 55 the spinner's 0.4 CPU s took over 10 s of wall time; it had 0.3)
    until = time.monotonic() + 120
    while time.monotonic() < until:
        if live.elapsed_live() - live.elapsed() >= 0.4:
            break
        time.sleep(0.1)
    seen = live.elapsed_live() - live.elapsed()
    spinner.kill()
    spinner.wait()
    check("clock-live-counts-running-children", seen >= 0.4, seen)


def test_clock():
    """--budget-clock: the cpu clock counts the CPU of the children advise waits for, not their waiting;
    the wall clock counts the waiting. A child that sleeps 0.6 s, then one that spins 0.3 s of CPU."""
    wall, cpu = progress.Progress(100, stream=io.StringIO()), progress.Progress(100, stream=io.StringIO(), clock="cpu")
    wall0, cpu0 = wall.elapsed(), cpu.elapsed()  # both count from this process's start
    subprocess.run([sys.executable, "-c", "import time; time.sleep(0.6)"], check=True)
    slept_wall, slept_cpu = wall.elapsed() - wall0, cpu.elapsed() - cpu0
    subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"],
                   check=True)
    spun_cpu = cpu.elapsed() - cpu0 - slept_cpu
    check("clock-wall-counts-waiting", slept_wall >= 0.6, slept_wall)
    # a python3 start costs ~0.02-0.05 CPU s; the sleep itself none
    check("clock-cpu-ignores-waiting", slept_cpu < 0.3, slept_cpu)
    check("clock-cpu-counts-children", 0.3 <= spun_cpu < 0.6, spun_cpu)
    check("clock-units", (wall.unit, cpu.unit) == ("s", "CPU s"), (wall.unit, cpu.unit))
    # The wall clock counts from the process's start, before advise's modules were imported: a process that
    # sleeps 0.5 s before it makes its clock reads at least 0.5 s at once (it read ~0 before).
    code = ("import time; time.sleep(0.5)\nfrom heapbench.advise import progress\n"
            "print(progress.Progress(100, stream=open('/dev/null', 'w')).elapsed())")
    aged = float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout)
    check("clock-wall-counts-from-process-start", 0.5 <= aged < 30, aged)


def test_choose():
    """The screen's front and per-goal bests, the baseline never; the runner's allocator x env cells."""
    rows = [{"allocator": "glibc", "label": "glibc", "env": "", "settings": [], "baseline": True, "time": 1.0,
             "peak_kb": 100.0},
            {"allocator": "glibc", "label": "glibc arena_max=1", "env": "A=1", "settings": [["arena_max", "1"]],
             "baseline": False, "time": 1.2, "peak_kb": 50.0},
            {"allocator": "jemalloc", "label": "jemalloc", "env": "", "settings": [], "baseline": False,
             "time": 0.8, "peak_kb": 120.0},
            {"allocator": "jemalloc", "label": "jemalloc narenas=1", "env": "M=1", "settings": [], "baseline": False,
             "time": 0.9, "peak_kb": 130.0}]
    chosen = [c["label"] for c in choose.choose(rows, "memory")]
    # each allocator's best by peak first, then the rest: jemalloc narenas=1 (dominated) comes last, never before another allocator
    check("choose-memory", chosen == ["glibc arena_max=1", "jemalloc", "jemalloc narenas=1"], chosen)
    check("choose-cells", choose.choose_cells([{"allocator": "jemalloc", "env": "M=1"}]) == 4)
    test_choose_round()


def _family_part(env_text, family):
    """The words of env_text that an allocator of family reads (its family's and those every allocator reads)."""
    return sorted(w for w in env_text.split() if candidates.knobs.knobs_var_family(w.split("=")[0]) in (family, None))


def test_choose_round():
    """A confirmation round runs the baseline and each candidate as itself, the settings of candidates
    of different families sharing one env set: python3-alloc's look of 4 candidates of 4 families
    ran 16 cells (4 allocators x 4 env sets) for the 5 it needed; packed it runs 8."""
    trim = "GLIBC_TUNABLES=glibc.malloc.trim_threshold=0"
    py3 = [{"allocator": "glibc", "label": "glibc trim_threshold=0", "env": trim},
           {"allocator": "refmalloc", "label": "refmalloc trim_threshold=0", "env": trim},
           {"allocator": "jemalloc", "label": "jemalloc dirty_decay_ms=0", "env": "MALLOC_CONF=dirty_decay_ms:0"},
           {"allocator": "tcmalloc-minimal", "label": "tcmalloc-minimal max_total_thread_cache_bytes=1048576",
            "env": "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=1048576"}]
    families = choose.choose_families()
    allocators, envs, cells = choose.choose_round(py3, "", families)
    check("choose-round-python3-cells", len(allocators) * len(envs) == 8 and choose.choose_cells(py3) == 8,
          (allocators, envs))
    check("choose-round-baseline-env-untouched", envs[0] == "", envs)
    needed = {("glibc", "")} | {(c["allocator"], cells[c["label"]]) for c in py3}
    check("choose-round-python3-each-candidate-its-own-cell", len(needed) == 5 and all(
        c["allocator"] in allocators and cells[c["label"]] in envs
        and _family_part(cells[c["label"]], families[c["allocator"]]) == _family_part(c["env"], families[c["allocator"]])
        for c in py3), cells)
    # two settings of one family never share a set; a defaults candidate runs where its family has no word
    same = [{"allocator": "glibc", "label": "a1", "env": "MALLOC_ARENA_MAX=1"},
            {"allocator": "glibc", "label": "a2", "env": "MALLOC_ARENA_MAX=2"},
            {"allocator": "jemalloc", "label": "jemalloc", "env": ""}]
    allocators, envs, cells = choose.choose_round(same, "", families)
    check("choose-round-one-setting-per-family", cells == {"a1": "MALLOC_ARENA_MAX=1", "a2": "MALLOC_ARENA_MAX=2",
                                                           "jemalloc": ""} and len(envs) == 3, (envs, cells))
    # the baseline keeps the caller's variables and takes no other: a glibc setting gets a set of its own,
    # and a variable every allocator reads (HEAPBENCH_THP) is shared only by candidates that set it alike
    allocators, envs, cells = choose.choose_round(py3[:1], "MALLOC_ARENA_MAX=4", families)
    check("choose-round-user-env-baseline-only", envs == ["MALLOC_ARENA_MAX=4", trim], envs)
    thp = [{"allocator": "jemalloc", "label": "jemalloc thp=never", "env": "HEAPBENCH_THP=never"},
           {"allocator": "glibc", "label": "glibc trim_threshold=0", "env": trim}]
    allocators, envs, cells = choose.choose_round(thp, "", families)
    check("choose-round-thp-not-shared", cells["jemalloc thp=never"] == "HEAPBENCH_THP=never"
          and cells["glibc trim_threshold=0"] == trim, cells)
    # the plan: at the same reps the packed round costs half the product's
    packed = budget.budget_confirm_plan(3000, 0, 1.0, lambda k: choose.choose_cells(py3[:k], "", families), 0.05, 4)
    product = budget.budget_confirm_plan(3000, 0, 1.0, lambda k: 16, 0.05, 4)
    check("choose-round-plan-cost", packed and product and packed[0] == product[0] == 4 and packed[1] == product[1]
          and abs((packed[2] - budget.RUNNER_OVERHEAD) * 2 - (product[2] - budget.RUNNER_OVERHEAD)) < 1e-6,
          (packed, product))


def test_snippets():
    """Exactly the measured variables, the Debian package, the glibc alternatives."""
    entries = registry.read_registry()
    out = snippets.snippets(entries["jemalloc"], {"MALLOC_CONF": "narenas:1"}, (), ["./prog", "a b"])
    check("snippets-shell", out["shell"] == f"LD_PRELOAD={entries['jemalloc'].library} MALLOC_CONF=narenas:1 ./prog 'a b'",
          out["shell"])
    check("snippets-docker", "apt-get install -y --no-install-recommends libjemalloc2" in out["dockerfile"]
          and 'ENV MALLOC_CONF="narenas:1"' in out["dockerfile"], out["dockerfile"])
    check("snippets-k8s", '- name: MALLOC_CONF\n  value: "narenas:1"' in out["kubernetes"], out["kubernetes"])
    check("snippets-systemd", 'Environment="MALLOC_CONF=narenas:1"' in out["systemd"] and "glibc" not in out, out)
    knob = candidates.knobs.knobs_find("glibc", "arena_max")
    g = snippets.snippets(entries["glibc"], {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, ((knob, "2"),), ["p"])
    check("snippets-glibc", g["shell"] == "GLIBC_TUNABLES=glibc.malloc.arena_max=2 p" and "mallopt(M_ARENA_MAX, 2);"
          in g["glibc"] and "MALLOC_ARENA_MAX=2" in g["glibc"], g)


if __name__ == "__main__":
    for test in (test_profile, test_candidates, test_keep_covered, test_recommend_rounds, test_recommend, test_looks, test_keep_runs_again, test_resume_looks, test_knownanswer_scoring, test_budget, test_speed, test_stop, test_watchdog, test_clock, test_choose,
                 test_snippets):
        test()
