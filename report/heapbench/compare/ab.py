"""ab.py - the A/B gate of a pull request, `heapbench ci --ab --base 'CMD ARGS' -- CMD ARGS`: base and head interleaved in one job.

Always holds: the base and the head of the user's program (two commands, run by `heapbench
exec`, or two program definitions prog:NAME, run by `heapbench run`) are measured in rounds, each
round one rep (--round-reps: that many, back to back, their median the side's value) of each side
under every allocator asked for, the sides alternating A B, B A, A B ...
so that a drift of the machine hits both equally; with --duet both sides of a round run at the
same time, each pinned to its own half of the CPUs, the halves swapping every round, so that both
share the same moment's interference; a pair is the two sides' values in one round
(heapbench.compare.paired judges the pairs). Without --duet a set of rounds is one runner, `exec -w
base,head --alternate -- BASE ::: HEAD` (or `run -w prog:A,prog:B --alternate`), its rep k being
round k: a round costs two process starts, not two runner starts (the runner's own start, its
probes and files, take ~0.25 s at idle and ~1 s at load 25, against a ~20 ms program). Without --metrics the metrics are chosen on the first rounds (choose: the counts instead of a
time metric that spreads above half its threshold, or of times measured under instrumentation, which
are never judged). With --budget, adaptive.py runs the rounds (its
sequential rule replaces the screening and the confirmation). Like the other modes, round set 1 screens without
multiple-test correction and names suspects; only a REGRESSION of a fresh round set of the suspect
cells (Holm over the suspects of each metric) fails the gate. Every runner's output is kept under
the gate's output: rounds-FIRST-LAST for a set of rounds in one runner, round-NNN-base and
round-NNN-head for each side of a duet round (or of two sides that cannot share a runner: the
same prog: twice, or a command holding the word ':::').
"""
import collections
import os
import shlex
import sys
import time

from heapbench import latency
from heapbench import results
from heapbench import stats
from heapbench import cells
from heapbench.compare import launch
from heapbench.compare import metricchoice
from heapbench.compare import paired

Side = collections.namedtuple("Side", "name program command")  # program: 'prog:NAME' or None
AB_METRICS = ("wall_s", "maxrss_kb")
KEY = ("allocator", "threads", "env")  # what pairs a base row with a head row of the same round
EXEC_SEP = ":::"  # the runner's word between exec's commands (options.h HB_EXEC_SEP)


def sides(parser, base_text, head_words):
    """(base Side, head Side) from --base's text and the words after '--'; usage errors exit 2."""
    if not base_text:
        parser.error("--ab needs the base build: --base 'CMD ARGS' (or --base prog:NAME)")
    if not head_words:
        parser.error("--ab needs the head build after '--': ... -- CMD ARGS (or -- prog:NAME)")
    try:
        base_words = shlex.split(base_text)
    except ValueError as err:
        parser.error(f"--base {base_text!r}: {err}; quote it as one shell word, e.g. --base './old/prog -x'")
    out = []
    for name, words in (("base", base_words), ("head", head_words)):
        if not words:
            parser.error(f"--ab: the {name} command is empty")
        program = words[0] if words[0].startswith("prog:") else None
        if program and len(words) > 1:
            parser.error(f"--ab: {words[0]} takes no arguments (got {' '.join(words[1:])}); put them in the definition")
        out.append(Side(name, program, None if program else words))
    if (out[0].program is None) != (out[1].program is None):
        parser.error("--ab: give two commands or two prog: definitions, not one of each")
    return out


def metrics(parser, args, default_metrics):
    """The metrics of an A/B gate: runs.csv columns only (a command has no latency.csv); the
    default --metrics of ci becomes AB_METRICS."""
    names = list(AB_METRICS) if args.metrics == ",".join(default_metrics) else [m for m in args.metrics.split(",") if m]
    bad = [m for m in names if latency.is_metric(m)]
    if bad:
        parser.error(f"--ab compares runs.csv columns; {', '.join(bad)} are latency quantiles, which commands "
                     "do not write; pick e.g. --metrics wall_s,maxrss_kb,task_clock_ms")
    return names


