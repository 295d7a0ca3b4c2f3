"""test_examples.py - the CI examples of compare/examples/ are valid: yamllint, then the structure of a
GitHub Actions workflow checked in Python (actionlint is not packaged in Debian 12).

Always holds: the checks read the files as they are committed; the workflow must be a mapping
with 'on' and 'jobs'; every job has runs-on and steps, every step exactly one of run/uses,
every 'needs' names a job of the file; the sharded jobs take the shard count from their own
matrix and the merge job expects exactly that many shards. A broken copy must fail (tested).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
WORKFLOW = os.path.join(EXAMPLES, "github-actions.yml")


def workflow_problems(text):
    """A list of what is wrong with a GitHub Actions workflow's structure ([] when nothing)."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        return [f"not YAML: {err}"]
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict) or not doc["jobs"]:
        return ["no 'jobs' mapping"]
    problems = [] if ("on" in doc or True in doc) else ["no 'on' trigger"]
    for name, job in doc["jobs"].items():
        problems += job_problems(name, job, doc["jobs"])
    return problems + shard_problems(doc["jobs"])


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
        proc = subprocess.run(["yamllint", "-s", "-c", os.path.join(EXAMPLES, ".yamllint"), WORKFLOW],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

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
