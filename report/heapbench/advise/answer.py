"""answer.py - advise's recommend stage: the verdicts on the confirmed candidates, the agreement with the
screen, the snippets, and the advice dict that output.py writes.

Always holds: the answer is recommend.py's (compare's statistics with Holm) on the confirm run's
records with tune's speed axis; when wall time is the speed and it stays flat while CPU time
moves (tune.speed), a time goal is undecided with that reason when a candidate was faster in
wall or in CPU time (a fixed-time program ranks on neither), and keeps its answer with the
reason as a note when nothing was faster in either; snippets are made
only for a recommended candidate, from its registry entry and its measured setting.
"""
import os

from heapbench import stats
from heapbench.advise import budget, candidates, choose, profile, recommend, snippets
from heapbench.compare import sequential
from heapbench.tune import speed

def answer_snippets(label, conf, command, workload):
    """The snippets of the recommended candidate (its registry entry, env and knob point)."""
    cand = next(c for c in conf["chosen"] if c["label"] == label)
    installed = {e.name: (e, f) for e, f in candidates.candidates_installed([cand["allocator"]])}
    entry, family = installed[cand["allocator"]]
    point = tuple((candidates.knobs.knobs_find(family, n), v) for n, v in cand["settings"])
    env = candidates.knobs.knobs_env(family, point) if point else {}
    return snippets.snippets(entry, env, point, command or [f"(the command of {workload})"])


def answer(adv):
    """The recommend stage: the verdicts, the agreement with the screen, the snippets; returns the advice dict."""
    adv.clock.show("recommend", "testing the candidates against the baseline")
    done, goal = adv.st["done"], adv.opts["goal"]
    cand_rows = list(done.get("screen", {}).get("candidates", []))
    conf = done.get("confirm", {})
    answer_screen_changes(cand_rows)
    answer, axis, snips, note, refused = None, "wall", {}, "", {}
    refused.update({r["label"]: r["refused"] for r in cand_rows if r.get("refused")})
    if conf.get("dir"):
        base, records, axis, confirm_refused = adv.records()
        refused.update(confirm_refused)
        flat = speed.speed_wall_flat([base] + list(records.values()), {"confirm": base}, adv.opts["threshold"] / 100,
                                     adv.opts["alpha"]) if axis == "wall" and adv.opts.get("speed", "auto") == "auto" else None
        flat = flat and flat.replace("--wall-anyway", "--speed wall")  # tune's option; advise's is --speed wall
        answer = recommend.recommend(goal, base, records, adv.opts["threshold"] / 100, adv.opts["alpha"],
                                     look=len(conf.get("rounds") or [conf]))
        answer_keep_covered(answer, conf, records, refused, done.get("screen", {}).get("mode"))
        timed = answer.get("figure") == "time"  # a memory answer does not rank on speed: a flat wall time is a note
        if flat and timed and (answer_cpu_improves(answer) or answer["verdict"] == recommend.RECOMMEND):
            answer.update(verdict=recommend.UNDECIDED, label="", why=flat)
        elif flat:  # wall time flat, and CPU time moved only for the worse: nothing is faster in either
            note = flat
        for label, rec in [("glibc (baseline)", base)] + list(records.items()):
            test_t, test_m = answer["tests"]["time"].get(label), answer["tests"]["peak"].get(label)
            row = {"stage": "confirm", "label": label, "verified": "yes", "baseline": rec is base,
                   "time": rec["time"], "peak_kb": rec["peak"], "cpu": rec["cpu"], "wall": rec["wall"],
                   "metric": rec["metric"], "reps": rec["reps_ok"],
                   "time_change": test_t["change"] if test_t else None, "peak_change": test_m["change"] if test_m else None,
                   "verdict": (answer["tests"][answer.get("figure", "time")].get(label) or {}).get("verdict", "baseline")}
            cand_rows.append(row)
        note = (note + " " + answer_agreement(cand_rows, goal, done.get("screen", {}).get("mode"))).strip()
        if answer["verdict"] == recommend.RECOMMEND:
            snips = answer_snippets(answer["label"], conf, adv.command, adv.opts["workloads"])
    elif conf.get("negligible"):  # too few malloc-API calls: nothing can matter
        answer = {"verdict": recommend.KEEP, "why": conf["skipped"], "detectable": float("nan"), "label": "", "goal": goal}
    else:
        why = f"nothing was measured on the program ({conf.get('skipped') or 'no candidate was confirmed'})"
        answer = {"verdict": recommend.UNDECIDED, "why": why, "detectable": float("nan"), "label": "", "goal": goal}
    if answer["verdict"] == recommend.UNDECIDED:
        answer["why"] += answer_to_decide(adv, answer, refused)
    metric_name = done.get("baseline", {}).get("metric_name")
    text = recommend.recommend_text(answer, metric_name if axis == "metric" else None)
    speed_why = done.get("baseline", {}).get("speed_why")
    rec_out = {"goal": goal, "verdict": answer["verdict"], "text": text, "note": note, "speed": axis,
               "speed_why": speed_why}
    if answer["verdict"] == recommend.RECOMMEND:
        cand = next(c for c in conf["chosen"] if c["label"] == answer["label"])
        rec_out.update(allocator=cand["allocator"], env=dict(w.split("=", 1) for w in cand["env"].split()),
                       label=answer["label"], confidence={"ci_low": answer["test"]["family_low"],
                       "ci_high": answer["test"]["family_high"], "p_adjusted": answer["test"]["p_adjusted"],
                       "level": answer["test"]["family_level"], "look": answer["look"],
                       "alpha": answer["test"]["look_alpha"], "candidates": len(answer["tests"][answer["figure"]])}, figures={"change": answer["test"]["change"], "figure": answer["figure"],
                       "tradeoffs": {f: (t or {}).get("change") for f, t in answer["tradeoffs"].items()}})
    else:
        rec_out.update(allocator="glibc" if answer["verdict"] == recommend.KEEP else None, env={},
                       detectable=answer["detectable"])
    for row in cand_rows:
        row.pop("time_samples", None)
        row.pop("peak_samples", None)
    return {"command": adv.command, "workload": adv.opts["workloads"],
            "command_text": " ".join(adv.command) if adv.command else adv.opts["workloads"],
            "recommendation": rec_out, "candidates": cand_rows, "snippets": snips, "refused": refused,
            "notes": adv.notes + ([speed_why] if speed_why else []) + answer_profile_notes(done),
            "dropped": adv.st["dropped"], "screen_mode": done.get("screen", {}).get("mode"),
            "budget_s": adv.opts["budget"], "budget_clock": adv.opts.get("budget_clock", "wall"),
            "elapsed_s": adv.clock.elapsed(),
            "stage_end_s": dict(adv.st.get("stage_end_s", {}), recommend=round(adv.clock.elapsed(), 1)),
            "stage_dirs": [d for d in ["baseline", "profile"] + sorted(done.get("screen", {}).get("dirs", {}).values())
                           + [r["dir"] for r in conf.get("rounds") or [{"dir": "confirm"}]]
                           if os.path.isdir(os.path.join(adv.out, d))]}


