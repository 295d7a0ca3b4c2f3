"""recommend.py - advise's verdicts: each confirmed candidate against the baseline, Holm across them and alpha spent over the rounds' looks, the answer.

Always holds: every verdict is heapbench.stats' (compare's) test of the candidate's samples
against the baseline's from the same interleaved run, its p-value Holm-adjusted over every
candidate confirmed (stats_holm), the verdict stats_verdict's with that family size; the
confirmation looks at its data after each round (at most sequential.LOOKS rounds), and look j
judges at the alpha of heapbench.compare.sequential's rule (look_alphas: alpha spent over the
looks 1 : 2 : 3 : 4), so that the chance of any wrong recommendation over every candidate and
every look stays at or below --alpha; a candidate is recommended only with verdict IMPROVEMENT
in the goal's figure and its whole simultaneous interval of the change below 0 (the interval at
level 1 - 2 x look alpha / candidates: Bonferroni over the candidates and the look, the interval
form of the same correction; for balanced: in one figure, with no REGRESSION in the other),
never when its setting was not verified (it is never measured then); with none, the answer is "keep what you have" only when candidates were
measured on the program and none of them can hide an improvement beyond the threshold (each is
SAME, a REGRESSION, or UNDECIDED with its interval above -threshold), else "undecided" naming
the candidates whose test could not decide. The bound "keep" reads is each candidate's own
one-sided lower bound (keep_low, not widened over the family), at alpha x recommend_keep_share
of the candidate's run number t (0.8 alpha for its first run, 0.1, 0.05, ... for the runs a look
that left it open asks for: the shares add up to at most 1): "keep" claims that no candidate beats
the baseline by more than the threshold, which is wrong only if the one candidate that does has
its own bound above -threshold in the runs the answer reads (an intersection-union test: its
error is at most the sum of that candidate's shares of alpha, whatever the number tested).
"""
import math

from heapbench import stats
from heapbench.compare import sequential

KEEP = "keep what you have"
UNDECIDED = "undecided"
RECOMMEND = "recommend"
# The figure each goal is judged on in the confirm stage (the keys of tune.measure's records).
GOAL_FIGURE = {"time": "time", "memory": "peak", "latency": "time", "balanced": "time"}
FIGURE_NAME = {"time": "time", "peak": "peak RSS", "cpu": "CPU time", "wall": "wall time"}


def recommend_look_alpha(alpha, look):
    """The alpha of the confirmation's look (its round) number look, from 1: sequential.look_alphas'
    share (alpha / 10, 2 alpha / 10, ... at 4 looks); None (no look count): alpha itself."""
    if look is None:
        return alpha
    return sequential.look_alphas(alpha)[min(max(1, look), sequential.LOOKS) - 1]


def recommend_keep_share(tests):
    """The share of alpha the one-sided bound "keep" reads takes for a candidate on its run number
    tests (from 1; a later run replaces the earlier): 0.8 for the first, then 0.1, 0.05, ... (halving),
    so that over every run of one candidate the shares add up to at most 1."""
    return 0.8 if tests <= 1 else 0.2 * 0.5 ** (tests - 1)


def recommend_family_level(alpha, look, family):
    """The level of the simultaneous interval that gates a recommendation at this look: Bonferroni
    over the family's candidates at the look's alpha, two-sided (1 - 2 x alpha_look / family, at least 95%)."""
    return stats.stats_interval_level(recommend_look_alpha(alpha, look) / max(1, family))


def recommend_tests(base, records, figure, threshold, alpha, look=None):
    """{label: test} of each candidate record against base for figure (or against its own round's
    baseline, the record's "vs", when the confirmation ran in rounds), Holm-adjusted across them at
    the look's alpha (recommend_look_alpha; look None: alpha, one look).

    test: stats_cell's figures (ci_low/ci_high: the candidate's own interval at stats_interval_level(alpha),
    which SAME reads) plus keep_low (its one-sided lower bound at alpha x recommend_keep_share of
    the record's "tests", its run number, which "keep" reads),
    family_low/family_high/family_level (the simultaneous interval over
    the candidates and the look, which a recommendation reads), p_adjusted, verdict and needed_reps
    (stats_verdict with the family of every candidate at the look's alpha), and reachable (whether
    these reps can reach significance at all).
    """
    look_alpha = recommend_look_alpha(alpha, look)
    labels = [label for label, rec in records.items() if rec.get(figure + "_samples")]
    family_level = recommend_family_level(alpha, look, len(labels))
    cells = {}
    for label in labels:
        base_samples = (records[label].get("vs") or base).get(figure + "_samples") or []
        cells[label] = stats.stats_cell(base_samples, records[label][figure + "_samples"],
                                        level=stats.stats_interval_level(alpha))
        low, high = stats.stats_ratio_ci(base_samples, records[label][figure + "_samples"], level=family_level)
        keep_alpha = alpha * recommend_keep_share(records[label].get("tests", 1))
        keep_low, _ = stats.stats_ratio_ci(base_samples, records[label][figure + "_samples"], level=1 - 2 * keep_alpha)
        cells[label].update(family_low=low - 1.0, family_high=high - 1.0, family_level=family_level,
                            keep_low=keep_low - 1.0)
    adjusted = stats.stats_holm([cells[label]["p"] for label in labels])
    for label, p_adj in zip(labels, adjusted):
        verdict, needed = stats.stats_verdict(cells[label], p_adj, threshold, look_alpha, family=len(labels))
        cells[label].update(p_adjusted=p_adj, verdict=verdict, needed_reps=needed, look_alpha=look_alpha,
                            reachable=cells[label]["min_p"] <= look_alpha / max(1, len(labels)))
    return cells


