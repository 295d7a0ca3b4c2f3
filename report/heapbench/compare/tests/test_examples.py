"""test_examples.py - the CI examples of report/heapbench/compare/examples/ are valid: yamllint, then the structure of the
GitHub Actions workflows and the GitLab CI file checked in Python (actionlint is not packaged in Debian 12),
and the history script they share run for real.

Always holds: the checks read the files as they are committed; a workflow must be a mapping
with 'on' and 'jobs'; every job has runs-on and steps, every step exactly one of run/uses,
every 'needs' names a job of the file; the sharded jobs take the shard count from their own
matrix and the merge job expects exactly that many shards; a history workflow restores the
history before the gate, gates with it (adding on main), saves it after the gate, and publishes
the 'history report' site it wrote; the PostgreSQL one takes the URL from a secret and caches
nothing; a GitLab job has a stage of 'stages' and a script, caches the SQLite history and
publishes the report's directory as Pages. A broken copy must fail (tested).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

from heapbench import cli

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
WORKFLOW = os.path.join(EXAMPLES, "github-actions.yml")
HISTORY = os.path.join(EXAMPLES, "github-history.yml")
POSTGRES = os.path.join(EXAMPLES, "github-history-postgresql.yml")
GITLAB = os.path.join(EXAMPLES, "gitlab-history.yml")
ROOT = cli.ROOT


def load(text):
    """(YAML document, []) or (None, [what is wrong])."""
    try:
        return yaml.safe_load(text), []
    except yaml.YAMLError as err:
        return None, [f"not YAML: {err}"]


def workflow_problems(text, extra=None):
    """A list of what is wrong with a GitHub Actions workflow's structure ([] when nothing);
    extra(jobs) adds the checks of one kind of workflow (default: the sharded one's)."""
    doc, problems = load(text)
    if problems:
        return problems
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict) or not doc["jobs"]:
        return ["no 'jobs' mapping"]
    problems = [] if ("on" in doc or True in doc) else ["no 'on' trigger"]
    for name, job in doc["jobs"].items():
        problems += job_problems(name, job, doc["jobs"])
    return problems + (extra or shard_problems)(doc["jobs"])


def _steps(jobs):
    """[(job name, index, step)] of every step of every job."""
    return [(name, i, step) for name, job in jobs.items() if isinstance(job, dict)
            for i, step in enumerate(job.get("steps") or []) if isinstance(step, dict)]


def _first(steps, test):
    """Index in steps of the first (job, i, step) for which test(step) holds, else None."""
    return next((k for k, (_, _, step) in enumerate(steps) if test(step)), None)


def _runs(word):
    """A step test: its run script contains word."""
    return lambda step: word in str(step.get("run", ""))


def _uses(action):
    """A step test: it uses action (any version)."""
    return lambda step: str(step.get("uses", "")).split("@")[0] == action


def gate_and_publish_problems(jobs, steps):
    """The gate runs with a history and adds on main; a 'history report -o DIR' step comes after it and a
    gh-pages step publishes exactly DIR after the report."""
    problems = []
    gate = _first(steps, lambda s: "ci-history.sh" in str(s.get("run", "")) or "ci --history" in str(s.get("run", "")))
    if gate is None:
        return ["no step gates with --history (report/heapbench/compare/examples/ci-history.sh)"]
    env = {**(jobs[steps[gate][0]].get("env") or {})}
    if "ci-history.sh" in str(steps[gate][2].get("run")) and "github.event_name == 'push'" not in str(env.get("ADD")):
        problems.append("the gate job does not set ADD on a push to main (runs would never be added)")
    report = _first(steps, _runs("history report"))
    publish = _first(steps, _uses("peaceiris/actions-gh-pages"))
    if report is None or publish is None:
        return problems + ["no 'history report' step, or no gh-pages publish step"]
    site = re.search(r"-o\s+(\S+)", str(steps[report][2]["run"]))
    if not site or (steps[publish][2].get("with") or {}).get("publish_dir") != site.group(1):
        problems.append("the gh-pages step does not publish the directory that 'history report -o' wrote")
    if publish < report or (steps[report][0] == steps[gate][0] and report < gate):
        problems.append("the report or the publish step comes before what it needs")
    return problems


