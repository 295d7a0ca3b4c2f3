"""advise.py - `heapbench advise`: one command from "my program" to "run it with this allocator and these settings".

Always holds: the stages run in order (baseline, profile, screen, confirm, recommend), each
through the CLI's own commands (exec or run -w prog:NAME, record, trace, run -w trace:FILE) and
tune's and compare's Python layers (tune.measure, tune.speed, tune.verify, tune.knobs,
heapbench.stats), never a copy of them; state.json is saved after each stage, so a Ctrl-C
leaves a directory that --resume continues; every candidate's setting is verified before it is
measured; the real program (confirm) decides, the replay (screen) only chooses what to confirm;
a recommendation needs compare's test with Holm over the confirmed candidates (recommend.py).
Prints the profile, the answer and the snippets on stdout, progress on stderr; the last line is
`results: DIR`. Every run of the program has /dev/null as input, but the probe run's, one empty
line then end of file: a program that reads it is refused (exit 2) before it is measured on no input.
"""
import array
import datetime
import fcntl
import os
import select
import shutil
import signal
import stat
import sys
import termios

from heapbench import cli, latency, layout, ownalloc, results
from heapbench.advise import (answer, budget, candidates, choose, output, profile, progress, recommend, state, stop,
                              watchdog)
from heapbench.compare import sequential
from heapbench.tune import measure, speed, verify

GOALS = ("time", "memory", "latency", "balanced")
SPEEDS = ("auto", "wall", "cpu", "metric")
UNDECIDED = recommend.UNDECIDED
PROGRAM_CELL = "advised-program"  # the cell name of the command in exec's results (no workload has it)


def advise_args(argv):
    """(options, command) of the command line; command is the list after '--' ([] without)."""
    parser = cli.ArgParser(prog="heapbench advise", description="Find the allocator and settings that make "
                           "a program faster or smaller, with evidence and ready-to-paste lines.",
                           epilog="heapbench advise [options] -- CMD ARGS... (or -w prog:NAME). "
                           "Doc with measured figures: report/heapbench/advise/README.md")
    parser.add_argument("--goal", choices=GOALS, default="time", help="what to improve (default time)")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds for the whole advice (default 300)")
    parser.add_argument("--budget-clock", choices=tuple(progress.CLOCKS), default="wall",
                        help="what --budget counts: wall seconds (default), or CPU seconds of advise and all it "
                        "runs (the same plan at any load average; the wall time grows with the load)")
    cli.add_option(parser, "output", "output directory (default advise-<time> in the results location)")
    parser.add_argument("--resume", metavar="DIR", help="continue an interrupted advise in DIR")
    cli.add_option(parser, "workloads", "a program definition, prog:NAME (exec/programs), instead of -- CMD")
    cli.add_option(parser, "allocators", "allocators to consider (default: every installed one of the default matrix)")
    cli.add_option(parser, "metric", "the program's own speed figure, as exec reads it: the speed of goal time")
    parser.add_argument("--speed", choices=SPEEDS, default="auto",
                        help="the time goal's figure: wall time, CPU time (user+sys), or the --metric figure; "
                        "auto (default): the metric when given, else the steadier of wall and CPU time in the "
                        "baseline's runs (the advice says which and why)")
    parser.add_argument("--threshold", type=float, default=5.0, help="smallest change that counts, %% (5)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level after Holm's correction (0.05)")
    parser.add_argument(ownalloc.ALLOW_FLAG, action="store_true", help=ownalloc.ALLOW_HELP)
    opts, command = cli.parse_command_line(parser, argv, "give the command to advise on (heapbench advise -- CMD ARGS)")
    if opts.resume:
        return opts, command
    if bool(opts.workloads) == bool(command):
        parser.error("give the program: either -- CMD ARGS or -w prog:NAME (one of them)")
    if opts.workloads and (not opts.workloads.startswith("prog:") or "," in opts.workloads):
        parser.error(f"-w {opts.workloads}: give one program definition, prog:NAME (heapbench list shows them)")
    if opts.budget <= 0 or not 0 < opts.alpha < 1 or opts.threshold < 0:
        parser.error("--budget must be > 0, --alpha in (0,1), --threshold >= 0")
    if opts.speed == "metric" and not opts.metric and not opts.workloads:
        parser.error("--speed metric ranks on the program's printed figure: give --metric NAME=REGEX[,higher]")
    return opts, command


