#!/usr/bin/python3
"""merge.py - `heapbench merge DIR... -o OUT`: joins the shards of one matrix into one results directory.

Always holds: every input is a valid results directory of the schema this heapbench reads
(results.load) and every CSV of the same name has the same header in every shard, else
nothing is written and the exit is 2; rows are copied verbatim except run_id (the merged
directory's id); a run number or a (host, cell, rep) seen twice is refused (a shard merged
twice, or shards of different runs); the host column is kept, and meta.json lists the hosts
and the shards it came from. OUT is written through temporary names and renames.
"""
import csv
import io
import json
import os
import sys

from heapbench import cli
from heapbench import results

CSV_FILES = ("runs.csv", "phases.csv", "rss.csv", "sizes.csv")
CELL_REP = ("host", "workload", "allocator", "threads", "params", "env", "rep")


class MergeError(Exception):
    """Shards that cannot be merged (message says which and what to do)."""


def merge_read(path):
    """(header, rows as lists of strings) of one CSV, or (None, []) when the file is absent."""
    if not os.path.exists(path):
        return None, []
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        return header, list(reader)


def merge_tables(dirs, name, run_id):
    """Concatenates CSV `name` of every shard: (header, rows) with run_id rewritten.

    Raises MergeError when two shards have different headers for it.
    """
    header, rows, first = None, [], None
    for directory in dirs:
        h, r = merge_read(os.path.join(directory, name))
        if h is None:
            continue
        if header is not None and h != header:
            raise MergeError(f"{name} of {directory} has other columns than {first} "
                             f"({len(h)} vs {len(header)}); merge only shards of the same 'run' command and version")
        header, first = h, first or directory
        col = h.index("run_id") if "run_id" in h else None
        for row in r:
            if col is not None:
                row[col] = run_id
            rows.append(row)
    return header, rows


def merge_check_runs(dirs, loaded):
    """Raises MergeError on a run number or a (host, cell, rep) that occurs twice across the shards."""
    seen = {}
    for directory, data in zip(dirs, loaded):
        for row in data["runs"]:
            for key in (("run", row["run"]), tuple(row.get(k) for k in CELL_REP)):
                if key in seen:
                    raise MergeError(f"run {row['run']} ({'/'.join(map(str, results.cell_key(row)))} rep {row['rep']}) "
                                     f"is in both {seen[key]} and {directory}; give each shard once, all from one matrix")
                seen[key] = directory


def merge_meta(dirs, loaded, run_id):
    """The merged meta.json: the first shard's, with run_id, hosts, shards, the union of
    workloads/envs/allocators, cells counted from the rows, start/end spanning all shards."""
    metas = [d["meta"] for d in loaded]
    meta = dict(metas[0])
    hosts = sorted({r["host"] for d in loaded for r in d["runs"]} | {m.get("host", "") for m in metas} - {""})
    meta.update(run_id=run_id, host=",".join(hosts), hosts=hosts,
                shards=[{"dir": d, "run_id": m.get("run_id"), "host": m.get("host"), "complete": m.get("complete")}
                        for d, m in zip(dirs, metas)],
                complete=all(m.get("complete") for m in metas),
                interrupted=any(m.get("interrupted") for m in metas),
                start=min((m.get("start") or "" for m in metas), default=None) or None,
                end=None if any(not m.get("end") for m in metas) else max(m["end"] for m in metas),
                workloads=sorted({w for m in metas for w in m.get("workloads", [])}),
                envs=sorted({e for m in metas for e in m.get("envs", [])}),
                cells=len({results.cell_key(r) for d in loaded for r in d["runs"]}),
                command_line=" ; ".join(m.get("command_line", "") for m in metas))
    allocators = {}
    for m in metas:
        allocators.update(m.get("allocators", {}))
    meta["allocators"] = allocators
    meta.pop("shard", None)
    return meta


def merge_differences(loaded):
    """Warnings for shards whose meta disagree on what was measured (reps, quick, commit)."""
    notes = []
    for field in ("reps", "quick", "git_commit", "warmup", "glibc_version"):
        values = {json.dumps(d["meta"].get(field)) for d in loaded}
        if len(values) > 1:
            notes.append(f"shards differ in {field}: {', '.join(sorted(values))}")
    return notes


def merge_write(out, files):
    """Writes {name: text} into directory out, each through a temporary name and a rename."""
    os.makedirs(out, exist_ok=True)
    for name, text in files.items():
        tmp = os.path.join(out, f".{name}.tmp{os.getpid()}")
        with open(tmp, "w", newline="") as fh:
            fh.write(text)
        os.replace(tmp, os.path.join(out, name))


def merge(dirs, out):
    """Merges result directories dirs into out. Raises results.ResultsError or MergeError."""
    loaded = [results.load(d) for d in dirs]
    merge_check_runs(dirs, loaded)
    run_id = os.path.basename(os.path.abspath(out))
    files = {}
    for name in CSV_FILES:
        header, rows = merge_tables(dirs, name, run_id)
        if header is None:
            continue
        if name == "runs.csv":
            rows.sort(key=lambda r: int(r[header.index("run")]))
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        files[name] = buf.getvalue()
    files["meta.json"] = json.dumps(merge_meta(dirs, loaded, run_id), indent=2) + "\n"
    merge_write(out, files)
    return loaded


def main(argv):
    """Entry of `heapbench merge`; returns the exit status."""
    parser = cli.ArgParser(prog="heapbench merge", allow_abbrev=False,
                               description="Merge the shards of one matrix (run --shard i/N) into one results directory.")
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="shard results directories")
    cli.add_option(parser, "output", "merged results directory to write", required=True)
    args = parser.parse_args(argv)
    if len(set(map(os.path.realpath, args.dirs))) != len(args.dirs):
        parser.error("the same directory is given twice; give each shard once")
    if os.path.exists(os.path.join(args.output, "runs.csv")):
        parser.error(f"{args.output} already holds results; give a new -o directory")
    try:
        loaded = merge(args.dirs, args.output)
    except (results.ResultsError, MergeError) as err:
        cli.usage_exit(parser.prog, str(err))
    for note in merge_differences(loaded):
        print(f"heapbench merge: warning: {note}", file=sys.stderr)
    rows = sum(len(d["runs"]) for d in loaded)
    print(f"merged {len(loaded)} shards, {rows} runs, into {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
