"""advise.py - `heapbench advise`: one command from "my program" to "run it with this allocator and these settings".

Always holds: the stages run in order (baseline, profile, screen, confirm, recommend), each
through the CLI's own commands (exec or run -w prog:NAME, record, trace, run -w trace:FILE) and
tune's and compare's Python layers (tune.measure, tune.speed, tune.verify, tune.knobs,
heapbench.stats), never a copy of them; state.json is saved after each stage, so a Ctrl-C
leaves a directory that --resume continues; every candidate's setting is verified before it is
measured; the real program (confirm) decides, the replay (screen) only chooses what to confirm;
a recommendation needs compare's test with Holm over the confirmed candidates (recommend.py).
Prints the profile, the answer and the snippets on stdout, progress on stderr; the last line is
`results: DIR`.
"""
import datetime
import os
import shutil
import signal
import sys

from heapbench import cli, latency, layout, ownalloc, results
from heapbench.advise import answer, budget, candidates, choose, output, profile, progress, state
from heapbench.tune import measure, speed, verify

GOALS = ("time", "memory", "latency", "balanced")


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
    return opts, command


class AdviseStop(Exception):
    """The advice ends early with one line (the message) and an exit code; the directory is kept."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


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
        return argv + (["-w", self.opts["workloads"]] if self.opts["workloads"] else ["--"] + self.command)

    def measure(self, tag, argv, envs):
        """{(allocator,) + env key: record} of one runner invocation into out/tag (a fresh directory)."""
        path = os.path.join(self.out, tag)
        shutil.rmtree(path, ignore_errors=True)  # an interrupted attempt of this stage
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            data = measure.measure_points(argv, envs, path, self.clean_env, log=self.log)
        except measure.MeasureUsageError as err:
            raise AdviseStop(f"the runner refused the options ({err}); see {self.log.name}", 2) from err
        except results.ResultsError as err:
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
    def baseline(self):
        """The program as it is (the system's glibc, defaults), a few reps: its run time sizes the plan."""
        self.clock.show("baseline", "the program as it is", self.opts["budget"])
        reps = budget.BASELINE_REPS
        argv = self.program_argv(["glibc"], reps, 0, timeout=self.opts["budget"] * 0.3)
        user = self.opts.get("user_env", "")
        if user:
            self.notes.append(f"the baseline keeps the allocator variables of your environment ({user}); "
                              "the candidates run without them")
        records = self.measure("baseline", argv, [user])
        rec = records.get(("glibc",) + measure.measure_env_key(user))
        if rec is None or not rec["reps_ok"]:
            why = rec["failed"][0] if rec and rec["failed"] else "no run"
            raise AdviseStop(advise_failure_line(why, self.opts["budget"] * 0.3), 1)
        # The median (one run slowed by the machine's load does not size the plan), in the clock's unit.
        run_s = rec["cpu"] if self.opts.get("budget_clock") == "cpu" and rec["cpu"] else rec["time"]
        need = budget.budget_too_small(self.opts["budget"], run_s)
        result = {"dir": "baseline", "run_s": run_s, "wall": rec["time"], "peak_kb": rec["peak"], "cpu": rec["cpu"],
                  "metric": rec["metric"], "metric_name": rec["metric_name"]}
        self.save("baseline", result)
        if need:
            unit = self.clock.unit
            raise AdviseStop(f"--budget {self.opts['budget']:g} {unit} is too small: one run takes {run_s:.2f} {unit}, and "
                             f"the stages need about {need:.0f} {unit}; give --budget {need:.0f} or more "
                             f"(heapbench advise --resume {self.out} --budget {need:.0f})", 2)

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
                self.notes.append(f"profile: {err}; the replay screen is skipped, the allocators are confirmed "
                                  "at their defaults")
                return
        traits = profile.profile_traits(stats)
        self.save("profile", {"trace": "profile/trace.hbt", "stats": stats, "traits": traits})

    def screen(self):
        """The trace replayed under every installed allocator at its defaults (one interleaved run), then at
        its key settings (verified first), the most promising allocators first, as far as the budget goes."""
        prof = self.st["done"]["profile"]
        if "error" in prof:
            self.save("screen", {"skipped": prof["error"], "candidates": []})
            return
        hints = [h for _, _, hs in prof["traits"] for h in hs]
        installed = advise_installed(self.opts["allocators"])
        share_end = self.clock.elapsed() + budget.budget_screen_share(self.opts["budget"], self.clock.elapsed())
        self.clock.show("screen", f"replaying under {len(installed)} allocators at their defaults",
                        share_end + 0.5 * (self.opts["budget"] - share_end))
        start = self.clock.elapsed()
        records = self.measure(os.path.join("screen", "defaults"), self.replay_argv([e.name for e, _ in installed]), [""])
        run_s = max(0.05, (self.clock.elapsed() - start - budget.RUNNER_OVERHEAD)
                    / max(1, budget.SCREEN_REPS * len(installed)))
        screened, dirs = [], {"defaults": os.path.join("screen", "defaults")}
        for entry, family in installed:
            screened.append(advise_candidate_row(candidates.Candidate(entry, family, ()), "screen",
                                                 records.get((entry.name,))))
            if not family:
                self.notes.append(f"{entry.name} has no tunables catalogued: screened at its defaults only")
        key = choose.SCREEN_FIGURE[self.opts["goal"]]
        by_name = {r["allocator"]: r for r in screened}
        for entry, family in sorted(installed, key=lambda ef: choose.choose_figure(by_name[ef[0].name], key)):
            cands = candidates.candidates_for(entry, family, hints)[1:]
            if not cands:
                continue
            fits = int((share_end - self.clock.elapsed() - budget.RUNNER_OVERHEAD)
                       / (budget.SCREEN_REPS * run_s + budget.VERIFY_COST))
            if fits < len(cands):
                self.st["dropped"].append(f"screen of {entry.name} at " + ", ".join(c.label() for c in cands[max(0, fits):]))
            cands = cands[:max(0, fits)]
            if not cands:
                continue
            self.clock.show("screen", f"replaying under {entry.name} at {len(cands)} settings")
            applied = [c for c in cands if candidates.candidates_verify(c)]
            tag = os.path.join("screen", entry.name)
            start = self.clock.elapsed()
            records = self.measure(tag, self.replay_argv([entry.name]), [c.env_text() for c in applied]) if applied else {}
            if applied:
                run_s = max(0.05, (self.clock.elapsed() - start - budget.RUNNER_OVERHEAD)
                            / (budget.SCREEN_REPS * len(applied)))
                dirs[entry.name] = tag
            for c in cands:
                rec = records.get((entry.name,) + measure.measure_env_key(c.env_text())) if c.applied else None
                screened.append(advise_candidate_row(c, "screen", rec))
        self.save("screen", {"dirs": dirs, "candidates": screened})

    def replay_argv(self, allocators):
        """The runner command line that replays the profile's trace under allocators (without --env/-o)."""
        argv = [cli.binary(), "run", "-w", "trace:" + os.path.join(self.out, self.st["done"]["profile"]["trace"]),
                "-a", ",".join(allocators), "-n", str(budget.SCREEN_REPS), "--warmup", "0"]
        return argv + (["--latency", latency.SAMPLED] if self.opts["goal"] == "latency" else [])

    def confirm(self):
        """The best screened candidates (front + best per goal) on the real program, interleaved with the baseline."""
        scr = self.st["done"]["screen"]
        chosen = choose.choose(scr["candidates"], self.opts["goal"])
        if not chosen:  # no screen: every installed allocator at its defaults
            chosen = [{"allocator": e.name, "settings": [], "label": e.name, "env": ""}
                      for e, _ in advise_installed(self.opts["allocators"]) if e.name != "glibc"]
        run_s = self.st["done"]["baseline"]["run_s"]
        user = self.opts.get("user_env", "")
        plan = budget.budget_confirm_plan(self.opts["budget"], self.clock.elapsed(), run_s,
                                          lambda k: choose.choose_cells(chosen[:k], user), self.opts["alpha"], len(chosen))
        if plan is None:
            self.st["dropped"].append("the confirmation on the program (no room left in the budget)")
            self.save("confirm", {"skipped": "no room left in the budget", "chosen": []})
            return
        k, reps, cost = plan
        if k < len(chosen):
            self.st["dropped"].append("confirmation of " + ", ".join(c["label"] for c in chosen[k:]))
        chosen = chosen[:k]
        self.clock.show("confirm", f"{k} candidate(s) and the baseline, {reps} reps each",
                        self.clock.elapsed() + cost)
        allocators = sorted({"glibc"} | {c["allocator"] for c in chosen})
        envs = sorted({self.opts.get("user_env", "")} | {c["env"] for c in chosen})
        self.measure("confirm", self.program_argv(allocators, reps, 1), envs)
        self.save("confirm", {"dir": "confirm", "chosen": chosen, "reps": reps})

    def records(self):
        """(baseline record, {label: record}) of the confirm run, the speed axis applied (tune.speed)."""
        conf = self.st["done"]["confirm"]
        data = results.load(os.path.join(self.out, conf["dir"]))
        by_key = {}
        for recs in measure.measure_cells(data, "confirm", by_allocator=True).values():
            by_key.update(recs)
        base = by_key.get(("glibc",) + measure.measure_env_key(self.opts.get("user_env", "")))
        out = {}
        for c in conf["chosen"]:
            rec = by_key.get((c["allocator"],) + measure.measure_env_key(c["env"]))
            if rec and rec["reps_ok"]:
                rec.update(label=c["label"], env=c["label"], tag="confirm")
                out[c["label"]] = rec
        if base is None or not base["reps_ok"]:
            raise AdviseStop(f"the baseline failed in the confirmation run; see {os.path.join(self.out, conf['dir'])}", 1)
        base.update(label="glibc (baseline)", env="", tag="confirm")
        axis = speed.speed_resolve("auto", [base] + list(out.values()))
        for rec in [base] + list(out.values()):
            rec["mem"] = rec["peak"]
            speed.speed_apply(rec, axis)
        return base, out, axis


def advise_user_env():
    """The allocator variables of the caller's environment (GLIBC_TUNABLES, MALLOC_ARENA_MAX, ...) as the
    runner's --env text: the baseline keeps them (the program as it is); every candidate runs without
    them. LD_PRELOAD is left out: the runner sets it for each allocator."""
    pairs = [f"{k}={v}" for k, v in sorted(os.environ.items())
             if verify.FAMILY_VARS.match(k) and k != "LD_PRELOAD" and " " not in v]
    return " ".join(pairs)


def advise_failure_line(why, timeout):
    """One line for a baseline that did not run: what happened and what to do."""
    if "preload had no effect" in why:
        return ("the program ignores LD_PRELOAD (statically linked or setuid): no other allocator can be put under "
                "it, and its allocations cannot be recorded; nothing to advise")
    if why.startswith("timeout"):
        return (f"one run of the program took longer than {timeout:.0f} s (30% of --budget): the budget is too "
                "small for even the baseline; give a larger --budget")
    return f"the program failed under its own allocator ({why}); fix the command and run advise again"


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
    if rec and rec["reps_ok"]:
        row.update(time=rec["time"], peak_kb=rec["peak"], p99=rec["p99"], cpu=rec["cpu"], reps=rec["reps_ok"],
                   time_samples=rec["time_samples"], peak_samples=rec["peak_samples"])
    elif rec:
        row["verdict"] = f"failed: {rec['failed'][0] if rec['failed'] else 'no run'}"
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
    for item in advice["dropped"]:
        print(f"dropped to fit the budget: {item}")
    unit = output.output_unit(advice)
    print(f"took {advice['elapsed_s']:.0f} {unit} of a {advice['budget_s']:.0f} {unit} budget "
          f"({output.output_stage_ends(advice)})")


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
        if "--budget" in argv:
            st["opts"]["budget"] = opts.budget
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
        keep = ("goal", "budget", "budget_clock", "workloads", "allocators", "metric", "threshold", "alpha",
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
    try:
        adv = advise_setup(argv)
    except KeyboardInterrupt:
        print("heapbench advise: interrupted before the first stage; nothing was measured", file=sys.stderr)
        return 130
    stage = "baseline"
    try:
        for stage, run in (("baseline", adv.baseline), ("profile", adv.profile), ("screen", adv.screen),
                           ("confirm", adv.confirm)):
            if stage not in adv.st["done"]:
                run()
            prof = adv.st["done"].get("profile", {})
            if stage == "profile" and "stats" in prof:
                adv.clock.done()
                print("profile:\n" + "\n".join(profile.profile_text(prof["stats"], prof["traits"])), flush=True)
            if stage == "profile" and "stats" in prof and prof["stats"].get("ops", 0) < profile.FEW_OPS \
                    and "confirm" not in adv.st["done"]:
                why = (f"the program made {prof['stats'].get('ops', 0)} malloc-API calls; no allocator or "
                       "setting can matter to it")
                adv.save("screen", {"skipped": why, "candidates": []})
                adv.save("confirm", {"skipped": why, "chosen": []})
        stage = "recommend"
        advice = answer.answer(adv)
        adv.clock.done()
        advise_write(adv, advice)
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