class AdviseStop(Exception):
    """The advice ends early with one line (the message) and an exit code; the directory is kept."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class ProbeCut(Exception):
    """The probe run was stopped at its limit: one run takes longer than the budget can answer with."""


class Advise:
    """One advise run: its options, the output directory, the state and the clock."""

    def __init__(self, opts, command, out, st, clock):
        """opts: a dict of the options (state.json keeps it); command: argv list; st: state dict."""
        self.opts, self.command, self.out, self.st, self.clock = opts, command, out, st, clock
        self.log = open(os.path.join(out, "advise.log"), "a", encoding="utf-8")
        self.clean_env = verify.verify_clean_env()
        self.notes = st.setdefault("notes", [])  # kept in state.json: a resumed run still says them

    # --- the runner ---------------------------------------------------------------------------
    def program_argv(self, allocators, reps, warmup, timeout=None):
        """The runner command line that measures the program (exec, or run -w prog:NAME), without --env/-o."""
        argv = [cli.binary(), "run" if self.opts["workloads"] else "exec", "-a", ",".join(allocators),
                "-n", str(reps), "--warmup", str(warmup)]
        argv += ["--timeout", str(int(max(1, timeout)))] if timeout else []
        argv += ["--metric", self.opts["metric"]] if self.opts["metric"] else []
        # exec names the command's cell: a program whose file name is a heapbench workload's (arenas, small...)
        # would otherwise be refused by the runner
        return argv + (["-w", self.opts["workloads"]] if self.opts["workloads"] else ["-w", PROGRAM_CELL, "--"] + self.command)

    def measure(self, tag, argv, envs, limit=None, stdin=None):
        """{(allocator,) + env key: record} of one runner invocation into out/tag (a fresh directory).
        limit: the clock reading at which the runner is stopped (default: the budget's end, the cut
        named in the dropped list); a runner stopped at a limit given raises ProbeCut. stdin: the
        input of the runner and its program (default /dev/null)."""
        path = os.path.join(self.out, tag)
        shutil.rmtree(path, ignore_errors=True)  # an interrupted attempt of this stage
        os.makedirs(os.path.dirname(path), exist_ok=True)
        dog = watchdog.Watchdog(self.clock, limit if limit is not None else watchdog.watchdog_limit(self.opts["budget"]))
        try:
            try:
                with dog:
                    data = measure.measure_points(argv, envs, path, self.clean_env, log=self.log, isolated=True,
                                                  stdin=stdin)
            except KeyboardInterrupt:
                if not dog.fired():
                    raise
                if limit is not None:
                    raise ProbeCut(tag) from None
                self.cut(tag.split(os.sep)[0], f"the runs of {tag} not done when the budget ran out")
                data = results.load(path)
        except measure.MeasureUsageError as err:
            raise AdviseStop(f"the runner refused the options ({err}); see {self.log.name}", 2) from err
        except results.ResultsError as err:
            if limit is not None and dog.fired():  # stopped before it could write anything (its start, at a high load)
                raise ProbeCut(tag) from None
            raise AdviseStop(f"{err} (runner output: {self.log.name})", 1) from err
        refusal = ownalloc.own_refusal(data["runs"])
        if refusal and not self.opts.get("allow_own_allocator"):
            raise AdviseStop(refusal, 2)
        out = {}
        for records in measure.measure_cells(data, tag, by_allocator=True).values():
            out.update(records)
        return out

    def save(self, stage, result):
        """Marks the stage done with its result and saves the state."""
        self.st["done"][stage] = result
        self.st["spent"] = self.clock.elapsed()
        self.st.setdefault("stage_end_s", {})[stage] = round(self.st["spent"], 1)
        state.state_save(self.out, self.st)

    # --- stages -------------------------------------------------------------------------------
    def plan_words(self, allocators):
        """What the smallest budget pays for, in the words the refusals give."""
        reps = budget.budget_first_reps(self.opts["alpha"], 1)
        return (f"one probe run, the baseline's {budget.BASELINE_REPS} runs, the profile (~2.5 runs), a screen of {allocators} "
                f"allocators x {budget.PROGRAM_SCREEN_REPS} runs, one candidate confirmed with the {reps} reps "
                "Holm needs")

    def too_small(self, allocators, how, need, about="about "):
        """The refusal of a budget that cannot answer (exit 2); about: 'more than ' when need is a lower bound."""
        unit, give = self.clock.unit, budget.budget_whole(need)
        return AdviseStop(f"--budget {self.opts['budget']:g} {unit} is too small: {how}, and an answer "
                          f"({self.plan_words(allocators)}) needs {about}{need:.1f} {unit}; give --budget "
                          f"{give} or more (heapbench advise --resume {self.out} --budget {give})", 2)

    def probe(self):
        """Before any run: a budget below the plan's floor (its runner starts alone) is refused; then one
        run of the program, stopped at PROBE_SHARE times the longest run the budget can answer with,
        sizes the plan, and a budget that cannot answer is refused (exit 2) before the baseline's runs."""
        allocators = len(advise_installed(self.opts["allocators"]))
        alpha, unit = self.opts["alpha"], self.clock.unit
        floor = budget.budget_floor(allocators, alpha)
        if self.opts["budget"] < floor:
            raise self.too_small(allocators, f"even a program that takes no time costs the runner's "
                                 f"{budget.RUNNER_OVERHEAD:g} {unit} per invocation (estimated from the plan, "
                                 "nothing was run)", floor)
        longest = budget.budget_probe_limit(self.opts["budget"], allocators, alpha)
        self.clock.show("probe", "one run of the program: does the budget fit it?", self.opts["budget"])
        limit = self.clock.elapsed() + longest + budget.RUNNER_OVERHEAD
        argv = self.program_argv(["glibc"], budget.PROBE_REPS, 0, timeout=self.wall_limit(self.opts["budget"] * 0.3))
        feed = advise_stdin_probe()
        try:
            records = self.measure("probe", argv, [self.opts.get("user_env", "")], limit=limit, stdin=feed)
        except ProbeCut:  # not saved as done: --resume with a larger budget probes again
            need = budget.budget_smallest(longest, longest, allocators, alpha)
            raise self.too_small(allocators, f"one run of the program takes more than {longest:.2f} {unit} (a probe "
                                 "run was stopped then)", need, "more than ") from None
        finally:
            read = advise_stdin_read(feed)
        advise_no_daemon(os.path.join(self.out, "probe"))  # before the profile runs it again
        if read:
            raise AdviseStop("the program reads its standard input (the probe run read the line advise gave it), "
                             "but advise runs it many times with no input (as a service runs), so it would be "
                             "measured on empty input; give the input as a file the command opens "
                             "(-- sh -c 'CMD < FILE')", 2)
        rec = records.get(("glibc",) + measure.measure_env_key(self.opts.get("user_env", "")))
        if rec is None or not rec["reps_ok"] or rec["failed"]:
            why = rec["failed"][0] if rec and rec["failed"] else "no run"
            if why.startswith("timeout"):  # the runner's timeout came before the watchdog: the same lower bound
                need = budget.budget_smallest(longest, longest, allocators, alpha)
                raise self.too_small(allocators, f"one run of the program takes more than {longest:.2f} {unit} (a probe "
                                     "run was stopped then)", need, "more than ")
            self.save("probe", {"run_s": 0.0, "failed": why})  # the baseline's runs say what failed, with the count
            return
        run_s = rec["cpu"] if self.opts.get("budget_clock") == "cpu" and rec["cpu"] else rec["time"]
        need = budget.budget_too_small(self.opts["budget"], run_s, allocators, alpha)
        if need:
            raise self.too_small(allocators, f"one run takes {run_s:.2f} {unit} (one probe run, before the "
                                 "baseline)", need)
        self.save("probe", {"run_s": run_s})

    def baseline(self):
        """The program as it is (the system's glibc, defaults), a few reps: its run time sizes the plan,
        its noise chooses the speed figure; a crash, a process left behind or a --metric that never
        matched ends the advice here (exit 1), a budget that cannot give an answer too (exit 2)."""
        self.clock.show("baseline", "the program as it is", self.opts["budget"])
        reps = budget.BASELINE_REPS
        timeout = self.wall_limit(self.opts["budget"] * 0.3)
        argv = self.program_argv(["glibc"], reps, 0, timeout=timeout)
        user = self.opts.get("user_env", "")
        if user:
            self.notes.append(f"the baseline keeps the allocator variables of your environment ({user}); "
                              "the candidates run without them")
        records = self.measure("baseline", argv, [user])
        path = os.path.join(self.out, "baseline")
        rec = records.get(("glibc",) + measure.measure_env_key(user))
        if rec is None or not rec["reps_ok"] or rec["failed"]:
            why = rec["failed"][0] if rec and rec["failed"] else "no run"
            runs = (rec["reps_ok"] + len(rec["failed"])) if rec else reps
            failed = len(rec["failed"]) if rec else reps
            raise AdviseStop(advise_failure_line(why, timeout, failed, runs, advise_last_line(path)), 1)
        advise_no_daemon(path)
        if self.opts["metric"] and not rec["metric_samples"]:
            raise AdviseStop(f"--metric {self.opts['metric']}: the pattern matched no line of the program's output "
                             f"(its last line: {advise_last_line(path)!r}); give a REGEX that matches the line "
                             "with the figure", 1)
        axis, why = advise_speed(self.opts.get("speed", "auto"), rec)
        # The median (one run slowed by the machine's load does not size the plan), in the clock's unit.
        run_s = rec["cpu"] if self.opts.get("budget_clock") == "cpu" and rec["cpu"] else rec["time"]
        allocators = len(advise_installed(self.opts["allocators"]))
        need = budget.budget_too_small(self.opts["budget"], run_s, allocators, self.opts["alpha"])
        result = {"dir": "baseline", "run_s": run_s, "wall": rec["time"], "peak_kb": rec["peak"], "cpu": rec["cpu"],
                  "metric": rec["metric"], "metric_name": rec["metric_name"], "speed": axis, "speed_why": why}
        self.save("baseline", result)
        if need:
            raise self.too_small(allocators, f"one run takes {run_s:.2f} {self.clock.unit} (the median of the "
                                 f"baseline's {rec['reps_ok']} runs)", need)

    def profile(self):
        """One trace recorded and its statistics: the knobs this profile makes relevant."""
        self.clock.show("profile", "recording one run's allocations")
        trace = os.path.join(self.out, "profile", "trace.hbt")
        shutil.rmtree(os.path.dirname(trace), ignore_errors=True)
        os.makedirs(os.path.dirname(trace))
        try:
            profile.profile_record(self.command, self.opts["workloads"], trace, self.log)
            stats = profile.profile_read(trace)
        except profile.ProfileError as err:
            if "none written" in str(err):
                stats = {"ops": 0, "sizes": [], "lifetimes": []}
            else:
                self.save("profile", {"error": str(err)})
                self.notes.append(f"profile: {err}; the screen runs the program itself")
                return
        traits = profile.profile_traits(stats)
        self.save("profile", {"trace": "profile/trace.hbt", "stats": stats, "traits": traits})

    def negligible(self, stats):
        """After the profile: a program that does not allocate enough for the allocator to matter
        (profile.profile_negligible on the probe's run) is answered "keep" at once; the baseline, the
        screen and the confirmation are marked skipped with the reason."""
        done = self.st["done"]
        run_s = done.get("baseline", done.get("probe", {})).get("run_s", 0.0)
        why = profile.profile_negligible(stats, self.opts["goal"], run_s, self.opts["threshold"] / 100)
        if not why or "confirm" in done:
            return
        why = f"the program does not allocate enough for the allocator to matter ({why})"
        if "baseline" not in done:
            self.save("baseline", {"skipped": why, "run_s": run_s})
        self.save("screen", {"skipped": why, "candidates": []})
        self.save("confirm", {"skipped": why, "chosen": [], "negligible": True})

    def screen_mode(self):
        """(mode, seconds per run, reps, why): 'program' (short runs of the program itself) or 'replay'."""
        prof, base = self.st["done"]["profile"], self.st["done"]["baseline"]
        run_s = base["run_s"]
        if "error" in prof:
            return "program", run_s, budget.PROGRAM_SCREEN_REPS, "no trace: screened by runs of the program"
        if self.opts["goal"] in ("time", "balanced"):
            return ("program", run_s, budget.PROGRAM_SCREEN_REPS, "screened by runs of the program itself: a "
                    "replay does not predict the program's speed (locality, contention, its own work)")
        replay_s = budget.budget_replay_cost(prof["stats"].get("ops", 0))
        if self.opts.get("budget_clock") != "cpu" and base.get("cpu"):
            replay_s *= max(1.0, base["wall"] / base["cpu"])  # the machine's load, as the baseline saw it
        if replay_s > run_s:
            return ("program", run_s, budget.PROGRAM_SCREEN_REPS, f"screened by runs of the program itself: a replay "
                    f"of its {prof['stats'].get('ops', 0)} events would cost ~{replay_s:.2f} {self.clock.unit}, a run "
                    f"{run_s:.2f}")
        return "replay", replay_s, budget.SCREEN_REPS, "screened by replays of the profile's trace"

    def screen_run(self, tag, mode, allocators, envs, reps):
        """{key: record} of one screen invocation (the speed axis applied to a program's records) and the
        measured seconds per run."""
        argv = self.replay_argv(allocators) if mode == "replay" else self.program_argv(allocators, reps, 0,
                                                                                         self.run_timeout())
        start = self.clock.elapsed()
        records = self.measure(tag, argv, envs)
        per_run = (self.clock.elapsed() - start - budget.RUNNER_OVERHEAD) / max(1, reps * len(allocators) * len(envs))
        if mode == "program":
            for rec in records.values():
                if rec["reps_ok"]:
                    speed.speed_apply(rec, self.st["done"]["baseline"].get("speed", "wall"))
        return records, max(0.02, per_run)

    def screen(self):
        """Every installed allocator at its defaults (one interleaved invocation), then the key settings
        (verified first) of the most promising allocators, each invocation started only when its
        estimated cost fits the screen's share; the rest is named in the dropped list."""
        prof = self.st["done"]["profile"]
        hints = [h for _, _, hs in prof.get("traits", []) for h in hs]
        installed = advise_installed(self.opts["allocators"])
        installed = sorted(installed, key=lambda ef: ef[0].name != "glibc")  # glibc first: the screen's own baseline
        mode, unit_s, reps, why = self.screen_mode()
        self.notes.append(why)
        end = budget.budget_screen_end(self.opts["budget"], self.clock.elapsed(), self.st["done"]["baseline"]["run_s"],
                                       self.opts["alpha"], len(installed))
        fits = int((end - self.clock.elapsed() - budget.RUNNER_OVERHEAD) / (reps * unit_s * budget.SLACK))
        if fits < 2 or len(installed) < 2:
            self.cut("screen", "the screen (no room left in the budget after the confirmation's share)")
            self.save("screen", {"skipped": "no room in the budget", "candidates": [], "mode": mode})
            return
        if fits < len(installed):
            self.cut("screen", "screen of " + ", ".join(e.name for e, _ in installed[fits:]))
            installed = installed[:fits]
        self.clock.show("screen", f"{len(installed)} allocators at their defaults ({mode})", end)
        records, unit_s = self.screen_run(os.path.join("screen", "defaults"), mode, [e.name for e, _ in installed],
                                          [""], reps)
        screened, dirs = [], {"defaults": os.path.join("screen", "defaults")}
        for entry, family in installed:
            screened.append(advise_candidate_row(candidates.Candidate(entry, family, ()), "screen",
                                                 records.get((entry.name,))))
            if not family:
                self.notes.append(f"{entry.name} has no tunables catalogued: screened at its defaults only")
        key = choose.SCREEN_FIGURE[self.opts["goal"]] if mode == "replay" else choose.PROGRAM_FIGURE[self.opts["goal"]]
        by_name = {r["allocator"]: r for r in screened}
        for entry, family in sorted(installed, key=lambda ef: choose.choose_figure(by_name[ef[0].name], key)):
            cands = candidates.candidates_for(entry, family, hints)[1:]
            if not cands or "refused" in by_name[entry.name]:
                continue
            fits = int((end - self.clock.elapsed() - budget.RUNNER_OVERHEAD)
                       / (reps * unit_s * budget.SLACK + budget.VERIFY_COST))
            if fits < len(cands):
                self.cut("screen", f"screen of {entry.name} at " + ", ".join(c.label() for c in cands[max(0, fits):]))
            cands = cands[:max(0, fits)]
            if not cands:
                continue
            self.clock.show("screen", f"{entry.name} at {len(cands)} settings ({mode})")
            applied = [c for c in cands if candidates.candidates_verify(c)]
            tag = os.path.join("screen", entry.name)
            records = {}
            if applied:
                records, unit_s = self.screen_run(tag, mode, [entry.name], [c.env_text() for c in applied], reps)
                dirs[entry.name] = tag
            for c in cands:
                rec = records.get((entry.name,) + measure.measure_env_key(c.env_text())) if c.applied else None
                screened.append(advise_candidate_row(c, "screen", rec))
        self.save("screen", {"dirs": dirs, "candidates": screened, "mode": mode})

    def wall_limit(self, seconds):
        """Wall seconds a run may take where the budget gives it seconds on its own clock: as many on the wall
        clock; on the CPU clock ten times as many, since a busy machine stretches a run's wall time (at load 60
        on 2 CPUs, a 1 s compile took over 18 s) and the CPU budget is there not to count that; a run that
        hangs is still stopped."""
        return seconds * (10 if self.opts.get("budget_clock") == "cpu" else 1)

    def run_timeout(self):
        """Wall seconds one run of the program may take in the screen and the confirmation: twenty times the
        baseline's, at least 30 s (a candidate that hangs fails its run instead of holding the budget; the
        margin is wide because the load may rise between the baseline and a later run: from load 2 to 40 on
        2 CPUs a run's wall time grows ~20x, and a baseline that times out ends advise)."""
        return max(30.0, 20 * self.st["done"]["baseline"]["wall"])

    def cut(self, stage, what):
        """Names what the budget left out of stage (printed, in advice.json; --resume with a larger budget runs it)."""
        self.st["dropped"].append(what)
        if stage not in self.st.setdefault("cut", []):
            self.st["cut"].append(stage)

    def replay_argv(self, allocators):
        """The runner command line that replays the profile's trace under allocators (without --env/-o)."""
        argv = [cli.binary(), "run", "-w", "trace:" + os.path.join(self.out, self.st["done"]["profile"]["trace"]),
                "-a", ",".join(allocators), "-n", str(budget.SCREEN_REPS), "--warmup", "0"]
        return argv + (["--latency", latency.SAMPLED] if self.opts["goal"] == "latency" else [])

    def confirm(self):
        """The best screened candidates (front + best per goal) on the real program, interleaved with the
        baseline; then, while the answer is not decided, a look is left (at most sequential.LOOKS rounds)
        and the budget holds another round at the reps Holm needs at that look's alpha over every
        candidate tested so far, the next candidates of the screen's order, each round with its own
        baseline. After each round the answer is judged at that look (recommend.recommend with look j:
        alpha spent over the looks, Holm over the candidates): a recommendation, or a "keep" with the
        screen's best run on the program, ends the rounds; else the next round runs first the candidates
        the look left open again (their new runs replace the old, with up to twice the first round's
        reps: recommend_keep_share splits the keep's alpha over a candidate's runs), then untested ones;
        the rest is named as untested."""
        scr = self.st["done"]["screen"]
        chosen = choose.choose(scr["candidates"], self.opts["goal"],
                               program=scr.get("mode") == "program")
        if not chosen and not scr["candidates"]:  # no screen: every installed allocator at its defaults
            chosen = [{"allocator": e.name, "settings": [], "label": e.name, "env": ""}
                      for e, _ in advise_installed(self.opts["allocators"]) if e.name != "glibc"]
        if not chosen:
            self.save("confirm", {"skipped": "no screened candidate ran without failing", "chosen": []})
            return
        rounds, tested, remaining = self.confirm_prior(chosen)
        decided, continued = "", bool(rounds)
        max_reps = self.st.get("max_reps", budget.MAX_REPS)
        while remaining and len(rounds) < sequential.LOOKS and not decided:
            labels = {c["label"] for c in remaining}
            plan = self.confirm_plan(remaining, len({c["label"] for c in tested} - labels),
                                     confirm_reps_cap(rounds, continued, max_reps, remaining[0], tested),
                                     len(rounds) + 1)
            if plan is None:
                break
            k, reps, cost = plan
            batch = remaining[:k]
            tag = "confirm" if not rounds else f"confirm{len(rounds) + 1}"
            cells = self.confirm_round(tag, batch, reps, cost, len(tested) + len(confirm_untested(remaining, tested)))
            if cells is None:
                break  # the watchdog stopped it before its baseline had two runs: not a round
            rounds.append({"dir": tag, "labels": [c["label"] for c in batch], "reps": reps, "cells": cells})
            tested = tested + [c for c in batch if c["label"] not in {t["label"] for t in tested}]
            untested = confirm_untested(remaining[k:], tested)
            decided, still = self.confirm_look(rounds, tested, untested)
            remaining = confirm_next(tested, still, untested)
        self.st.pop("confirm_before", None)
        if not rounds:
            self.cut("confirm", "the confirmation on the program (no room left in the budget)")
            self.save("confirm", {"skipped": "no room left in the budget", "chosen": [], "untested": chosen})
            return
        if remaining and not decided:
            self.cut("confirm", "confirmation of " + ", ".join(c["label"] for c in remaining))
        self.save("confirm", {"dir": rounds[0]["dir"], "rounds": rounds, "chosen": tested, "reps": rounds[0]["reps"],
                              "untested": confirm_untested(remaining, tested), "decided": decided})

    def confirm_prior(self, chosen):
        """(rounds, tested, remaining) the confirmation starts from: nothing and every chosen candidate; or,
        after --resume --budget N of an undecided answer (state's confirm_before), the rounds (looks) already
        taken, so that the alpha they spent stays spent, and as remaining the candidates those looks left
        open (run again in a round of their own, whose runs replace theirs), then the ones never run."""
        prior = self.st.get("confirm_before") or {}
        rounds, tested = list(prior.get("rounds") or []), list(prior.get("chosen") or [])
        if not rounds:
            return [], [], chosen
        _, _, _, still = self.confirm_judge(rounds, tested)
        return rounds, tested, confirm_next(tested, still, confirm_untested(chosen, tested))

    def confirm_judge(self, rounds, tested):
        """(answer, records, refused, still) at the look after the last round: recommend.recommend at that
        look over the rounds' records, and the labels of the tested candidates it left open, not refused
        for failing, which the next round runs again."""
        base, records, _, refused = self.records({"rounds": rounds, "chosen": tested})
        got = recommend.recommend(self.opts["goal"], base, records, self.opts["threshold"] / 100, self.opts["alpha"],
                                  look=len(rounds))
        return got, records, refused, set(got.get("open") or []) - set(refused)

    def confirm_look(self, rounds, tested, remaining):
        """The look after the last round: (the answer's verdict when it is decided (recommend, or keep with
        the screen's best run on the program), '' when the rounds go on; confirm_judge's labels left open)."""
        got, records, refused, still = self.confirm_judge(rounds, tested)
        answer.answer_keep_covered(got, {"chosen": tested, "untested": remaining}, records, refused,
                                   self.st["done"]["screen"].get("mode"))
        return (got["verdict"] if got["verdict"] in (recommend.RECOMMEND, recommend.KEEP) else ""), still

    def confirm_plan(self, remaining, family_before, max_reps, look):
        """budget.budget_confirm_plan of the next round (look number look) over the remaining candidates, at
        that look's alpha (None: none fits)."""
        user, families = self.opts.get("user_env", ""), choose.choose_families()  # the registry read once, not per k
        return budget.budget_confirm_plan(self.opts["budget"], self.clock.elapsed(), self.st["done"]["baseline"]["run_s"],
                                          lambda k: choose.choose_cells(remaining[:k], user, families),
                                          recommend.recommend_look_alpha(self.opts["alpha"], look),
                                          len(remaining), max_reps, family_before)

    def confirm_round(self, tag, batch, reps, cost, total):
        """One interleaved invocation of the baseline and batch, the candidates' settings packed into as
        few env sets as their families allow (choose.choose_round); {label: the env set of its cell}, or
        None when its baseline had fewer than two runs."""
        user = self.opts.get("user_env", "")
        allocators, envs, cells = choose.choose_round(batch, user)
        self.clock.show("confirm", f"{len(batch)} candidate(s) and the baseline, {reps} reps each"
                        + (f" ({tag}, {total} candidates in all)" if tag != "confirm" else ""),
                        self.clock.elapsed() + cost)
        records = self.measure(tag, self.program_argv(allocators, reps, 1, self.run_timeout()), envs)
        base = records.get(("glibc",) + measure.measure_env_key(user))
        return cells if base and base["reps_ok"] >= 2 else None

    def records(self, conf=None):
        """(baseline record, {label: record}, axis, {label: refusal}) of the confirm run (conf: its rounds and
        chosen, default the saved stage's), the speed axis applied (tune.speed); a candidate with a failed run
        is refused with the count, a failed baseline run ends advise. A candidate run in several rounds
        (left open, run again) keeps its last round's record, its "tests" the rounds it ran in."""
        conf = conf or self.st["done"]["confirm"]
        rounds = conf.get("rounds") or [{"dir": conf["dir"], "labels": [c["label"] for c in conf["chosen"]]}]
        by_label = {c["label"]: c for c in conf["chosen"]}
        first, out, refused, runs = None, {}, {}, {}
        axis = self.st["done"]["baseline"].get("speed")
        for rnd in rounds:
            base, recs, refusals = self.round_records(rnd["dir"], [by_label[label] for label in rnd["labels"]],
                                                      rnd.get("cells") or {})
            first = first or base
            axis = axis or speed.speed_resolve("auto", [base] + list(recs.values()))
            for rec in [base] + list(recs.values()):
                rec["mem"] = rec["peak"]
                speed.speed_apply(rec, axis)
            for label, rec in recs.items():
                runs[label] = runs.get(label, 0) + 1
                rec.update(vs=base, tests=runs[label])  # its own round's baseline; its runs (recommend_tests)
            out.update(recs)
            refused.update(refusals)
        return first, out, axis, refused

    def round_records(self, tag, chosen, cells):
        """(baseline record, {label: record}, {label: refusal}) of one confirmation round's directory;
        cells: {label: the env set its cell ran in} (a candidate not in it ran in its own)."""
        path = os.path.join(self.out, tag)
        data = results.load(path)
        by_key = {}
        for recs in measure.measure_cells(data, "confirm", by_allocator=True).values():
            by_key.update(recs)
        base = by_key.get(("glibc",) + measure.measure_env_key(self.opts.get("user_env", "")))
        out, refused = {}, {}
        for c in chosen:
            rec = by_key.get((c["allocator"],) + measure.measure_env_key(cells.get(c["label"], c["env"])))
            if rec and rec["failed"]:
                refused[c["label"]] = advise_refusal(rec)
            elif rec and rec["reps_ok"]:
                rec.update(label=c["label"], env=c["label"], tag="confirm")
                out[c["label"]] = rec
        if base is None or not base["reps_ok"] or base["failed"]:
            why = advise_refusal(base) if base else "no run"
            raise AdviseStop(f"the program as it is (the baseline) failed in the confirmation run ({why}); "
                             f"see {path}", 1)
        base.update(label="glibc (baseline)", env="", tag="confirm")
        return base, out, refused