def choose(args, names, settings, rows, rounds_dir, default_metrics):
    """The metrics to judge the rounds on, from the first rounds' runs (rows, their meta.json in
    rounds_dir's first runner directory): without --metrics, metricchoice.for_gate's (the counts
    under instrumentation, or instead of a time metric that spreads above half its threshold);
    with --metrics, those that are the program's (metricchoice.comparable). One line on stderr
    says what was left out and why."""
    first = sorted(os.listdir(rounds_dir))[0]
    data = {"runs": rows, "meta": results.load(os.path.join(rounds_dir, first))["meta"]}
    if args.metrics == ",".join(default_metrics):
        chosen, line = metricchoice.for_gate(names, data, settings["thresholds"], False)
    else:
        chosen, line = metricchoice.comparable(names, data)
    if line:
        print(f"ci --ab: {line}", file=sys.stderr)
    return chosen or names


def duet_cpus(parser, args):
    """The two CPU sets of --duet (this process's CPUs, halved: on 2 CPUs one each), or None
    without --duet; exit 2 on fewer than 2 CPUs or with --pin."""
    if not args.duet:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        parser.error(f"--duet runs base and head at the same time, each on CPUs of its own, and this gate may "
                     f"use {len(cpus)} CPU; drop --duet (rounds then alternate the sides) or run on 2 CPUs or more")
    if args.pin:
        parser.error("--duet pins each side to its own half of the CPUs itself; drop --pin")
    half = len(cpus) // 2
    return [cpus[:half], cpus[half:2 * half]]


def _words(args, side, out_dir, warmup, allocators, envs, cpus=None):
    """The runner words of one rep of one side into out_dir (pinned to cpus when given)."""
    sub = ["run", "-w", side.program] if side.program else ["exec", "-w", side.name]
    words = sub + ["-n", str(args.round_reps), "--warmup", str(warmup), "-o", out_dir, "-a", allocators]
    words += ["--pin", ",".join(map(str, cpus))] if cpus else []
    for env in envs:
        words += ["--env", env]
    words += launch.passed(args, launch.BOTH_BATCHES) + launch.measure_words(args)
    return words + (["--"] + side.command if side.command else [])


def _together(pair):
    """Whether both sides can run in one runner: two commands without the runner's separator word
    among their words, or two different program definitions."""
    if pair[0].program:
        return pair[0].program != pair[1].program
    return all(EXEC_SEP not in side.command for side in pair)


def _batch_words(args, pair, out_dir, warmup, allocators, envs, count):
    """The runner words of count rounds of both sides in one runner into out_dir: `exec -w
    base,head --alternate -- BASE ::: HEAD` (or `run -w prog:A,prog:B --alternate`), --round-reps
    runs of each side per round."""
    names = [side.program or side.name for side in pair]
    words = ["run" if pair[0].program else "exec", "-w", ",".join(names), "--alternate",
             "-n", str(count * args.round_reps), "--warmup", str(warmup), "-o", out_dir, "-a", allocators]
    for env in envs:
        words += ["--env", env]
    words += launch.passed(args, launch.BOTH_BATCHES) + launch.measure_words(args)
    return words + ([] if pair[0].program else ["--"] + pair[0].command + [EXEC_SEP] + pair[1].command)