def answer_keep_covered(answer, conf, records, refused, mode=None):
    """KEEP only with program runs of the screen's best candidates: the first RESERVE_K of the screen's
    order (choose.py: glibc's default is never among them, so a screen that ranks glibc first still
    names the candidates that came after it) must have been run in the confirmation (measured, or
    refused for failing there); else the answer becomes UNDECIDED naming them. A KEEP that stands names
    what it rests on: the candidates run on the program, and how many the screen ranked below them."""
    if answer["verdict"] != recommend.KEEP:
        return answer
    order = [c["label"] for c in conf.get("chosen", []) + conf.get("untested", [])]
    best = order[:budget.RESERVE_K]
    missing = [label for label in best if label not in refused and (records.get(label) or {}).get("reps_ok", 0) < 2]
    if not records or missing:
        answer.update(verdict=recommend.UNDECIDED, open=missing, why="not decided on the program: the screen's best "
                      f"candidates ({', '.join(missing) or 'none'}) were not run on the program")
        return answer
    untested = [c["label"] for c in conf.get("untested", [])]
    how = "short runs of the program" if mode == "program" else "the replay"
    answer["why"] += f"; run on the program: {', '.join(records)}"
    if untested:
        answer["why"] += f"; {len(untested)} other candidate(s) ranked below them by {how} were not: {', '.join(untested[:6])}"
    return answer


def answer_cpu_improves(answer):
    """Whether a candidate's CPU time improved significantly (stats' IMPROVEMENT in the cpu figure)."""
    return any(t.get("verdict") == stats.IMPROVEMENT for t in answer["tests"]["cpu"].values())