def advise_user_env():
    """The allocator variables of the caller's environment (GLIBC_TUNABLES, MALLOC_ARENA_MAX, ...) as the
    runner's --env text: the baseline keeps them (the program as it is); every candidate runs without
    them. LD_PRELOAD is left out: the runner sets it for each allocator."""
    pairs = [f"{k}={v}" for k, v in sorted(os.environ.items())
             if verify.FAMILY_VARS.match(k) and k != "LD_PRELOAD" and " " not in v]
    return " ".join(pairs)


def advise_failure_line(why, timeout, failed=1, runs=1, last=""):
    """One line for a baseline that did not run, or failed in some runs: what happened and what to do."""
    if "preload had no effect" in why:
        return ("the program ignores LD_PRELOAD (statically linked or setuid): no other allocator can be put under "
                "it, and its allocations cannot be recorded; nothing to advise")
    if why.startswith("timeout"):
        return (f"one run of the program took longer than {timeout:.0f} s of wall time (30% of --budget, ten times "
                "that with --budget-clock cpu): the budget is too small for even the baseline; give a larger --budget")
    said = f"; its last line: {last!r}" if last and "its last line" not in why else ""  # the runner may have said it
    if any(w in last.lower() for w in ("tty", "terminal", "/dev/tty", "not a typewriter")):
        return (f"the program needs a terminal{said}: advise runs it without one, with no input (as a service runs); "
                "give it options that make it run without a terminal (a batch or non-interactive mode)")
    return (f"the program failed under its own allocator in {failed} of {runs} runs ({why}{said}); "
            "fix the command and run advise again")