def history_problems(jobs):
    """A SQLite history workflow: cache restore, then the gate, then the cache save of the same path as
    HEAPBENCH_HISTORY, then the report and its publication."""
    steps = _steps(jobs)
    problems = gate_and_publish_problems(jobs, steps)
    restore, save = _first(steps, _uses("actions/cache/restore")), _first(steps, _uses("actions/cache/save"))
    gate = _first(steps, _runs("ci-history.sh"))
    if restore is None or save is None or gate is None:
        return problems + ["no cache restore or no cache save of the history"]
    if not restore < gate < save:
        problems.append("the history must be restored before the gate and saved after it")
    history = (jobs[steps[gate][0]].get("env") or {}).get("HEAPBENCH_HISTORY")
    for k in (restore, save):
        if (steps[k][2].get("with") or {}).get("path") != history:
            problems.append(f"the cache step {steps[k][2].get('name')!r} does not keep HEAPBENCH_HISTORY ({history})")
    return problems


def postgresql_problems(jobs):
    """A PostgreSQL history workflow: the URL from a secret in every job that uses the history, a matrix
    over runners, no cache."""
    steps = _steps(jobs)
    problems = gate_and_publish_problems(jobs, steps)
    for name, job in jobs.items():
        url = str((job.get("env") or {}).get("HEAPBENCH_HISTORY", ""))
        if not url.startswith("${{ secrets."):
            problems.append(f"job {name}: HEAPBENCH_HISTORY does not come from a secret")
    if not any("runner" in ((j.get("strategy") or {}).get("matrix") or {}) for j in jobs.values()):
        problems.append("no job with a matrix over runners")
    if _first(steps, lambda s: str(s.get("uses", "")).startswith("actions/cache")) is not None:
        problems.append("a shared PostgreSQL history must not be cached per runner")
    return problems


GITLAB_KEYWORDS = {"stages", "variables", "default", "workflow", "include", "image", "services", "cache",
                   "before_script", "after_script"}


def gitlab_problems(text):
    """What is wrong with the GitLab CI example: jobs with a declared stage and a script; 'needs' known;
    the gate job caches HEAPBENCH_HISTORY, runs the history gate and writes the report into the
    directory the 'pages' job publishes."""
    doc, problems = load(text)
    if problems:
        return problems
    if not isinstance(doc, dict) or not isinstance(doc.get("stages"), list):
        return ["no 'stages' list"]
    jobs = {k: v for k, v in doc.items() if k not in GITLAB_KEYWORDS and not k.startswith(".")}
    for name, job in jobs.items():
        if not isinstance(job, dict) or job.get("stage") not in doc["stages"]:
            problems.append(f"job {name}: no stage of {doc['stages']}")
        elif not isinstance(job.get("script"), list) or not job["script"]:
            problems.append(f"job {name}: no script")
        else:
            problems += [f"job {name}: needs unknown job {n!r}" for n in job.get("needs", []) if n not in jobs]
    gate = next((j for j in jobs.values() if isinstance(j, dict) and "ci-history.sh" in str(j.get("script"))), None)
    if gate is None:
        return problems + ["no job runs report/heapbench/compare/examples/ci-history.sh"]
    history = (gate.get("variables") or {}).get("HEAPBENCH_HISTORY")
    if history not in ((gate.get("cache") or {}).get("paths") or []):
        problems.append(f"the gate job does not cache HEAPBENCH_HISTORY ({history})")
    site = re.search(r"history report .*-o\s+(\S+)", "\n".join(map(str, gate["script"])))
    pages = jobs.get("pages") or {}
    if not site or site.group(1) != "public" or "public" not in ((pages.get("artifacts") or {}).get("paths") or []):
        problems.append("'history report -o public' and a 'pages' job publishing public/ are needed for GitLab Pages")
    return problems