def answer_to_decide(adv, answer, refused):
    """'; tested on the program: ...; not tested: ...; a budget of N would decide (the resume command)'."""
    done = adv.st["done"]
    conf = done.get("confirm", {})
    tested = [c["label"] for c in conf.get("chosen", [])]
    untested = [c["label"] for c in conf.get("untested", [])]
    if not tested and not untested:
        untested = [r["label"] for r in choose.choose(done.get("screen", {}).get("candidates", []), adv.opts["goal"],
                                                      program=done.get("screen", {}).get("mode") == "program")]
    parts = [f"tested on the program: {', '.join(tested) if tested else 'nothing'}"]
    if refused:
        parts.append(f"refused: {', '.join(refused)}")
    if untested:
        parts.append(f"not tested on the program: {', '.join(untested[:6])}")
    k = max(1, min(budget.MAX_K, len(answer.get("open") or []) + len(untested)))
    cells = choose.choose_cells([c for c in conf.get("chosen", []) + conf.get("untested", [])][:k] or
                                [{"allocator": "x", "env": ""}], adv.opts.get("user_env", ""))
    tests = (answer.get("tests") or {}).get(answer.get("figure", "time"), {})
    needed = max((tests[label].get("needed_reps") or 0 for label in answer.get("open") or [] if label in tests), default=0)
    reps = min(budget.MAX_REPS_GROWN, max(needed, 2 * conf["reps"])) if conf.get("reps") else budget.MAX_REPS
    need = budget.budget_to_decide(adv.clock.elapsed(), done["baseline"]["run_s"], cells, adv.opts["alpha"], k, reps)
    if "screen" in adv.st.get("cut", []):
        need += budget.budget_screen_cost(budget.PROGRAM_SCREEN_REPS * 8, done["baseline"]["run_s"])
    unit, give = adv.clock.unit, budget.budget_whole(need)
    if len(conf.get("rounds") or []) >= sequential.LOOKS:
        parts.append(f"{answer_looks_spent(adv.opts['alpha'])} (a budget of about {give} {unit})")
    else:
        parts.append(f"a budget of about {give} {unit} would decide (heapbench advise --resume {adv.out} "
                     f"--budget {give})")
    return "; " + "; ".join(parts)


def answer_looks_spent(alpha):
    """Why a confirmation that took its sequential.LOOKS looks cannot be continued, and what to do."""
    return (f"the confirmation took its {sequential.LOOKS} looks (alpha {alpha:g} spent over them): more runs "
            f"cannot be judged without raising the chance of a wrong answer above {alpha:g}; advise again in a new "
            "directory (heapbench advise -o NEWDIR --budget N ...)")


def answer_screen_changes(rows):
    """Adds time_change and peak_change to the screen rows: their medians against the replay under glibc's defaults."""
    base = next((r for r in rows if r["stage"] == "screen" and r.get("baseline")), None)
    for row in rows:
        for key, figure in (("time_change", "time"), ("peak_change", "peak_kb")):
            if base and row.get(figure) is not None and base.get(figure):
                row[key] = row[figure] / base[figure] - 1.0


def answer_agreement(rows, goal, mode=None):
    """One sentence: how the screen's order of the confirmed candidates matched the program's."""
    key = {"memory": "peak_kb"}.get(goal, "time")
    screen = {r["label"]: r[key] for r in rows if r["stage"] == "screen" and r.get(key) is not None}
    screen.update({"glibc (baseline)": v for r in rows if r["stage"] == "screen" and r.get("baseline")
                   for v in [r.get(key)] if v is not None})
    confirm = {r["label"]: r[key] for r in rows if r["stage"] == "confirm" and r.get(key) is not None}
    tau = recommend.recommend_agreement(screen, confirm)
    if tau != tau:
        return "Screen and confirmation: too few candidates in common to compare their order."
    verdict = "agreed" if tau >= 0.5 else "disagreed; the real program's figures decide"
    how = "short runs of the program" if mode == "program" else "replay"
    return f"Screen ({how}) and confirmation (the program) {verdict} on the order (Kendall tau {tau:+.2f})."


def answer_profile_notes(done):
    """The profile's lines for the evidence."""
    prof = done.get("profile", {})
    if "stats" not in prof:
        return []
    return ["profile: " + line.strip() for line in profile.profile_text(prof["stats"], prof["traits"])]
