"""check-claims (python3 -m heapbench.claims) - checks every published claim of workloads/CLAIMS.md on this machine and prints the tables.

Usage: workloads/check-claims [-n N] [--only ID[,ID]]
Always holds: cells are measured through `build/heapbench run` and read back with
heapbench.results; one markdown table per article, one row per claim: the claim, the article's
setup, our experiment (the exact commands), the remaining differences, what was measured here,
and the verdict decided from an interval (verdict.py): holds, does not hold, undecided at this
noise (with the reps that would decide) or cannot be tested here (with the reason). A cell
several claims read is measured once. The load average is printed at the start and the end.
Exit 0 whatever the verdicts (a claim not holding is a finding, not an error); 2 on a usage
error (one line).
"""
import os
import sys
import time

from heapbench import cli
from heapbench.claims import measure
from heapbench.claims import verdict as V
from heapbench.claims.claims import ARTICLES, CLAIMS

HEADER = ("| claim | article's setup | our experiment | remaining differences | measured here | verdict |\n"
          "| --- | --- | --- | --- | --- | --- |")


def positive(text):
    """An option value that must be an integer >= 1."""
    if not text.isdigit() or int(text) < 1:
        raise ValueError(text)
    return int(text)


def parse_args(argv):
    """(reps, only set or None) from argv; a usage error exits 2 with one line."""
    parser = cli.ArgParser(prog="check-claims", allow_abbrev=False,
                           description="Check every published claim of workloads/CLAIMS.md on this machine.")
    cli.add_option(parser, "reps", "interleaved runs per cell where the claim does not fix it (default 5; "
                   "the verdicts come from the bootstrap interval of the medians)", type=positive, default=5)
    parser.add_argument("--only", metavar="ID[,ID]", help="check only these claims (ids as in the table)")
    args = parser.parse_args(argv)
    only = set(cli.split_list(args.only)) if args.only else None
    unknown = (only or set()) - {c["id"] for c in CLAIMS}
    if unknown:
        parser.error(f"unknown claim id(s) {','.join(sorted(unknown))} (valid: {','.join(c['id'] for c in CLAIMS)})")
    return args.reps, only


def cell(text):
    """Table-safe text: no pipe or newline breaks the row."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def row(c, reps, prev=None):
    """One claim measured, judged and formatted as a table row; a setup, command or difference the
    previous row (prev) already shows is written "as above"."""
    measured, verdict = c["judge"]([measure.measure(spec, reps) for spec in c["specs"]])
    cmds = "<br>".join(f"`{measure.command(spec, reps)}`" for spec in c["specs"])
    if prev is not None and prev["specs"] == c["specs"] and cmds:
        cmds = "same cells"
    same = {k: prev is not None and prev[k] == c[k] for k in ("setup", "diff")}
    setup, diff = ("as above" if same[k] else cell(c[k]) for k in ("setup", "diff"))
    return (f"| **{c['id']}**: {cell(c['text'])} | {setup} | {cmds}{'; ' if cmds else ''}{cell(c['how'])} "
            f"| {diff} | {cell(measured)} | {cell(V.text(verdict))} |")


def load_average():
    """The 1, 5 and 15-minute load averages as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv):
    """Measures each selected claim's cells, judges it, prints one table per article."""
    reps, only = parse_args(argv)
    start = time.monotonic()
    print(f"check-claims: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load average {load_average()} at "
          f"the start; {reps} interleaved runs per cell unless a claim fixes it")
    for article, title in ARTICLES.items():
        chosen = [c for c in CLAIMS if c["article"] == article and (not only or c["id"] in only)]
        if not chosen:
            continue
        print(f"\n## {title}\n\n{HEADER}", flush=True)
        for prev, c in zip([None] + chosen, chosen):
            print(row(c, reps, prev), flush=True)
    print(f"\ncheck-claims: {time.strftime('%H:%M', time.gmtime())} UTC, load average {load_average()} at the end, "
          f"{time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