def job_problems(name, job, jobs):
    """What is wrong with one job: runs-on, steps (each with exactly one of run/uses), needs."""
    if not isinstance(job, dict):
        return [f"job {name}: not a mapping"]
    problems = [] if job.get("runs-on") else [f"job {name}: no runs-on"]
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        return problems + [f"job {name}: no steps"]
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or ("run" in step) == ("uses" in step):
            problems.append(f"job {name} step {i + 1}: needs exactly one of 'run' and 'uses'")
    needs = job.get("needs", [])
    for need in [needs] if isinstance(needs, str) else needs:
        if need not in jobs:
            problems.append(f"job {name}: needs unknown job {need!r}")
    return problems


def shard_problems(jobs):
    """The job with a matrix over 'shard' and the job that merges with --expect N agree on N."""
    sharded = {n: j for n, j in jobs.items() if isinstance(j, dict)
               and "shard" in ((j.get("strategy") or {}).get("matrix") or {})}
    if not sharded:
        return ["no job with a matrix over shards"]
    count = {len(j["strategy"]["matrix"]["shard"]) for j in sharded.values()}
    expects = [int(m) for j in jobs.values() if isinstance(j, dict) for s in j.get("steps") or []
               if isinstance(s, dict) for m in re.findall(r"merge --expect (\d+)", str(s.get("run", "")))]
    if not expects:
        return ["no step runs 'heapbench merge --expect N'"]
    return [] if set(expects) == count else [f"merge --expect {expects} but the matrix has {count} shards"]