def _run_batch(args, pair, out_dir, first, count, allocators, envs, deadline):
    """Rounds first..first+count-1 in one runner (the sides alternating A B, B A within it), stopped
    at deadline; returns their rows with 'round' and 'side' set (a round cut short pairs nothing)."""
    directory = os.path.join(out_dir, f"rounds-{first:03d}-{first + count - 1:03d}")
    warmup = (int(args.warmup[-1]) if args.warmup else 1) if first == 1 else 0
    launch.runner("heapbench ci", _batch_words(args, pair, directory, warmup, allocators, envs, count), directory,
                  deadline)
    side_of = {side.program or side.name: side.name for side in pair}
    rows = []
    for row in results.load(directory)["runs"]:
        if isinstance(row.get("rep"), int) and row.get("workload") in side_of:
            rows.append(dict(row, round=first + (row["rep"] - 1) // args.round_reps, side=side_of[row["workload"]]))
    return rows


def run_rounds(args, pair, out_dir, first, count, allocators, envs, duet=None, deadline=None):
    """Runs rounds first..first+count-1 (each: both sides, alternating which goes first; with duet,
    two CPU sets, both sides at once, swapping sets every round), none started after deadline
    (time.monotonic()), and returns their runs.csv rows, each with 'round' and 'side' set. Without
    duet the rounds run in one runner (_run_batch: two process starts a round, not two runners)."""
    if not duet and _together(pair):
        return _run_batch(args, pair, out_dir, first, count, allocators, envs, deadline)
    rows = []
    for k in range(first, first + count):
        if deadline is not None and time.monotonic() >= deadline:
            break
        order = pair if k % 2 else pair[::-1]
        warmup = (int(args.warmup[-1]) if args.warmup else 1) if k == 1 else 0
        jobs = []
        for i, side in enumerate(order):
            directory = os.path.join(out_dir, f"round-{k:03d}-{side.name}")
            cpus = duet[i] if duet else None
            jobs.append((_words(args, side, directory, warmup, allocators, envs, cpus), directory, cpus))
        if duet:
            launch.together("heapbench ci", jobs)
        else:
            for words, directory, _ in jobs:
                launch.runner("heapbench ci", words, directory)
        for side, (_, directory, _) in zip(order, jobs):
            for row in results.load(directory)["runs"]:
                rows.append(dict(row, round=k, side=side.name))
    return rows


def _values(rows, metric):
    """{pair key: {side: {round: value}}} of the ok rows with a number for metric (the median of a
    side's reps in a round, --round-reps)."""
    out = {}
    for row in rows:
        value = row.get(metric)
        key = tuple(row.get(k) for k in KEY)
        by_side = out.setdefault(key, {"base": {}, "head": {}, "broken": set()})
        if row.get("status") == "ok" and isinstance(value, (int, float)):
            by_side[row["side"]].setdefault(row["round"], []).append(float(value))
        elif row.get("status") != "skipped":
            by_side["broken"].add((row["side"], row.get("status")))
    for by_side in out.values():
        for side in ("base", "head"):
            by_side[side] = {k: stats.stats_median(v) for k, v in by_side[side].items()}
    return out


def _row(key, metric, figures, host, pair, threshold, duet=False):
    """The output row of one paired cell (the fields of verdicts.COLUMNS), verdict not yet set."""
    allocator, threads, env = key
    name = f"{pair[1].program or 'head'} vs {pair[0].program or 'base'}"
    row = {"workload": name, "allocator": allocator, "threads": threads, "params": "", "env": env or "",
           "host_base": host, "host_new": host, "metric": metric, "value": "paired (head/base per duet round)" if duet else "paired (head/base per round)",
           "threshold": threshold, "note": "", "label": cells.label((name, allocator, threads, "", env or ""))}
    row.update(figures)
    return row


def _no_pairs_note(metric, by_side, head_broken):
    """Why a cell has no pair to judge: how the head's runs ended (the base's gave values), or that
    runs which ended ok hold no value of metric (the machine does not measure it: an unreadable
    hardware counter, say), or that no round had an ok run of both sides."""
    if head_broken and by_side["base"]:
        if head_broken == ["ok"]:
            return f"head: its runs ended ok but none has a value of {metric}"
        return "head: every run ended " + ",".join(head_broken)
    if {status for _, status in by_side["broken"]} == {"ok"}:
        return (f"no run has a value of {metric} (every run ended ok): this machine does not measure it "
                "('heapbench doctor' says why); gate on other --metrics")
    return "no round with an ok run of both sides"


def judge(rows, pair, metric_names, settings, holm, alpha=None):
    """The paired comparison of the rounds' rows: {rows, missing, extra} like verdicts.run()
    (holm=False: batch 1's screening, every cell its own family); alpha: the level of this
    judgement (default settings' alpha; the intervals at the level its SAME test needs)."""
    host = next((r.get("host") for r in rows), "")
    alpha = settings["alpha"] if alpha is None else alpha
    out = []
    for metric in metric_names:
        threshold = settings["thresholds"].get(metric, cells.threshold(metric, False))
        judged = []
        for key, by_side in sorted(_values(rows, metric).items(), key=lambda kv: str(kv[0])):
            common = sorted(set(by_side["base"]) & set(by_side["head"]))
            base = [by_side["base"][k] for k in common]
            head = [by_side["head"][k] for k in common]
            judged.append((key, by_side, paired.cell(base, head, settings["seed"],
                                                     stats.stats_interval_level(alpha))))
        tested = [i for i, (_, _, c) in enumerate(judged) if c["n_base"]]
        raw = [judged[i][2]["p"] for i in tested]
        adjusted = dict(zip(tested, stats.stats_holm(raw) if holm else raw))
        family = len(tested) if holm else 1
        for i, (key, by_side, figures) in enumerate(judged):
            row = _row(key, metric, figures, host, pair, threshold, settings.get("duet"))
            p_adj = adjusted.get(i, 1.0)
            verdict, needed = paired.verdict(figures, p_adj, threshold, alpha, family,
                                             lower_is_better=metric not in settings["higher"],
                                             same_rule=settings.get("same_rule", stats.SAME_EQUIVALENCE))
            broken = sorted(status for side, status in by_side["broken"] if side == "head")
            if not figures["n_base"]:
                row["note"] = _no_pairs_note(metric, by_side, broken)
                verdict = stats.REGRESSION if broken and by_side["base"] else stats.UNDECIDED
            row.update(p_holm=p_adj, verdict=verdict, needed_reps=needed)
            out.append(row)
    return {"rows": out, "missing": [], "extra": []}


def confirm(args, pair, settings, metric_names, suspects, out_dir, first):
    """Round set 2: fresh rounds of the suspect cells only, as many as Holm over the suspects of a
    metric needs; returns {(label, metric): row} of the suspects judged on them alone."""
    per_metric = collections.Counter(r["metric"] for r in suspects)
    count = max([args.reps] + [paired.needed_pairs(settings["alpha"], m) for m in per_metric.values()])
    allocators = ",".join(sorted({r["allocator"] for r in suspects}))
    rows = run_rounds(args, pair, os.path.join(out_dir, "confirm"), first, count, allocators, args.env,
                      settings.get("duet"))
    result = judge(rows, pair, metric_names, settings, holm=True)
    wanted = {(r["label"], r["metric"]) for r in suspects}
    return {(r["label"], r["metric"]): r for r in result["rows"] if (r["label"], r["metric"]) in wanted}


def check_rounds(parser, args, alpha):
    """Exit 2 before measuring when -n rounds cannot reach alpha even for one cell (unless --allow-unknown)."""
    if paired.min_p(args.reps) > alpha and not args.allow_unknown:
        parser.error(f"--ab -n {args.reps}: {args.reps} pairs cannot reach alpha {alpha} (smallest p "
                     f"{paired.min_p(args.reps):.3g}); use -n {paired.needed_pairs(alpha)} or more "
                     "(8 or more lets Holm correct over several cells), or --allow-unknown")


def gate(parser, args, head_words, settings, default_metrics, out_dir):
    """Runs the A/B gate: round set 1 into out_dir/rounds, the suspects' fresh rounds into
    out_dir/confirm; returns (screening result, {(label, metric): confirmed row}) for ci_verdicts."""
    pair = sides(parser, args.base, head_words)
    names = metrics(parser, args, default_metrics)
    settings = dict(settings, metrics=names, duet=duet_cpus(parser, args))
    check_rounds(parser, args, settings["alpha"])
    allocators = ",".join(args.allocators) or "glibc"
    rows = run_rounds(args, pair, os.path.join(out_dir, "rounds"), 1, args.reps, allocators, args.env,
                      settings["duet"])
    names = choose(args, names, settings, rows, os.path.join(out_dir, "rounds"), default_metrics)
    settings["metrics"] = names
    screen = judge(rows, pair, names, settings, holm=False)
    suspects = [r for r in screen["rows"] if r["verdict"] == stats.REGRESSION]
    print(f"ci --ab: round set 1 (screening, uncorrected): {len(suspects)} suspect cell x metric", file=sys.stderr)
    confirmed = confirm(args, pair, settings, names, suspects, out_dir, args.reps + 1) if suspects else {}
    return screen, confirmed
