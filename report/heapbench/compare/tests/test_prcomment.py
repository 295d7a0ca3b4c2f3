"""test_prcomment.py - the pull request comment (`ci --pr-comment`), the A/B examples that post it, and post-comment.py against a local HTTP server.

Always holds: no network: the posting script is pointed at an http.server on 127.0.0.1 started here,
which plays GitHub's or GitLab's comment API and records every request (method, path, headers, body);
the server and its thread end with each test.
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import yaml

from heapbench import stats
from heapbench.compare import prcomment

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
POST = os.path.join(EXAMPLES, "post-comment.py")


def row(label, verdict, change=0.1, note=""):
    """One verdicts.run() row."""
    return {"label": label, "metric": "wall_s", "base_median": 1.0, "new_median": 1.0 + change, "change": change,
            "ci_low": change - 0.02, "ci_high": change + 0.02, "p_holm": 0.001, "verdict": verdict, "note": note,
            "needed_reps": 7, "host_new": "ci-runner", "host_base": "ci-runner", "workload": "w", "allocator": "glibc",
            "threshold": 0.05, "threads": 1, "params": "", "env": "", "value": "ratio", "n_base": 5, "n_new": 5, "p": 0.001}


def result(rows):
    return {"rows": rows, "missing": [], "extra": []}


class CommentTest(unittest.TestCase):
    """The comment says the verdict, lists changed and undecided cells, and fits GitHub's limit."""

    def test_verdict_and_sections(self):
        res = result([row("a | <img src=x onerror=alert(1)>", stats.REGRESSION), row("b", stats.SAME, 0.0),
                      row("c", stats.UNDECIDED)])
        text = prcomment.text(res, testbed="runner-1", where="results/ab")
        self.assertTrue(text.startswith(prcomment.MARKER + "\n"))
        self.assertIn("**FAIL**", text)
        self.assertIn("Changed cells (1)", text)
        self.assertIn("Not decided (1)", text)
        self.assertIn("runner-1", text)
        self.assertNotIn("| b |", text, "an unchanged cell is not listed")
        self.assertIn("a \\| &lt;img", text, "a label's | and < are escaped so the table holds and no tag renders")
        self.assertEqual(prcomment.state(result([row("c", stats.UNDECIDED)])), "UNDECIDED")
        self.assertEqual(prcomment.state(result([row("c", stats.UNDECIDED)]), allow_unknown=True), "PASS")
        self.assertEqual(prcomment.state(result([row("b", stats.SAME, 0.0)])), "PASS")

    def test_ci_writes_it(self):
        """compare_write (every ci mode's writer) writes the comment when --pr-comment is given."""
        import argparse
        from heapbench.compare import compare
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "comment.md")
            args = argparse.Namespace(markdown=None, junit=None, pr_comment=path, alpha=0.05, allow_unknown=False)
            with open(os.devnull, "w") as devnull:
                old, sys.stdout = sys.stdout, devnull
                try:
                    compare.compare_write(args, result([row("a", stats.REGRESSION)]), tmp, title="heapbench ci")
                finally:
                    sys.stdout = old
            with open(path) as f:
                text = f.read()
        self.assertTrue(text.startswith(prcomment.MARKER))
        self.assertIn("heapbench ci: **FAIL**", text)
        self.assertIn("ci-runner", text)

    def test_limit(self):
        """Thousands of changed cells: the comment stays under 65,536 characters and counts what it left out."""
        res = result([row(f"cell-{i}-" + "x" * 80, stats.REGRESSION) for i in range(3000)]
                     + [row(f"u-{i}", stats.UNDECIDED) for i in range(3000)])
        text = prcomment.text(res)
        self.assertLess(len(text), 65536)
        self.assertIn("more changed cells", text)
        self.assertIn("**FAIL**", text)

    def test_examples(self):
        """The pull request examples: a pull_request workflow that builds the base commit, gates with --ab and
        --pr-comment, then posts with post-comment.py (always, with write permission); the GitLab job the same
        in merge request pipelines with GITLAB_TOKEN named."""
        with open(os.path.join(EXAMPLES, "github-pr.yml")) as f:
            gh = yaml.safe_load(f)
        self.assertIn("pull_request", gh.get("on", gh.get(True)))
        job = gh["jobs"]["ab-gate"]
        self.assertEqual(job["permissions"]["pull-requests"], "write")
        runs = [str(s.get("run", "")) for s in job["steps"]]
        base = next(i for i, r in enumerate(runs) if "pull_request.base.sha" in r)
        gate = next(i for i, r in enumerate(runs) if "ci --ab" in r and "--pr-comment" in r)
        post = next(i for i, r in enumerate(runs) if "post-comment.py github" in r)
        self.assertLess(base, gate)
        self.assertLess(gate, post)
        self.assertEqual(job["steps"][post].get("if"), "always()")
        with open(os.path.join(EXAMPLES, "gitlab-mr.yml")) as f:
            gl = yaml.safe_load(f)
        job = gl["heapbench-ab"]
        self.assertIn("merge_request_event", str(job["rules"]))
        self.assertIn("--pr-comment", " ".join(job["script"]))
        self.assertIn("CI_MERGE_REQUEST_DIFF_BASE_SHA", " ".join(job["script"]))
        self.assertIn("post-comment.py gitlab", " ".join(job["after_script"]))