def advise_last_line(path):
    """The last non-empty output line of the program in a runner directory's logs (the newest run's), '' without one."""
    logs = os.path.join(path, "logs")
    try:
        names = sorted((n for n in os.listdir(logs) if n.endswith(".log")), key=lambda n: int(n.split(".")[0])
                       if n.split(".")[0].isdigit() else 0, reverse=True)
    except OSError:
        return ""
    for name in names:
        try:
            with open(os.path.join(logs, name), encoding="utf-8", errors="replace") as f:
                lines = [line.strip() for line in f if line.strip()]
        except OSError:
            continue
        if lines:
            return lines[-1][:200]
    return ""


def advise_left_behind(path):
    """The runner's 'left N process(es) behind' reason of any run of a directory ('' when none)."""
    data = results.load(path)
    for row in data["runs"]:
        reason = row.get("reason") or ""
        if "behind" in reason and reason.startswith("left"):
            return reason
    return ""


def advise_no_daemon(path):
    """AdviseStop (exit 1, one line) when a run of the runner directory path left processes behind (a daemon)."""
    behind = advise_left_behind(path)
    if behind:
        raise AdviseStop(f"the program leaves processes running after it exits ({behind}; the runner "
                         "killed them): advise measures one process tree per run; run the service in the "
                         "foreground (its --foreground or --no-daemon option) and advise on that", 1)


