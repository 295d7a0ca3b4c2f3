"""main.py - `heapbench history add|testbeds|changes|report|export`: the command line of the history.

Always holds: every error (a bad option, a directory that is not whole, a database that cannot
be opened or is of a newer schema, a label given twice) is one line on stderr and exit 2, with
nothing written; the store is closed on every path; normal output goes to stdout.
"""
import math
import signal
import sys

from heapbench import cli
from heapbench import jsontext
from heapbench import markdown
from heapbench.history import changes
from heapbench.history import scan
from heapbench.history.db import HistoryError
from heapbench.history.commit import commit_arg
from heapbench.history.store import label_arg, open_store

PROG = "heapbench history"


def _db_option(parser):
    """--db URL, shared by every subcommand."""
    parser.add_argument("--db", metavar="URL", default=None,
                        help="the history: an SQLite file, sqlite:///PATH or postgresql://... "
                             "(default $HEAPBENCH_HISTORY, else history.sqlite in the results location)")


def _metric_option(parser):
    """--metric M1,M2 or all."""
    parser.add_argument("--metric", metavar="M1,M2", default=",".join(scan.DEFAULT_METRICS),
                        help=f"metrics to look at, or 'all' (default {','.join(scan.DEFAULT_METRICS)})")


def _metrics(text):
    """The --metric value as a list (None for all)."""
    return None if text.strip() == "all" else cli.split_list(text)


