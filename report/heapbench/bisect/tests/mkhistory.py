"""mkhistory.py - a history of nightly points over a repository made by mkrepo.py, for `bisect --from-history`'s test and benchmark.

Usage: mkhistory.py REPO HISTORY EVERY [REPS [LABELS]]
  Every EVERY-th commit of REPO's main branch (oldest first, the first and the last always) is
  exported with `git archive`, built with `make`, run REPS times (default 3) with `heapbench exec
  -w nightly -a glibc -- ./prog`, and added to the SQLite history HISTORY with the commit's hash as
  its label (LABELS=hash, the default; LABELS=night: labelled night-K, the K-th night, with the
  commit given by `history add --commit`), one point per night, in commit order. A night whose build fails adds no point (as a
  nightly job whose build broke). Prints the labels added, one a line.
Always holds: REPO is only read; every export and results directory is made under a temporary
directory that is removed; heapbench is build/heapbench of this tree (HEAPBENCH_BIN overrides).
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
HEAPBENCH = os.environ.get("HEAPBENCH_BIN", os.path.join(ROOT, "build", "heapbench"))


def nights(commits, every):
    """The commits a nightly run measured: every every-th, with the first and the last."""
    picked = commits[::every]
    return picked + ([commits[-1]] if picked[-1] != commits[-1] else [])


def night(repo, commit, history, reps, work, label):
    """Exports, builds and measures one commit, and adds it to history labelled with its hash;
    False (nothing added) when its build fails."""
    tree = os.path.join(work, commit[:12])
    os.makedirs(tree)
    archive = subprocess.Popen(["git", "-C", repo, "archive", "--format=tar", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", tree], stdin=archive.stdout, check=True)
    archive.stdout.close()
    if archive.wait():
        sys.exit(f"mkhistory: git archive of {commit} failed")
    if subprocess.run(["make", "-s"], cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        shutil.rmtree(tree)
        return False
    out = os.path.join(work, "r-" + commit[:12])
    subprocess.run([HEAPBENCH, "exec", "-n", str(reps), "--warmup", "0", "-w", "nightly", "-a", "glibc", "-o", out,
                    "--", "./prog"], cwd=tree, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    words = ["--label", commit] if label is None else ["--label", label, "--commit", commit]
    subprocess.run([HEAPBENCH, "history", "add", "--db", history] + words + [out], check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(tree)
    shutil.rmtree(out)
    return True


def main(argv):
    if len(argv) not in (3, 4, 5) or argv[4:] not in ([], ["hash"], ["night"]):
        sys.exit(__doc__)
    repo, history, every = argv[0], argv[1], int(argv[2])
    reps = int(argv[3]) if len(argv) >= 4 else 3
    by_night = argv[4:] == ["night"]
    commits = subprocess.run(["git", "-C", repo, "rev-list", "--reverse", "main"], check=True, stdout=subprocess.PIPE,
                             text=True).stdout.split()
    work = tempfile.mkdtemp(prefix="mkhistory-")
    try:
        for k, commit in enumerate(nights(commits, every), 1):
            label = f"night-{k}" if by_night else None
            if night(repo, commit, history, reps, work, label):
                print(label or commit)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