def advise_spread(samples):
    """Half the range of samples relative to their median (0 with fewer than 2)."""
    if len(samples) < 2:
        return 0.0
    mid = sorted(samples)[len(samples) // 2]
    return (max(samples) - min(samples)) / 2 / mid if mid > 0 else 0.0


def advise_speed(asked, rec):
    """(axis, why) of the time goal's figure: asked, or for auto the metric when the runs read one, else the
    steadier of wall and CPU time over the baseline's runs (wall on a tie)."""
    wall, cpu = advise_spread(rec["time_samples"]), advise_spread(rec["cpu_samples"])
    seen = f"the baseline's {rec['reps_ok']} runs varied ±{wall * 100:.0f}% in wall time, ±{cpu * 100:.0f}% in CPU time"
    if asked != "auto":
        return asked, f"speed: {speed.speed_name(asked, [rec])} (--speed {asked}; {seen})"
    if rec.get("metric_name"):
        return "metric", f"speed: the program's figure {rec['metric_name']} (--metric)"
    if wall <= cpu or not rec["cpu_samples"]:
        return "wall", f"speed: wall time, chosen as {seen}"
    return "cpu", f"speed: CPU time (user+sys), chosen as {seen}; --speed wall to rank on wall time"


def advise_refusal(rec):
    """'failed in N of M runs (first reason)' of a measured record."""
    runs = rec["reps_ok"] + len(rec["failed"])
    return f"failed in {len(rec['failed'])} of {runs} runs ({rec['failed'][0] if rec['failed'] else 'no run'})"


def advise_stdin_fed():
    """Whether advise's standard input carries data (a pipe with bytes waiting, a non-empty file):
    the program would read it once, in its first run only."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return os.fstat(0).st_size > os.lseek(0, 0, os.SEEK_CUR)
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        ready, _, _ = select.select([0], [], [], 0)
        if not ready:
            return False
        buf = array.array("i", [0])
        fcntl.ioctl(0, termios.FIONREAD, buf)
        return buf[0] > 0
    return False


def advise_stdin_probe():
    """The probe run's input: the read end of a pipe holding one empty line, its write end closed (a
    program that reads its input gets that line, then end of file, and goes on; one that does not
    leaves it); advise_stdin_read tells which, and closes it."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"\n")
    os.close(write_end)
    return read_end


