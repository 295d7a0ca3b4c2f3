"""repo.py - the git side of a bisect: revisions checked, the range listed, one commit's files exported.

Always holds: it only reads the repository (rev-parse, merge-base, rev-list, archive): the user's
work tree, index, branches and worktree list are never changed; a commit's files go to a fresh
directory of the bisect's own through `git archive | tar -x`.
"""
import os
import shutil
import subprocess


class RepoError(Exception):
    """A repository or revision that cannot be bisected (the message says what to do); exit 2."""


def _git(repo, *args, check=True):
    """git -C repo ARGS; its stdout, stripped. A failure raises RepoError with git's own line."""
    try:
        proc = subprocess.run(["git", "-C", repo, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as err:
        raise RepoError(f"cannot run git ({err}); install it (apt-get install git)") from err
    if check and proc.returncode:
        raise RepoError((proc.stderr.strip().splitlines() or ["git failed"])[-1])
    return proc.stdout.strip() if not check or not proc.returncode else ""


def check_repo(repo):
    """Raises RepoError when repo is not inside a git repository (or git cannot be run: _git's line)."""
    if not _git(repo, "rev-parse", "--git-dir", check=False):
        raise RepoError(f"--repo {repo}: not a git repository; give the repository's directory with --repo "
                        "(default: the current directory)")


def commit_of(repo, rev):
    """The full hash of rev, which must name a commit of repo."""
    out = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not out:
        raise RepoError(f"{rev!r} is not a commit of {repo}; give a hash, tag or branch that `git -C {repo} log` shows")
    return out


def is_commit(repo, rev):
    """True when rev names a commit of repo (a hash, a tag, `git describe`'s output)."""
    return bool(_git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False))


def commit_range(repo, good, bad):
    """The commits after good up to bad, oldest first, along bad's first parents (good must be an
    ancestor of bad)."""
    if not _is_ancestor(repo, good, bad):
        raise RepoError(_not_ancestor(repo, good, bad))
    out = _git(repo, "rev-list", "--reverse", "--first-parent", "--ancestry-path", f"{good}..{bad}")
    commits = out.split()
    if not commits:
        raise RepoError("--good and --bad are the same commit; nothing to bisect")
    return commits


def _is_ancestor(repo, older, newer):
    """True when older is an ancestor of newer (or the same commit)."""
    return subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", older, newer]).returncode == 0


def _not_ancestor(repo, good, bad):
    """The line for a good that is not an ancestor of bad: swapped ends, a side line, or no shared history."""
    g, b = good[:12], bad[:12]
    if _is_ancestor(repo, bad, good):
        return f"--good {g} is not an ancestor of --bad {b}: it is newer ({b} is its ancestor); swap them"
    base = _git(repo, "merge-base", good, bad, check=False)
    if not base:
        return f"--good {g} and --bad {b} share no history (no common ancestor); give two commits of one history"
    return (f"--good {g} is not an ancestor of --bad {b}: they are on separate lines of history; give as --good a "
            f"commit of --bad's history, such as where they part: git merge-base {g} {b} is {base[:12]}")


def subject(repo, commit):
    """The first line of a commit's message."""
    return _git(repo, "log", "-1", "--format=%s", commit, check=False) or ""


def export(repo, commit, directory):
    """Writes commit's files into directory (made anew)."""
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    archive = subprocess.Popen(["git", "-C", repo, "archive", "--format=tar", commit], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    untar = subprocess.run(["tar", "-x", "-C", directory], stdin=archive.stdout, stderr=subprocess.PIPE)
    archive.stdout.close()
    if archive.wait() or untar.returncode:
        raise RepoError(f"cannot export {commit[:12]} into {directory} (git archive | tar); is the disk full?")