class ExamplesTest(unittest.TestCase):
    """The committed CI examples."""

    @unittest.skipUnless(shutil.which("yamllint"), "yamllint is not installed (apt-get install yamllint)")
    def test_yamllint(self):
        """yamllint (strict, the folder's .yamllint) passes on every YAML example."""
        files = sorted(os.path.join(EXAMPLES, f) for f in os.listdir(EXAMPLES) if f.endswith(".yml"))
        self.assertEqual(len(files), 6, files)
        proc = subprocess.run(["yamllint", "-s", "-c", os.path.join(EXAMPLES, ".yamllint")] + files,
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_history_examples_structure(self):
        """The SQLite and PostgreSQL history workflows and the GitLab file pass their checkers."""
        for path, check in ((HISTORY, lambda t: workflow_problems(t, history_problems)),
                            (POSTGRES, lambda t: workflow_problems(t, postgresql_problems)),
                            (GITLAB, gitlab_problems)):
            with open(path) as fh:
                self.assertEqual(check(fh.read()), [], path)

    def test_history_checkers_catch_breakage(self):
        """Each history checker reports a broken copy: the save before the gate, another cache path, a
        publish of another directory, no ADD on main, a URL not from a secret, a cache in the PostgreSQL
        variant, an undeclared GitLab stage, the history not cached, the site not in public/."""
        def read(path):
            with open(path) as fh:
                return fh.read()
        history, postgres, gitlab = read(HISTORY), read(POSTGRES), read(GITLAB)
        save = history[history.index("      - name: Save the history"):history.index("      - name: Summary on")]
        cases = ((HISTORY, history.replace(save, "").replace("      - name: Restore the history", save +
                                                                "      - name: Restore the history"), "saved after"),
                 (HISTORY, history.replace("path: results/history.sqlite\n          key: heapbench-history-${{ "
                                           "github.run_id }}\n      - name: Summary", "path: results/h.db\n          key: "
                                           "heapbench-history-${{ github.run_id }}\n      - name: Summary"), "does not keep"),
                 (HISTORY, history.replace("publish_dir: results/site", "publish_dir: results/ci"), "does not publish"),
                 (HISTORY, history.replace("ADD: ${{ github.event_name == 'push' && '1' || '0' }}", "ADD: '0'"),
                  "does not set ADD"),
                 (POSTGRES, postgres.replace("${{ secrets.HEAPBENCH_HISTORY_URL }}", "postgresql://u:pw@db/h", 1),
                  "secret"),
                 (POSTGRES, postgres.replace("      - name: Build\n", "      - uses: actions/cache@v4\n"
                                             "      - name: Build\n"), "must not be cached"),
                 (GITLAB, gitlab.replace("stage: publish", "stage: deploy"), "no stage"),
                 (GITLAB, gitlab.replace("paths: [results/history.sqlite]", "paths: [results/other.sqlite]"),
                  "does not cache"),
                 (GITLAB, gitlab.replace("-o public", "-o site"), "GitLab Pages"))
        checks = {HISTORY: lambda t: workflow_problems(t, history_problems),
                  POSTGRES: lambda t: workflow_problems(t, postgresql_problems), GITLAB: gitlab_problems}
        for path, broken, word in cases:
            original = {HISTORY: history, POSTGRES: postgres, GITLAB: gitlab}[path]
            self.assertNotEqual(broken, original, word)
            problems = checks[path](broken)
            self.assertTrue(any(word in p for p in problems), (word, problems))

    @unittest.skipUnless(os.access(os.path.join(ROOT, "build", "heapbench"), os.X_OK), "build/heapbench is not built")
    def test_history_script_seeds_then_gates(self):
        """ci-history.sh, as the examples run it, on a temporary SQLite history: a new testbed is seeded
        (2 runs, exit 0, nothing gated), then the next job gates against it (PASS) and adds its run."""
        script = os.path.join(EXAMPLES, "ci-history.sh")
        matrix = ["-w", "thread-churn", "-a", "glibc", "-t", "1", "-p=--mode=loop --ops=20000", "-n", "3", "--window", "5"]
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, HEAPBENCH_HISTORY=os.path.join(tmp, "h.sqlite"), ADD="1", SEEDS="3",
                       HEAPBENCH_OUT=os.path.join(tmp, "ci1"))
            proc = subprocess.run([script] + matrix, capture_output=True, text=True, env=env)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr[-1500:])
            self.assertIn("seeding it with 3 runs", proc.stdout)
            self.assertEqual(proc.stderr.count("ci: added"), 3, proc.stderr[-1500:])
            env["HEAPBENCH_OUT"] = os.path.join(tmp, "ci2")
            proc = subprocess.run([script] + matrix, capture_output=True, text=True, env=env)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr[-1500:])
            self.assertIn("ci: PASS", proc.stderr)
            self.assertIn("ci: added", proc.stderr)
            self.assertTrue(os.path.exists(os.path.join(tmp, "ci2", "junit.xml")))

    def test_workflow_structure(self):
        """The workflow's jobs are well formed and the shard count agrees with merge --expect."""
        with open(WORKFLOW) as fh:
            self.assertEqual(workflow_problems(fh.read()), [])

    def test_checker_catches_breakage(self):
        """A step with neither run nor uses, an unknown need, a mismatched --expect: each reported."""
        with open(WORKFLOW) as fh:
            text = fh.read()
        for broken, word in ((text.replace("needs: shard", "needs: sharding"), "unknown job"),
                             (text.replace("merge --expect 3", "merge --expect 2"), "--expect"),
                             (text.replace("        run: make deps && make\n", "        shell: bash\n", 1), "exactly one")):
            self.assertNotEqual(broken, text)
            self.assertTrue(any(word in p for p in workflow_problems(broken)), word)
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.yml")
            with open(bad, "w") as fh:
                fh.write(text.replace("  shard:\n", "  shard:\n   x: [\n", 1))
            if shutil.which("yamllint"):
                self.assertNotEqual(subprocess.run(["yamllint", "-c", os.path.join(EXAMPLES, ".yamllint"), bad],
                                                   capture_output=True).returncode, 0)


if __name__ == "__main__":
    unittest.main()