def advise_stdin_read(fd):
    """Whether a process read the line advise_stdin_probe put in its pipe (fd, closed here)."""
    try:
        buf = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, buf)
        return buf[0] == 0
    finally:
        os.close(fd)


def advise_installed(names):
    """candidates.candidates_installed() of the -a names (None: all), an AdviseStop for a bad name."""
    try:
        return candidates.candidates_installed(cli.split_list(names) if names else None)
    except ValueError as err:
        raise AdviseStop(str(err), 2) from err


def advise_candidate_row(cand, stage, rec):
    """A candidate as advice.json lists it (and state.json keeps it): settings, verification, figures."""
    row = {"stage": stage, "allocator": cand.allocator, "label": cand.label(), "env": cand.env_text(),
           "settings": [[k.name, v] for k, v in cand.point], "verified": "yes" if cand.applied else
           f"no: {cand.reason}", "baseline": cand.is_baseline()}
    if rec and rec["failed"]:
        row["refused"] = advise_refusal(rec)
        row["verdict"] = "refused: " + row["refused"]
    elif rec and rec["reps_ok"]:
        row.update(time=rec["time"], peak_kb=rec["peak"], p99=rec["p99"], cpu=rec["cpu"], reps=rec["reps_ok"],
                   time_samples=rec["time_samples"], peak_samples=rec["peak_samples"])
    elif rec:
        row["verdict"] = "failed: no run"
    return row