def _finite(text):
    """--order's value: a finite number (argparse says 'invalid ... value' for anything else)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _parser():
    """The argument parser of every subcommand."""
    parser = cli.ArgParser(prog=PROG, allow_abbrev=False,
                           description="A history of runs per testbed: add results, list testbeds, find change "
                                       "points, draw trends, export for Bencher or github-action-benchmark.")
    sub = parser.add_subparsers(dest="command", metavar="add|testbeds|changes|report|export")
    add = sub.add_parser("add", help="add results directories to the history", prog=f"{PROG} add")
    _db_option(add)
    add.add_argument("--label", type=label_arg,
                     help="the version under test of these runs (default: the run's heapbench commit)")
    add.add_argument("--commit", type=commit_arg, metavar="REV",
                     help="the commit under test these runs measured (a hash, or a revision of the git repository "
                          "here); default: the commit --label names when it is a hash or git describe's output, else none")
    add.add_argument("--order", type=_finite, metavar="N", help="place of the point in its series (default: after the last)")
    add.add_argument("dirs", nargs="+", metavar="DIR", help="results directories (a merged multi-host one adds each host)")
    tb = sub.add_parser("testbeds", help="list the testbeds", prog=f"{PROG} testbeds")
    _db_option(tb)
    tb.add_argument("--json", action="store_true", help="one JSON document instead of text")
    ch = sub.add_parser("changes", help="print the change points of the series", prog=f"{PROG} changes")
    _db_option(ch)
    ch.add_argument("--testbed", metavar="T", help="only this testbed")
    _metric_option(ch)
    ch.add_argument("--since", metavar="LABEL", help="only changes at or after this label's point")
    ch.add_argument("--alpha", type=float, default=changes.ALPHA, help=f"largest p-value reported (default {changes.ALPHA})")
    ch.add_argument("--min-magnitude", type=cli.fraction, default=changes.MIN_MAGNITUDE, metavar="X%",
                    help=f"smallest change of the medians reported (default {changes.MIN_MAGNITUDE:.0%}".replace("%", "%%") + ")")
    ch.add_argument("--json", action="store_true", help="one JSON document instead of text")
    rep = sub.add_parser("report", help="write the trends site (index.html, one page per cell, summary.md)",
                         prog=f"{PROG} report")
    _db_option(rep)
    cli.add_option(rep, "output", "directory of the site (created)", required=True)
    rep.add_argument("--testbed", metavar="T", help="only this testbed")
    _metric_option(rep)
    ex = sub.add_parser("export", help="write the history for Bencher (bmf), github-action-benchmark or as CSV",
                        prog=f"{PROG} export")
    _db_option(ex)
    ex.add_argument("--format", required=True, choices=("bmf", "github-action-benchmark", "csv"))
    cli.add_option(ex, "output", "file to write (default stdout)")
    ex.add_argument("--testbed", metavar="T", help="only this testbed")
    _metric_option(ex)
    ex.add_argument("--label", help="only this label's point (default: csv every point; bmf and github-action-benchmark, "
                         "which describe one point, the newest)")
    return parser


def cmd_add(store, args):
    """history add: one line per run added or already present."""
    for testbed, run_id, added in store.add(args.dirs, label=args.label, order=args.order,
                                                 commit=args.commit):
        print(f"{'added' if added else 'already in the history'}: run {markdown.one_line(run_id)} (testbed {testbed})")
    return 0


def cmd_testbeds(store, args):
    """history testbeds: name, runs, first and last label, fields."""
    rows = []
    for tb in store.testbeds():
        runs = store.runs(tb.name)
        rows.append({"name": tb.name, "runs": len(runs), "first": runs[0].label if runs else None,
                     "last": runs[-1].label if runs else None, "hosts": sorted({r.host for r in runs}),
                     "fields": tb.fields})
    if args.json:
        print(jsontext.dumps(rows, "history testbeds --json", indent=1))
        return 0
    if not rows:
        print(f"no testbed: the history {store.where} is empty (add runs with 'heapbench history add DIR')")
    for r in rows:
        text = markdown.one_line
        print(f"{text(r['name'])}  {r['runs']} runs ({text(r['first'])} .. {text(r['last'])})  "
              f"hosts {text(','.join(r['hosts']))}")
        print("    " + "  ".join(f"{k}={text(v)}" for k, v in r["fields"].items()))
    return 0


def _testbed_names(store, name):
    """[name] when it is a testbed of the store, all testbeds for None; HistoryError naming them otherwise."""
    names = [t.name for t in store.testbeds()]
    if name is None:
        return names
    if name not in names:
        raise HistoryError(f"no testbed {name!r} in {store.where}; it has: {', '.join(names) or 'none'}")
    return [name]


def format_found(f):
    """One line of history changes."""
    pct = "n/a" if f.pct is None else f"{f.pct:+.2f}%"
    lib = "  [library changed]" if f.library_change else ""
    text = markdown.one_line
    load = f"  [load moved {f.load_change}: not counted as a change of the code]" if f.load_change else ""
    return (f"{text(f.testbed)}  {text(f.cell)}  {text(f.metric)}  at {text(f.label)}: {f.before_median:.6g} -> {f.after_median:.6g} "
            f"({pct}, p={f.p:.4f}, spread ±{f.spread_pct:.1f}%){lib}{load}")


def cmd_changes(store, args):
    """history changes: one line (or JSON object) per change point, newest first."""
    if not 0 < args.alpha < 1:
        raise HistoryError(f"--alpha {args.alpha} must be between 0 and 1")
    names = _testbed_names(store, args.testbed)
    if args.since is not None and not any(r.label == args.since for n in names for r in store.runs(n)):
        raise HistoryError(f"--since {args.since!r}: no point has this label; see 'heapbench history testbeds'")
    found = scan.scan(store, names, _metrics(args.metric), args.since, args.alpha, args.min_magnitude)
    if args.json:
        print(jsontext.dumps([f._asdict() for f in found], "history changes --json", indent=1))
    else:
        for f in found:
            print(format_found(f))
        loaded = sum(1 for f in found if f.load_change)
        if loaded:
            print(f"{len(found) - loaded} change point(s) of the code; {loaded} more coincide with a change of the "
                  "machine's load (load1) and are not counted")
        if not found:
            print(f"no change point in {len(names)} testbed(s) at alpha {args.alpha} and magnitude {args.min_magnitude:.1%}")
    return 0


def cmd_report(store, args):
    """history report: the static site."""
    from heapbench.history import report
    names = _testbed_names(store, args.testbed)
    index = report.write_site(store, names, _metrics(args.metric), args.output)
    print(f"report: {index}")
    return 0


def cmd_export(store, args):
    """history export: bmf, github-action-benchmark or csv."""
    from heapbench.history import export
    names = _testbed_names(store, args.testbed)
    text = export.render(store, names, _metrics(args.metric), args.format, args.label)
    if args.output:
        export.write_file(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


COMMANDS = {"add": cmd_add, "testbeds": cmd_testbeds, "changes": cmd_changes, "report": cmd_report, "export": cmd_export}


def main(argv):
    """Entry of `heapbench history`; returns the exit status."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `history changes | head -1` ends quietly
    if argv[:1] == ["bisect"]:  # it measures commits, which the history (a reader) never does
        cli.usage_exit(f"{PROG} bisect", "a change point is bisected to its commit by 'heapbench bisect --from-history "
                       "--cell C --metric M [--db URL] [--change LABEL] --build CMD -- CMD ARGS'; see "
                       "'heapbench bisect --help'")
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("give a subcommand: add, testbeds, changes, report or export")
    store = None
    try:
        store = open_store(args.db, readonly=args.command != "add")
        return COMMANDS[args.command](store, args)
    except (HistoryError, jsontext.NotFinite) as err:
        cli.usage_exit(f"{PROG} {args.command}", str(err))
    except OSError as err:  # a site or export file that cannot be written
        cli.usage_exit(f"{PROG} {args.command}", f"{err.filename or ''}: {err.strerror}; give a writable place")
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted; nothing of an unfinished add was written", file=sys.stderr)
        return 130
    finally:
        if store is not None:
            store.close()
