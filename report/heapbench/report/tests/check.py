"""check.py - assertions of report/heapbench/report/tests/run on a rendered report: each subcommand exits 0 or prints why not.

Always holds: expectations are derived from the fixture's own CSV files (never typed in),
so a change of the fixture cannot make a check pass by accident; exit 1 with one line
on any failed assertion.

Usage: check.py pngs OUTDIR | png FILE | names FIXTURE HTML | reasons FIXTURE HTML |
       leaderboard FIXTURE MD | selfcontained HTML | mdlinks MD
"""
import csv
import html
import os
import re
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402


def fail(message):
    """Prints the failed assertion and exits 1."""
    print(message)
    sys.exit(1)


def runs(fixture):
    """The rows of the fixture's runs.csv."""
    with open(os.path.join(fixture, "runs.csv"), newline="") as fh:
        return list(csv.DictReader(fh))


def check_png(path):
    """The PNG decodes and is not blank: its pixels vary (standard deviation above 1% of full scale)."""
    try:
        pixels = mpimg.imread(path)
    except Exception as err:  # noqa: BLE001 - any decode error is the failure reported
        fail(f"{path}: does not decode ({err})")
    if pixels.ndim < 2 or pixels.shape[0] < 50 or pixels.shape[1] < 50:
        fail(f"{path}: too small ({pixels.shape})")
    rgb = pixels[..., :3] if pixels.ndim == 3 else pixels
    if float(np.std(rgb)) < 0.01:
        fail(f"{path}: blank (pixel std {float(np.std(rgb)):.4f})")
    if float(np.mean(np.all(rgb > 0.98, axis=-1) if rgb.ndim == 3 else rgb > 0.98)) > 0.995:
        fail(f"{path}: almost all white")


def check_pngs(outdir):
    """Every PNG in outdir passes check_png, and there is at least one."""
    pngs = sorted(f for f in os.listdir(outdir) if f.endswith(".png"))
    if not pngs:
        fail(f"{outdir}: no PNG written")
    for name in pngs:
        check_png(os.path.join(outdir, name))


def check_names(fixture, html_path):
    """The HTML names every workload and allocator that appears in the fixture's runs.csv."""
    text = open(html_path).read()
    rows = runs(fixture)
    for kind in ("workload", "allocator"):
        for name in sorted({r[kind] for r in rows}):
            if html.escape(name) not in text:
                fail(f"{html_path}: {kind} {name!r} of the fixture is not named")


def check_reasons(fixture, html_path):
    """Every non-ok status and its reason in the fixture appears in the HTML (failures never hidden)."""
    text = open(html_path).read()
    for row in runs(fixture):
        if row["status"] != "ok":
            for piece in (row["status"], row["reason"]):
                if html.escape(piece) not in text:
                    fail(f"{html_path}: {row['status']} run {row['run']} ({piece!r}) not shown")


def check_leaderboard(fixture, md_path):
    """Each allocator's leaderboard row in the Markdown gives the failed-cell count computed from runs.csv."""
    failed = {}
    for row in runs(fixture):
        key = (row["workload"], row["threads"], row["params"], row["env"])
        failed.setdefault(row["allocator"], set())
        if row["status"] in ("failed", "timeout", "crashed"):
            failed[row["allocator"]].add(key)
    text = open(md_path).read()
    board = text[text.index("**Leaderboard"):].split("\n\n")[1]
    for alloc, cells in failed.items():
        line = next((ln for ln in board.splitlines() if re.match(rf"\| (⚠ )?{re.escape(alloc)} \|", ln)), None)
        if line is None:
            fail(f"{md_path}: no leaderboard row for {alloc}")
        if line.split("|")[5].strip() != str(len(cells)):
            fail(f"{md_path}: {alloc}: failed cells {line.split('|')[5].strip()}, runs.csv says {len(cells)}")


def check_selfcontained(html_path):
    """The HTML fetches nothing: every src is a data: URI and there is no link/script to another resource."""
    text = open(html_path).read()
    for src in re.findall(r'src="([^"]*)"', text):
        if not src.startswith("data:image/png;base64,"):
            fail(f"{html_path}: external resource {src[:60]!r}")
    if re.search(r"<(link|script)\b", text) or "url(" in text:
        fail(f"{html_path}: has a link, script or CSS url()")
    if text.count("data:image/png;base64,") != len([f for f in os.listdir(os.path.dirname(html_path))
                                                    if f.endswith(".png")]):
        fail(f"{html_path}: not every PNG is inlined")


def check_mdlinks(md_path):
    """Every image the Markdown links exists beside it, and it has at least one table."""
    text = open(md_path).read()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    if not links:
        fail(f"{md_path}: links no image")
    for link in links:
        if not os.path.exists(os.path.join(os.path.dirname(md_path), link)):
            fail(f"{md_path}: links {link}, which does not exist")
    if "|---|" not in text:
        fail(f"{md_path}: has no table")


COMMANDS = {"pngs": check_pngs, "png": check_png, "names": check_names, "reasons": check_reasons,
            "leaderboard": check_leaderboard, "selfcontained": check_selfcontained, "mdlinks": check_mdlinks}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.stderr.write("usage: check.py " + "|".join(COMMANDS) + " ARGS...\n")
        sys.exit(2)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