def advise_write(adv, advice):
    """Writes advice.json, advice.md, advice.html (with the plot) and prints the answer and snippets."""
    advice["plot"] = output.output_plot(adv.out, advice["candidates"], "speed")
    output.output_json(adv.out, advice)
    text = output.output_markdown(advice)
    output.output_html(adv.out, advice, text)
    print(f"advice ({advice['recommendation']['goal']}): {advice['recommendation']['text']}")
    if advice["recommendation"].get("note"):
        print(f"  {advice['recommendation']['note']}")
    for name, snippet in advice["snippets"].items():
        print(f"{name}:\n" + "\n".join("  " + line for line in snippet.splitlines()))
    for label, why in advice.get("refused", {}).items():
        print(f"refused: {label} {why}")
    for item in advice["dropped"]:
        print(f"dropped to fit the budget: {item}")
    unit = output.output_unit(advice)
    print(f"took {advice['elapsed_s']:.0f} {unit} of a {advice['budget_s']:.0f} {unit} budget "
          f"({output.output_stage_ends(advice)})")


def confirm_reps_cap(rounds, continued, max_reps, first, tested):
    """The most reps the next confirmation round may take: max_reps for the first round and for the rounds
    of a --resume; a round that starts with a candidate run before (first), run again because its look
    left it open, up to twice the first round's (at most MAX_REPS_GROWN); other later rounds the first's."""
    if not rounds or continued:
        return max_reps
    if first["label"] in {c["label"] for c in tested}:
        return min(budget.MAX_REPS_GROWN, 2 * rounds[0]["reps"])
    return rounds[0]["reps"]


