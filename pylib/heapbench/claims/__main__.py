"""check-claims (python3 -m heapbench.claims) - checks every published claim of workloads/CLAIMS.md on this machine and prints the table.

Usage: workloads/check-claims [-n N] [--only ID[,ID]]
Always holds: cells are measured through `build/heapbench run` and read back with
heapbench.results; the table has one row per claim: the claim, the command that checks it,
what was measured, holds or not, and why. Exit 0 whatever the verdicts (a claim not holding is
a finding, not an error); 2 on a usage error (one line).
"""
import sys

from heapbench import cli
from heapbench.claims import measure
from heapbench.claims.claims import CLAIMS


def positive(text):
    """An option value that must be an integer >= 1."""
    if not text.isdigit() or int(text) < 1:
        raise ValueError(text)
    return int(text)


def parse_args(argv):
    """(reps, only set or None) from argv; a usage error exits 2 with one line."""
    parser = cli.ArgParser(prog="check-claims", allow_abbrev=False,
                           description="Check every published claim of workloads/CLAIMS.md on this machine.")
    cli.add_option(parser, "reps", "runs per cell (default 3; the median is used)", type=positive, default=3)
    parser.add_argument("--only", metavar="ID[,ID]", help="check only these claims (ids as in the table)")
    args = parser.parse_args(argv)
    only = set(cli.split_list(args.only)) if args.only else None
    unknown = (only or set()) - {c["id"] for c in CLAIMS}
    if unknown:
        parser.error(f"unknown claim id(s) {','.join(sorted(unknown))} (valid: {','.join(c['id'] for c in CLAIMS)})")
    return args.reps, only


def main(argv):
    """Measures each selected claim's cells, judges it, prints the markdown table."""
    reps, only = parse_args(argv)
    print(f"measured via build/heapbench run, {reps} runs per cell, medians", file=sys.stderr)
    print("| claim | command | measured here | holds | why |")
    print("| --- | --- | --- | --- | --- |")
    for c in CLAIMS:
        if only and c["id"] not in only:
            continue
        rows = [measure.measure(spec, reps) for spec in c["specs"]]
        measured, holds, why = c["judge"](rows)
        cmd = "<br>".join(measure.command(spec, reps) for spec in c["specs"])
        print(f"| **{c['id']}**: {c['text']} | `{cmd}` | {measured} | {'yes' if holds else 'no'} | {why} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
