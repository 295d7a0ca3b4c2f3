"""output.py - the bisect's answer: printed for a person, and written to OUT/answer.json for a machine.

Always holds: the answer names the first commit that behaves like bad when one commit is left,
else every commit not ruled out (skipped or undecided ones and the first known bad); the effect is
the change from the good end to the bad end in the chosen metric, with its interval, and each
measured step says its verdict and how many rounds decided it.
"""
import os

from heapbench.bisect import search, state as st


def _pct(x):
    """A relative change as '+5.1%'."""
    return f"{x * 100:+.1f}%"


def lines(state, subjects):
    """The answer as text lines."""
    commits = state["commits"]
    first, candidates = search.answer(len(commits), search_verdicts(state))
    ends = state["ends"]
    out = [f"metric: {state['metric']} (good -> bad {_pct(ends['change'])} [{_pct(ends['low'])}, "
           f"{_pct(ends['high'])}], {ends['rounds']} rounds)"]
    for i in sorted(int(k) for k in state["steps"]):
        step = state["steps"][str(i)]
        pos = step.get("interval")
        where = f" position {pos[0]:.2f} [{pos[1]:.2f}, {pos[2]:.2f}]" if pos else ""
        after = f" after {step['rounds']} rounds" if step["rounds"] else ""
        after += f" (revisited {step['revisits']}x)" if step.get("revisits") else ""
        out.append(f"  {commits[i][:12]} {step['verdict']}{where}{after}"
                   + (f" ({step['reason']})" if step.get("reason") else "") + f"  {subjects.get(commits[i], '')}")
    if first is not None:
        out.append(f"first bad commit: {commits[first]} {subjects.get(commits[first], '')}")
    else:
        out.append(f"first bad commit: one of {len(candidates)} (the others were skipped or undecided): "
                   + ", ".join(commits[i][:12] for i in candidates))
    out.append(f"steps: {steps_taken(state)} (a bisection of {len(commits)} commits takes "
               f"{search.max_steps(len(commits))} when nothing is skipped)")
    return out


def steps_taken(state):
    """The steps measured: one per commit, and one more for each revisit of an undecided commit."""
    return len(state["steps"]) + sum(s.get("revisits", 0) for s in state["steps"].values())


def search_verdicts(state):
    """{index: GOOD/BAD/SKIP} of the measured commits (undecided counts as skipped)."""
    return {int(i): (s["verdict"] if s["verdict"] in (search.GOOD, search.BAD) else search.SKIP)
            for i, s in state["steps"].items()}


def write(out_dir, state):
    """OUT/answer.json (replaced whole): the first bad commit (or null), the candidates, the metric and the effect."""
    commits = state["commits"]
    first, candidates = search.answer(len(commits), search_verdicts(state))
    answer = {"first_bad": commits[first] if first is not None else None,
              "candidates": [commits[i] for i in candidates], "metric": state["metric"], "effect": state["ends"],
              "steps": steps_taken(state)}
    st.write_json(os.path.join(out_dir, "answer.json"), answer)
    return answer