class FakeApi(http.server.BaseHTTPRequestHandler):
    """GitHub's and GitLab's comment endpoints, enough for post-comment.py; requests go to server.log."""

    def _record(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n)) if n else None
        self.server.log.append({"method": self.command, "path": self.path, "body": body,
                                "headers": {k.lower(): v for k, v in self.headers.items()}})
        return body

    def _send(self, code, obj, link=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if link:
            self.send_header("Link", link)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._record()
        if "forbidden" in self.path:
            return self._send(403, {"message": "Resource not accessible by integration"})
        path = self.path.split("?")[0]
        comments = self.server.comments
        if "page=2" in self.path:
            return self._send(200, comments[1:])
        link = f'<http://127.0.0.1:{self.server.server_port}{path}?page=2>; rel="next"' if len(comments) > 1 else None
        return self._send(200, comments[:1], link)

    def do_POST(self):
        body = self._record()
        item = {"id": 100 + len(self.server.comments), "body": body["body"]}
        self.server.comments.append(item)
        self._send(201, item)

    def _edit(self):
        body = self._record()
        cid = int(self.path.rstrip("/").split("/")[-1])
        for item in self.server.comments:
            if item["id"] == cid:
                item["body"] = body["body"]
                return self._send(200, item)
        return self._send(404, {"message": "Not Found"})

    do_PATCH = _edit
    do_PUT = _edit

    def log_message(self, *args):
        pass


class PostTest(unittest.TestCase):
    """post-comment.py creates one comment, then edits it; headers and bodies are checked."""

    def setUp(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeApi)
        self.server.log, self.server.comments = [], [{"id": 7, "body": "an unrelated comment"}]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.tmp = tempfile.TemporaryDirectory()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
        self.tmp.cleanup()

    def post(self, kind, text, env):
        path = os.path.join(self.tmp.name, "comment.md")
        with open(path, "w") as f:
            f.write(text)
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "GITLAB_", "PR_"))}
        return subprocess.run([sys.executable, POST, kind, path], env=dict(clean, **env), capture_output=True,
                              text=True, timeout=60)

    def test_github_create_then_edit(self):
        env = {"GITHUB_API_URL": self.url, "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "s3cret-token",
               "GITHUB_REF": "refs/pull/42/merge"}
        first = self.post("github", prcomment.MARKER + "\nfirst\n", env)
        self.assertEqual(first.returncode, 0, first.stderr)
        second = self.post("github", prcomment.MARKER + "\nsecond\n", env)
        self.assertEqual(second.returncode, 0, second.stderr)
        writes = [r for r in self.server.log if r["method"] != "GET"]
        self.assertEqual([(r["method"], r["path"]) for r in writes],
                         [("POST", "/repos/o/r/issues/42/comments"), ("PATCH", "/repos/o/r/issues/comments/101")])
        self.assertEqual(writes[1]["body"], {"body": prcomment.MARKER + "\nsecond\n"})
        self.assertTrue(all(r["headers"].get("authorization") == "Bearer s3cret-token" for r in self.server.log))
        self.assertEqual(len([c for c in self.server.comments if c["body"].startswith(prcomment.MARKER)]), 1)
        self.assertTrue(any("page=2" in r["path"] for r in self.server.log), "the second page was read")
        self.assertNotIn("s3cret-token", first.stdout + first.stderr + second.stdout + second.stderr)

    def test_gitlab_create_then_edit(self):
        env = {"CI_API_V4_URL": self.url + "/api/v4", "CI_PROJECT_ID": "9", "CI_MERGE_REQUEST_IID": "5",
               "GITLAB_TOKEN": "glpat-x"}
        for text in ("one", "two"):
            proc = self.post("gitlab", prcomment.MARKER + "\n" + text + "\n", env)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        writes = [(r["method"], r["path"]) for r in self.server.log if r["method"] != "GET"]
        self.assertEqual(writes, [("POST", "/api/v4/projects/9/merge_requests/5/notes"),
                                  ("PUT", "/api/v4/projects/9/merge_requests/5/notes/101")])
        self.assertTrue(all(r["headers"].get("private-token") == "glpat-x" for r in self.server.log))

    def test_errors(self):
        """A missing variable, a file without the marker and an API error: one line, exit 2."""
        proc = self.post("github", prcomment.MARKER + "\nx\n", {"GITHUB_API_URL": self.url})
        self.assertEqual((proc.returncode, proc.stderr.count("\n")), (2, 1), proc.stderr)
        self.assertIn("GITHUB_REPOSITORY", proc.stderr)
        proc = self.post("github", "no marker\n", {})
        self.assertEqual(proc.returncode, 2)
        self.assertIn("marker", proc.stderr)
        env = {"GITHUB_API_URL": self.url + "/forbidden", "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t",
               "PR_NUMBER": "1"}
        proc = self.post("github", prcomment.MARKER + "\nx\n", env)
        self.assertEqual((proc.returncode, proc.stderr.count("\n")), (2, 1), proc.stderr)
        self.assertIn("HTTP 403", proc.stderr)
        self.assertFalse([r for r in self.server.log if r["method"] != "GET"], "nothing posted after the error")


if __name__ == "__main__":
    unittest.main()