def confirm_next(tested, still, untested):
    """The candidates of the next round, in order: the tested ones whose label a look left open (still),
    run again first, then the untested."""
    return [c for c in tested if c["label"] in still] + untested


def confirm_untested(candidates, tested):
    """The candidates whose label none of tested has (the order kept)."""
    done = {c["label"] for c in tested}
    return [c for c in candidates if c["label"] not in done]


def advise_resume_budget(st, new_budget):
    """--resume DIR --budget N: the new budget, and the stages the old one cut (or left undecided) run again."""
    grown = new_budget > st["opts"]["budget"]
    st["opts"]["budget"] = new_budget
    if not grown:
        return
    cut = st.get("cut", [])
    again = ("screen", "confirm") if "screen" in cut else ("confirm",) if cut or st.get("verdict") == UNDECIDED else ()
    conf = st["done"].get("confirm") or {}
    if st.get("verdict") == UNDECIDED and "confirm" in st["done"]:
        st["max_reps"] = budget.MAX_REPS_GROWN  # the plan takes what the new budget holds, up to this
        if len(conf.get("rounds") or []) >= sequential.LOOKS:
            raise AdviseStop(f"--resume --budget {new_budget:.0f}: " + answer.answer_looks_spent(st["opts"]["alpha"]), 2)
    if "confirm" in again and conf.get("rounds"):
        st["confirm_before"] = conf  # the looks taken: the new rounds continue them (the alpha they spent stays spent)
    for stage in again:
        st["done"].pop(stage, None)
    if again:
        st["dropped"], st["cut"] = [], []


def advise_setup(argv):
    """(Advise, its state) of a new run or of --resume DIR; exits 2 on bad input."""
    opts, command = advise_args(argv)
    try:
        advise_installed(opts.allocators)
    except AdviseStop as err:
        cli.usage_exit("heapbench advise", str(err))
    if opts.resume:
        try:
            st = state.state_load(opts.resume)
        except state.StateError as err:
            cli.usage_exit("heapbench advise", str(err))
        if "--budget" in argv or any(a.startswith("--budget=") for a in argv):
            try:
                advise_resume_budget(st, opts.budget)
            except AdviseStop as err:
                cli.usage_exit("heapbench advise", str(err))
        out, command = opts.resume, st["command"]
    else:
        out = opts.output or os.path.join(layout.results_dir(), "advise-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
        if os.path.isfile(os.path.join(out, state.STATE)):
            cli.usage_exit("heapbench advise", f"-o {out} holds an earlier advise; continue it with --resume {out} "
                           "or give a new directory")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as err:
            cli.usage_exit("heapbench advise", f"cannot create {out} ({err.strerror}); give a writable -o DIR")
        if advise_stdin_fed():
            cli.usage_exit("heapbench advise", "the standard input carries data, but advise runs the program many "
                           "times with no input (as a service runs); give the input as a file the command opens "
                           "(-- sh -c 'CMD < FILE')")
        keep = ("goal", "budget", "budget_clock", "workloads", "allocators", "metric", "threshold", "alpha", "speed",
                "allow_own_allocator")
        st = state.state_new(dict({k: getattr(opts, k) for k in keep}, user_env=advise_user_env()), command)
        state.state_save(out, st)
    if not os.access(cli.binary(), os.X_OK):
        cli.usage_exit("heapbench advise", f"{cli.binary()} is missing; run 'make' first")
    clock = progress.Progress(st["opts"]["budget"], st.get("spent", 0.0), clock=st["opts"].get("budget_clock", "wall"))
    return Advise(st["opts"], command, out, st, clock)


def main(argv):
    """Entry point of `heapbench advise`; returns the exit code (130 on Ctrl-C, the directory resumable)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    stop.stop_install()
    try:
        adv = advise_setup(argv)
    except KeyboardInterrupt:
        print("heapbench advise: interrupted before the first stage; nothing was measured", file=sys.stderr)
        return 130
    stage = "probe"
    try:
        # The profile comes right after the probe: a program that does not allocate enough for the allocator to
        # matter is answered then, before the baseline's runs and the rest of the budget are spent.
        for stage, run in (("probe", adv.probe), ("profile", adv.profile), ("baseline", adv.baseline), ("screen", adv.screen),
                           ("confirm", adv.confirm)):
            if stage not in adv.st["done"] and not (stage == "probe" and "baseline" in adv.st["done"]) \
                    and not (stage == "profile" and adv.st["done"].get("probe", {}).get("failed")):
                run()  # (a probe that failed: the baseline's runs say what failed first, the profile follows)
            prof = adv.st["done"].get("profile", {})
            if stage == "profile" and "stats" in prof:
                adv.clock.done()
                print("profile:\n" + "\n".join(profile.profile_text(prof["stats"], prof["traits"])), flush=True)
                adv.negligible(prof["stats"])
            if stage == "baseline" and "profile" not in adv.st["done"]:
                adv.profile()
        stage = "recommend"
        advice = answer.answer(adv)
        adv.clock.done()
        advise_write(adv, advice)
        adv.st["verdict"] = advice["recommendation"]["verdict"]
        adv.st["spent"] = adv.clock.elapsed()
        state.state_save(adv.out, adv.st)
    except AdviseStop as err:
        adv.clock.done()
        print(f"heapbench advise: {err} (directory kept: {adv.out})", file=sys.stderr)
        return err.code
    except KeyboardInterrupt:
        adv.clock.done()
        adv.st["spent"] = adv.clock.elapsed()
        state.state_save(adv.out, adv.st)
        print(f"heapbench advise: interrupted in stage {stage}; {adv.out} kept: continue with "
              f"heapbench advise --resume {adv.out}", file=sys.stderr)
        return 130
    print(f"results: {adv.out}")
    return 0