def recommend(goal, base, records, threshold, alpha, look=None):
    """The answer as a dict: verdict ('recommend', KEEP or UNDECIDED), label, figure, test, tradeoffs,
    detectable, why, open (the labels whose test could not decide), look and look_alpha.

    base: the baseline's measured record; records: {label: measured record} of the confirmed
    candidates (tune.measure records with the speed axis applied: time = the speed figure); look:
    the confirmation's look (round) this answer is given at (None: a single look at alpha).
    """
    tests = {fig: recommend_tests(base, records, fig, threshold, alpha, look) for fig in ("time", "peak", "cpu", "wall")}
    primary = GOAL_FIGURE[goal]
    winners = []
    for label in records:
        test = tests[primary].get(label)
        if goal == "balanced":
            improves = [f for f in ("time", "peak") if recommend_better(tests[f].get(label))]
            worse = [f for f in ("time", "peak") if tests[f].get(label, {}).get("verdict") == stats.REGRESSION]
            if improves and not worse:
                score = sum(math.log1p(tests[f][label]["change"]) for f in ("time", "peak"))
                winners.append((score, label, improves[0]))
        elif recommend_better(test):
            winners.append((test["change"], label, primary))
    answer = {"goal": goal, "tests": tests, "detectable": recommend_detectable(tests[primary]),
              "figure": primary, "look": look, "look_alpha": recommend_look_alpha(alpha, look)}
    if not winners:
        still = recommend_open(tests[primary], threshold)
        if not records or still:
            answer.update(verdict=UNDECIDED, label="", open=still, why=_why_open(tests[primary], still))
        else:
            answer.update(verdict=KEEP, label="", open=[], why=_why_keep(tests[primary]))
        return answer
    _, label, figure = min(winners)
    answer.update(verdict="recommend", label=label, figure=figure, test=tests[figure][label],
                  tradeoffs={f: tests[f].get(label) for f in ("time", "peak", "cpu", "wall") if f != figure})
    return answer


def recommend_better(test):
    """Whether a candidate's test makes it a recommendation: IMPROVEMENT, and its whole simultaneous
    interval of the change below 0 (the rank test and the bootstrap interval agree: at load ~22 a
    test gave p=0.045 after Holm with the interval [-62%, +13%], which is no answer to deploy)."""
    high = test.get("family_high", test.get("ci_high")) if test else float("nan")
    return bool(test) and test["verdict"] == stats.IMPROVEMENT and not math.isnan(high) and high < 0


def recommend_open(tests, threshold):
    """The labels whose test leaves an improvement beyond threshold possible: neither SAME (the
    interval within +-threshold) nor a REGRESSION, and unreachable at these reps, or with its
    one-sided lower bound at alpha (keep_low) below -threshold."""
    still = []
    for label, t in tests.items():
        if t["verdict"] in (stats.SAME, stats.REGRESSION):
            continue
        low = t.get("keep_low", t["ci_low"])
        if not t.get("reachable", True) or math.isnan(low) or low < -threshold:
            still.append(label)
    return still


def _why_open(tests, still):
    """Why the answer is undecided, in one clause."""
    if not tests:
        return "no candidate was measured on the program"
    parts = []
    for label in still:
        t = tests[label]
        if not t.get("reachable", True):
            parts.append(f"{label} (these reps cannot reach significance after Holm: need {t['needed_reps']} per side)")
        elif not math.isnan(t["ci_low"]):
            more = f", ~{t['needed_reps']} reps per side would likely decide" if t["needed_reps"] else ""
            parts.append(f"{label} {t['change'] * 100:+.1f}% [{t['ci_low'] * 100:+.0f}, {t['ci_high'] * 100:+.0f}]"
                         f"{_why_not_recommended(t, len(tests))}{more}")
        else:
            parts.append(label)
    return "not decided on the program: " + ", ".join(parts)


