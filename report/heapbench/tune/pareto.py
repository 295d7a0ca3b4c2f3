"""pareto.py - the time/memory trade-off of measured points: the Pareto front, the recommendations, the scatter.

Always holds: the front holds exactly the points no other point beats in both time and memory
(ties in both keep both); a recommendation is made only when heapbench.stats' test says the point
beats the default measured in the same run (verdict IMPROVEMENT), and stands only when an
independent run confirms it (pareto_confirm); every ratio is against that
same-run default, so points from different runs are never compared by absolute figures.

A measured point is a dict with at least: label, env (the ready-to-paste text), tag (which run
measured it), time (median s), mem (median KiB of the memory objective), time_samples,
mem_samples; the default point has env ''. A point measured in an earlier run keeps that run's
tag, and is judged against that run's default.
"""
import math

from heapbench import stats

NO_GAIN = "no significant improvement"


def pareto_front(points):
    """The points on the time/memory front, fastest first (each needs numeric time and mem)."""
    usable = [p for p in points if _finite(p["time"]) and _finite(p["mem"])]
    front = [p for p in usable
             if not any(q["time"] <= p["time"] and q["mem"] <= p["mem"]
                        and (q["time"] < p["time"] or q["mem"] < p["mem"]) for q in usable)]
    return sorted(front, key=lambda p: (p["time"], p["mem"]))


def _finite(value):
    """Whether value is a usable number (not None, not NaN)."""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def pareto_defaults(points):
    """{run tag: the default point measured in that run} of a list of measured points."""
    return {p["tag"]: p for p in points if p["env"] == ""}


def pareto_recommend(points, defaults, objective, within, threshold, alpha):
    """The recommendation for one objective of one cell, as a dict.

    defaults: {run tag: default point} (pareto_defaults), each point is judged against the
    default of its own run. objective 'time': the fastest point whose memory is within +within
    (a fraction) of its default's; 'mem': the smallest point whose time is within +within of its default's.
    Keys: objective, line (the ready-to-paste settings, or NO_GAIN), why (when no point was tested), label,
    env (the tested point's settings), verdict, change
    (relative change of the optimised figure against the default), p, needed_reps (0 when the
    sample sizes were enough for the test to decide).
    """
    key, other = ("time", "mem") if objective == "time" else ("mem", "time")
    fits = []
    for p in points:
        base = defaults.get(p["tag"])
        if p["env"] == "" or base is None or not _finite(p[key]) or not _finite(p[other]):
            continue
        if not base[key] or not base[other] or p[other] > base[other] * (1.0 + within):
            continue
        fits.append((p[key] / base[key], p, base))
    result = {"objective": objective, "line": NO_GAIN, "label": "", "verdict": "", "change": float("nan"),
              "p": float("nan"), "why": "no measured point fits"}
    if not any(_finite(p["mem"]) for p in points):
        result["why"] = "no memory figure in this cell (--memory free needs a workload with a free phase)"
    if not any(_finite(p["time"]) for p in points):
        result["why"] = ("no speed figure in this cell: every run failed (a --metric that matched nothing?); "
                         "tune.csv and each phase's runs.csv give the reasons")
    if not fits:
        return result
    # Among the points within threshold of the best ratio, the one that sets the fewest knobs:
    # a knob that does not move the figure beyond the threshold is not worth recommending.
    top = min(r for r, _, _ in fits)
    simplest = min((len(p["label"].split()), r, i) for i, (r, p, _) in enumerate(fits) if r <= top + threshold)
    _, best, best_default = fits[simplest[2]]
    test = stats.compare_samples(best_default[key + "_samples"], best[key + "_samples"], threshold, alpha,
                                   lower_is_better=True)
    result.update(label=best["label"], env=best["env"], verdict=test["verdict"], change=test["change"],
                  p=test["p"], needed_reps=test["needed_reps"])
    if test["verdict"] == stats.IMPROVEMENT:
        result["line"] = best["env"]
    return result


def pareto_confirm(recommendation, base, new, threshold, alpha):
    """Re-tests a recommendation on an independent run: base and new are that run's default and point.

    Adds confirm_verdict, confirm_change, confirm_p; the line becomes NO_GAIN unless the
    independent run also gives IMPROVEMENT (a missing measurement does not confirm).
    """
    key = recommendation["objective"]
    if base is None or new is None:
        recommendation.update(confirm_verdict="not measured", confirm_change=float("nan"), confirm_p=float("nan"))
    else:
        test = stats.compare_samples(base[key + "_samples"], new[key + "_samples"], threshold, alpha,
                                       lower_is_better=True)
        recommendation.update(confirm_verdict=test["verdict"], confirm_change=test["change"], confirm_p=test["p"])
    if recommendation["confirm_verdict"] != stats.IMPROVEMENT:
        recommendation["line"] = NO_GAIN


def pareto_text(recommendation, within):
    """One printed line of a recommendation: what was asked, the answer and the evidence."""
    what = {"time": f"fastest within +{within * 100:g}% memory",
            "mem": f"smallest within +{within * 100:g}% time"}[recommendation["objective"]]
    if not recommendation["label"]:
        return f"  {what}: {NO_GAIN} ({recommendation['why']})"
    evidence = (f"{recommendation['label']}: {recommendation['change'] * 100:+.1f}% vs default, "
                f"p={recommendation['p']:.3g}, {recommendation['verdict']}")
    if recommendation.get("needed_reps"):
        evidence += f"; the test needs -n {recommendation['needed_reps']} or more to decide"
    if "confirm_verdict" in recommendation:
        evidence += (f"; independent re-run: {recommendation['confirm_change'] * 100:+.1f}%, "
                     f"p={recommendation['confirm_p']:.3g}, {recommendation['confirm_verdict']}")
    return f"  {what}: {recommendation['line']}    ({evidence})"


def pareto_plot(cells, path, mem_name):
    """Writes a time-against-memory scatter PNG with the front of each cell (one panel per cell).

    cells: [(title, points)], points as above; mem_name labels the memory axis.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ncols = min(3, max(1, len(cells)))
    nrows = (len(cells) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 4.2 * nrows), squeeze=False)
    for ax, (title, points) in zip(axes.flat, cells):
        usable = [p for p in points if _finite(p["time"]) and _finite(p["mem"])]
        ax.scatter([p["time"] for p in usable], [p["mem"] / 1024 for p in usable], s=14, c="0.6", label="points")
        front = pareto_front(usable)
        ax.plot([p["time"] for p in front], [p["mem"] / 1024 for p in front], "o-", c="tab:blue", ms=5,
                label="Pareto front")
        for p in usable:
            ax.annotate(p["label"], (p["time"], p["mem"] / 1024), fontsize=6, xytext=(3, 3),
                        textcoords="offset points", color="tab:blue" if p in front else "0.4")
        defaults = [p for p in usable if p["env"] == ""]
        ax.scatter([p["time"] for p in defaults], [p["mem"] / 1024 for p in defaults], marker="*", s=120,
                   c="tab:red", label="default", zorder=3)
        ax.set_title(title, fontsize=8)
        ax.set_xlabel("median time (s)")
        ax.set_ylabel(f"median {mem_name} (MiB)")
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
