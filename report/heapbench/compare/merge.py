#!/usr/bin/python3
"""merge.py - `heapbench merge DIR... -o OUT`: joins shards, or whole runs of several hosts, into one results directory.

Always holds: every input is a valid results directory of the schema this heapbench reads and
every CSV of the same name has the same header in every input, else nothing is written and the
exit is 2; one host name never carries two CPU models (exit 2); a (host, cell, rep) seen twice is
refused (exit 2: a shard merged twice); rows are copied verbatim except run_id (OUT's name) and,
only when run numbers repeat across inputs or hosts, run (the runs of host and input k, in sorted
order: run + k x the largest run number, in every CSV, so run stays unique in OUT). OUT is
written in a staging directory inside it and judged by `heapbench check` before its files move
into place: merge never writes a directory that check rejects; a damaged input (a cut line) is
refused by check before anything is read. Inputs are streamed: two passes, one row
at a time, runs.csv k-way merged by run number; memory holds small keys, not rows. OUT is
written through temporary names and renames. Exit 1 when --expect N is given and a shard or a
(cell, rep) is missing.
"""
import sys

from heapbench import interrupt

INTERRUPTED = "the output may be partial: remove it and merge again"
if __name__ == "__main__":  # before the imports below: Ctrl-C while they load is one line too
    interrupt.quiet("heapbench merge", INTERRUPTED)

import csv
import heapq
import json
import os

from heapbench import cli
from heapbench import jsontext
from heapbench import results
from heapbench import testbed

from heapbench.compare import mergecheck
from heapbench.compare.mergescan import CSV_FILES, Inventory, MergeError


def merge_meta(inv, run_id, offsets):
    """The merged meta.json: the first input's, with run_id, hosts, shards, offsets, the union of
    workloads/envs/allocators, cells counted from the rows, start/end spanning all inputs."""
    metas = [e.meta for e in inv.inputs]
    meta = dict(metas[0])
    hosts = sorted(set(inv.runs) | {m.get("host") or "" for m in metas} - {""})
    meta.update(run_id=run_id, host=",".join(hosts), hosts=hosts,
                cpu_models={h: inv.cpu[h][0] for h in sorted(inv.cpu)},
                host_facts={e.host: testbed.host_facts(e.meta) for e in inv.inputs},
                shards=[{"dir": e.dir, "run_id": e.meta.get("run_id"), "host": e.host, "shard": e.meta.get("shard"),
                         "complete": e.meta.get("complete")} for e in inv.inputs],
                run_offsets=offset_names(inv, offsets),
                complete=all(m.get("complete") for m in metas),
                interrupted=any(m.get("interrupted") for m in metas),
                start=min((m.get("start") or "" for m in metas), default=None) or None,
                end=None if any(not m.get("end") for m in metas) else max(m["end"] for m in metas),
                workloads=sorted({str(w) for m in metas for w in m.get("workloads") or []}),
                envs=sorted({str(e) for m in metas for e in m.get("envs") or []}),
                cells=len(inv.cells),
                command_line=" ; ".join(m.get("command_line") or "" for m in metas))
    allocators = {}
    for m in metas:
        allocators.update(m.get("allocators") or {})
    meta["allocators"] = allocators
    for key in ("shard", "shard_source", "shard_cells"):
        meta.pop(key, None)
    return meta


def offset_names(inv, offsets):
    """meta.json's run_offsets: {host: offset}, or {"host DIR": offset} for a host of several inputs."""
    hosts = [h for h, _ in offsets]
    return {(h if hosts.count(h) == 1 else f"{h} {inv.inputs[i].dir}"): o for (h, i), o in sorted(offsets.items()) if o}


def rows_of(entry, index, name, header, run_id, offsets):
    """Yields (new run number, fields) of CSV `name` of input number index, run_id and run rewritten."""
    col_id = header.index("run_id") if "run_id" in header else None
    col_run = header.index("run") if "run" in header else None
    path = os.path.join(entry.dir, name)
    for line, fields in results.iter_csv(path):
        if line == 1 or not fields:
            continue
        if len(fields) != len(header):
            raise results.ResultsError(f"{path}:{line}: {len(fields)} fields where the header has {len(header)}; "
                                       "repair it with 'heapbench run --resume'")
        run = 0
        if col_run is not None and fields[col_run].isdigit():
            run = int(fields[col_run])
            run += offsets.get((entry.run_host.get(run, entry.host), index), 0)
            fields[col_run] = str(run)
        if col_id is not None:
            fields[col_id] = run_id
        yield run, fields


def write_csv(tmp, header, streams, ordered):
    """Writes file tmp from the input streams (k-way merged by run when ordered)."""
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        merged = heapq.merge(*streams, key=lambda item: item[0]) if ordered else (x for s in streams for x in s)
        for _, fields in merged:
            writer.writerow(fields)