def _why_not_recommended(test, family):
    """For a candidate significantly better whose simultaneous interval still reaches 0 (which
    withholds a recommendation, recommend_better): that interval and its level, as a clause; else ""."""
    high = test.get("family_high", float("nan"))
    if test["verdict"] != stats.IMPROVEMENT or (not math.isnan(high) and high < 0):
        return ""
    level = recommend_level_text(test.get("family_level", stats.CI_LEVEL))
    if math.isnan(high):
        return f" (its {level} interval over {family} candidate(s) could not be computed: no recommendation)"
    own = recommend_level_text(test.get("ci_level", stats.CI_LEVEL))
    return (f" ({own}; its {level} interval over {family} candidate(s), which a recommendation needs below 0,"
            f" is [{test['family_low'] * 100:+.0f}, {high * 100:+.0f}])")


def recommend_detectable(tests):
    """The smallest relative change these reps could have declared, from the candidates' intervals:
    half the width of the narrowest 95% interval of the change (NaN when none has one)."""
    widths = [w for w in map(stats.stats_resolution, tests.values()) if not math.isnan(w)]
    return min(widths) if widths else float("nan")


def _why_keep(tests):
    """Why nothing was recommended, in one sentence."""
    if not tests:
        return "no candidate was confirmed on the program"
    needed = max((t["needed_reps"] for t in tests.values() if not t.get("reachable", True)), default=0)
    if needed:
        return f"these reps cannot reach significance after Holm's correction (need {needed} per side)"
    best = min(tests.items(), key=lambda kv: kv[1]["change"] if not math.isnan(kv[1]["change"]) else math.inf)
    return (f"no candidate beat the baseline beyond noise (closest: {best[0]} "
            f"{best[1]['change'] * 100:+.1f}%, Holm-adjusted p={best[1]['p_adjusted']:.3g})")


def recommend_agreement(screen_rank, confirm_rank):
    """Kendall's tau between the screen's and the confirmation's order of the same candidates
    (NaN with fewer than 3 in common): how far the replay predicted the real program."""
    common = [label for label in confirm_rank if label in screen_rank]
    if len(common) < 3:
        return float("nan")
    from scipy import stats as scipy_stats
    tau = scipy_stats.kendalltau([screen_rank[c] for c in common], [confirm_rank[c] for c in common]).statistic
    return float(tau)


def recommend_text(answer, metric_name=None):
    """One line: the answer with its interval and its trade-off, or KEEP with the detectable difference."""
    if answer["verdict"] == UNDECIDED:
        return f"{UNDECIDED}: {answer['why']}"
    if answer["verdict"] == KEEP:
        detect = answer["detectable"]
        seen = f"; these reps could have seen a difference of about ±{detect * 100:.0f}%" if not math.isnan(detect) else ""
        return f"{KEEP}: {answer['why']}{seen}"
    test = answer["test"]
    name = FIGURE_NAME.get(answer["figure"], answer["figure"])
    if answer["figure"] == "time" and metric_name:
        name = f"time per {metric_name}"
    low, high = test.get("family_low", test["ci_low"]), test.get("family_high", test["ci_high"])
    level = test.get("family_level", stats.CI_LEVEL)
    family = len(answer["tests"][answer["figure"]])
    look = f", look {answer['look']} of {sequential.LOOKS}" if answer.get("look") else ""
    parts = [f"{answer['label']}: {name} {test['change'] * 100:+.1f}% [{low * 100:+.0f}, {high * 100:+.0f}] "
             f"(Holm-adjusted p={test['p_adjusted']:.3g} at alpha {test.get('look_alpha', 0.05):.3g}{look}; "
             f"the {recommend_level_text(level)} interval over {family} candidate(s))"]
    for fig, other in answer["tradeoffs"].items():
        if fig == "wall" and not metric_name:
            continue  # the time figure is wall time itself
        if other and not math.isnan(other["change"]):
            parts.append(f"{FIGURE_NAME.get(fig, fig)} {other['change'] * 100:+.1f}%")
    return ", ".join(parts)


def recommend_level_text(level):
    """An interval's level as a percentage, to two decimals without trailing zeros (95%, 99.5%, 99.75%)."""
    return f"{level * 100:.2f}".rstrip("0").rstrip(".") + "%"
