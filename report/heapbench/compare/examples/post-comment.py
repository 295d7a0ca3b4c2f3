#!/usr/bin/env python3
"""post-comment.py - posts `heapbench ci --pr-comment FILE` on the pull request (GitHub) or merge request (GitLab), editing its own earlier comment.

Usage: post-comment.py github|gitlab FILE
  github: GITHUB_TOKEN (the job's token, with pull-requests: write), GITHUB_REPOSITORY (owner/name),
          the pull request's number from PR_NUMBER or from GITHUB_REF (refs/pull/N/merge), and
          GITHUB_API_URL (set by Actions; default https://api.github.com).
  gitlab: GITLAB_TOKEN (a project access token with the api scope: the job token cannot write notes),
          CI_API_V4_URL, CI_PROJECT_ID and CI_MERGE_REQUEST_IID (set in merge request pipelines).
Finds the comment that starts with heapbench's marker line among the request's comments (every page)
and edits it; posts a new one only when there is none, so a pull request holds one heapbench comment.
Exit 0 when posted, 2 on a missing variable or an API error (one line saying which).
Always holds: only Python's standard library is used (it runs on any CI image with python3); the
token is sent only in its header and never printed.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request

MARKER = "<!-- heapbench:pr-comment -->"  # heapbench.compare.prcomment.MARKER


def fail(message):
    """One line on stderr, exit 2."""
    print(f"post-comment: {message}", file=sys.stderr)
    sys.exit(2)


def need(name):
    """The value of an environment variable that must be set."""
    value = os.environ.get(name)
    if not value:
        fail(f"{name} is not set; see the usage at the top of this script")
    return value


def call(method, url, headers, body=None):
    """(decoded JSON, next page URL or None) of one API request; API errors exit 2."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers, **{
        "Content-Type": "application/json", "Accept": "application/json", "User-Agent": "heapbench-post-comment"}))
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read().decode("utf-8", "replace")
            link = resp.headers.get("Link", "")
    except urllib.error.HTTPError as err:
        fail(f"{method} {url.split('?')[0]}: HTTP {err.code} {err.reason}")
    except (urllib.error.URLError, OSError) as err:
        fail(f"{method} {url.split('?')[0]}: {err}")
    nxt = re.search(r'<([^>]+)>;\s*rel="next"', link)
    return (json.loads(text) if text.strip() else None), (nxt.group(1) if nxt else None)


def find(url, headers):
    """The id of the earlier heapbench comment at url (every page), or None."""
    while url:
        items, url = call("GET", url, headers)
        for item in items or []:
            if str(item.get("body", "")).startswith(MARKER):
                return item["id"]
    return None


def github(body):
    """Posts or edits the comment on a GitHub pull request."""
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo, token = need("GITHUB_REPOSITORY"), need("GITHUB_TOKEN")
    number = os.environ.get("PR_NUMBER") or (re.fullmatch(r"refs/pull/(\d+)/\w+", os.environ.get("GITHUB_REF", "")) or [None, None])[1]
    if not number:
        fail("no pull request number: set PR_NUMBER (e.g. ${{ github.event.pull_request.number }})")
    headers = {"Authorization": f"Bearer {token}", "X-GitHub-Api-Version": "2022-11-28"}
    old = find(f"{api}/repos/{repo}/issues/{number}/comments?per_page=100", headers)
    if old is None:
        call("POST", f"{api}/repos/{repo}/issues/{number}/comments", headers, {"body": body})
        return f"posted a comment on {repo}#{number}"
    call("PATCH", f"{api}/repos/{repo}/issues/comments/{old}", headers, {"body": body})
    return f"edited comment {old} on {repo}#{number}"


def gitlab(body):
    """Posts or edits the note on a GitLab merge request."""
    api, token = need("CI_API_V4_URL").rstrip("/"), need("GITLAB_TOKEN")
    project, iid = need("CI_PROJECT_ID"), need("CI_MERGE_REQUEST_IID")
    headers = {"PRIVATE-TOKEN": token}
    notes = f"{api}/projects/{project}/merge_requests/{iid}/notes"
    old = find(f"{notes}?per_page=100&sort=asc", headers)
    if old is None:
        call("POST", notes, headers, {"body": body})
        return f"posted a note on merge request !{iid}"
    call("PUT", f"{notes}/{old}", headers, {"body": body})
    return f"edited note {old} on merge request !{iid}"


def main(argv):
    """Entry point; returns the exit status."""
    if len(argv) != 2 or argv[0] not in ("github", "gitlab"):
        fail("usage: post-comment.py github|gitlab FILE")
    try:
        with open(argv[1], encoding="utf-8") as f:
            body = f.read()
    except OSError as err:
        fail(f"cannot read {argv[1]} ({err.strerror}); write it with heapbench ci --pr-comment FILE")
    if not body.startswith(MARKER):
        fail(f"{argv[1]} is not a heapbench comment (no marker line); write it with heapbench ci --pr-comment FILE")
    print("post-comment: " + (github(body) if argv[0] == "github" else gitlab(body)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