def merge(dirs, out, expect=None):
    """Merges result directories dirs into out. Returns (inventory, coverage lines, gaps).
    Raises results.ResultsError or MergeError before anything is written."""
    inv = Inventory()
    for directory in dirs:
        inv.add(directory)
    if inv.duplicates:
        counts = "; ".join(f"host {h}: {c} duplicate (cell, rep), e.g. {ex}" for h, (c, ex) in sorted(inv.duplicates.items()))
        raise MergeError(f"{counts}; give each shard once, all from one matrix")
    lines, gaps = mergecheck.coverage(inv, expect)
    offsets = inv.offsets()
    run_id = os.path.basename(os.path.abspath(out))
    created = not os.path.isdir(out)
    os.makedirs(out, exist_ok=True)
    stage = os.path.join(out, f".merge.{os.getpid()}")  # judged by check before anything is in out
    done = []
    try:
        os.mkdir(stage)
        merge_pass2(inv, stage, run_id, offsets, done)
        for path, name in done:
            os.replace(path, os.path.join(stage, name))
        try:
            results.judge(stage)
        except results.ResultsError as err:
            raise MergeError(f"the merged directory would not pass heapbench check ({err}); nothing was "
                             "written: report this as a heapbench bug, with the inputs") from None
    except (results.ResultsError, MergeError, OSError):
        for path, name in done:
            for leftover in (path, os.path.join(stage, name)):
                if os.path.exists(leftover):
                    os.unlink(leftover)
        if os.path.isdir(stage):
            os.rmdir(stage)
        if created:
            os.rmdir(out)
        raise
    for _, name in done:  # runs.csv first, meta.json last
        os.replace(os.path.join(stage, name), os.path.join(out, name))
    os.rmdir(stage)
    return inv, lines, gaps


def merge_pass2(inv, out, run_id, offsets, done):
    """Writes every CSV and meta.json of out under temporary names, appending (tmp, name) to done."""
    for name in CSV_FILES:
        if name not in inv.headers:
            continue
        header = inv.headers[name][0]
        streams = [rows_of(e, i, name, header, run_id, offsets) for i, e in enumerate(inv.inputs)
                   if os.path.exists(os.path.join(e.dir, name))]
        tmp = os.path.join(out, f".{name}.tmp{os.getpid()}")
        done.append((tmp, name))
        write_csv(tmp, header, streams, name == "runs.csv")
    tmp = os.path.join(out, f".meta.json.tmp{os.getpid()}")
    done.append((tmp, "meta.json"))
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(jsontext.dumps(merge_meta(inv, run_id, offsets), "the merged meta.json", indent=2) + "\n")


def merge_differences(inv):
    """Warnings for inputs whose meta disagree on what was measured (reps, quick, commit)."""
    notes = []
    for field in ("reps", "quick", "git_commit", "warmup", "glibc_version"):
        values = {json.dumps(e.meta.get(field)) for e in inv.inputs}
        if len(values) > 1:
            notes.append(f"inputs differ in {field}: {', '.join(sorted(values))}")
    return notes


def main(argv):
    """Entry of `heapbench merge`; returns the exit status."""
    parser = cli.ArgParser(prog="heapbench merge", allow_abbrev=False,
                           description="Merge the shards of one matrix (run --shard i/N), or whole runs of several "
                                       "hosts, into one results directory (host is an axis).")
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="results directories (shards or whole runs)")
    cli.add_option(parser, "output", "merged results directory to write", required=True)
    parser.add_argument("--expect", type=int, metavar="N",
                        help="each matrix must be N shards: exit 1 when a shard or a (cell, rep) is missing")
    args = parser.parse_args(argv)
    if args.expect is not None and args.expect < 1:
        parser.error(f"--expect {args.expect}: give the number of shards, >= 1")
    if len(set(map(os.path.realpath, args.dirs))) != len(args.dirs):
        parser.error("the same directory is given twice; give each shard once")
    if os.path.exists(os.path.join(args.output, "runs.csv")):
        parser.error(f"{args.output} already holds results; give a new -o directory")
    try:
        inv, lines, gaps = merge(args.dirs, args.output, args.expect)
    except (results.ResultsError, MergeError) as err:
        cli.usage_exit(parser.prog, str(err))
    except OSError as err:
        cli.usage_exit(parser.prog, f"cannot write {args.output}: {err.strerror}")
    for note in merge_differences(inv):
        print(f"heapbench merge: warning: {note}", file=sys.stderr)
    for line in lines:
        print(line)
    rows = sum(e.rows for e in inv.inputs)
    print(f"merged {len(inv.inputs)} inputs, {rows} runs, {len(inv.runs)} host(s), into {args.output}")
    if gaps:
        print(f"heapbench merge: {'error' if args.expect else 'warning'}: shards or cells are missing (see above)",
              file=sys.stderr)
    return 1 if gaps and args.expect else 0


if __name__ == "__main__":
    sys.exit(interrupt.run("heapbench merge", main, sys.argv[1:], INTERRUPTED))
