"""report.py - `heapbench history report -o DIR`: a static trends site (index.html, one page per cell, summary.md).

Always holds: every page is self-contained (inline SVG and CSS, no script, no external
reference), so the directory can be published as is (gh-pages, a CI artifact); every text from
the history is HTML-escaped; the index shows, per testbed, its fields, its change points newest
first (linking to the cell's page) and small multiples per workload (one plot per cell and
metric: median, 25-75% band of the reps, change points red, library changes blue); a cell page
has every metric of the cell (latency quantiles included when sampled, and the runs' load1 when
recorded) and its points; summary.md has the change points as Markdown tables for a pull request;
a change point that coincides with a change of load says so (scan.load_change) in both tables. Pages are written under temporary
names and renamed, so a reader never sees half a page.
"""
import hashlib
import os
import re

from heapbench import markdown
from heapbench.page import esc, page
from heapbench.history import changes as changes_mod
from heapbench.history import scan
from heapbench.history import svgplot


def cell_file(testbed, cell):
    """The file name of a cell's page: readable, safe, unique (a hash of testbed and cell)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", cell).strip("-")[:60]
    return f"cell-{slug}-{hashlib.sha256((testbed + '/' + cell).encode()).hexdigest()[:10]}.html"


def _write(path, text):
    """Writes a file whole (temporary name, then rename)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _pct(f):
    return "n/a" if f.pct is None else f"{f.pct:+.2f}%"


def _lib_text(old, new):
    return (f"library changed: {old.get('version') or old.get('path')} ({(old.get('sha256') or '')[:12]}) -> "
            f"{new.get('version') or new.get('path')} ({(new.get('sha256') or '')[:12]})")


def _plot(series, found, title, width=260, height=110):
    """The SVG of one series with its change points and library changes."""
    marks = [(f.index, f"{f.label}: {f.before_median:.4g} -> {f.after_median:.4g} ({_pct(f)}, p={f.p:.4f})") for f in found]
    libs = [(i, _lib_text(old, new)) for i, old, new in scan.library_changes(series)]
    return svgplot.plot(series, marks, libs, width=width, height=height, title=title)


def _changes_table(found, testbed):
    if not found:
        return "<p>No change point.</p>"
    rows = "".join(
        f"<tr><td>{esc(f.label)}</td><td><a href='{cell_file(testbed, f.cell)}'>{esc(f.cell)}</a></td><td>{esc(f.metric)}</td>"
        f"<td>{f.before_median:.6g}</td><td>{f.after_median:.6g}</td><td class='{'up' if (f.pct or 0) > 0 else 'down'}'>{_pct(f)}</td>"
        f"<td>{f.p:.4f}</td><td>±{f.spread_pct:.1f}%</td><td>{'yes' if f.library_change else ''}</td>"
        f"<td>{esc(f.load_change)}</td></tr>"
        for f in found)
    return ("<table><tr><th>first point after</th><th>cell</th><th>metric</th><th>median before</th><th>after</th>"
            f"<th>change</th><th>p</th><th>spread</th><th>library changed</th><th>load moved</th></tr>{rows}</table>")


def _testbed_section(store, tb, metrics, outdir):
    """The index's section of one testbed; writes its cell pages. Returns (html, [Found])."""
    every = store.all_series(tb.name, None if metrics is None else list(metrics) + [scan.LOAD], reps=False)
    series = {k: v for k, v in every.items() if k[1] != scan.LOAD or (metrics is not None and scan.LOAD in metrics)}
    by_series = {}
    found_all = []
    for (cell, metric), points in series.items():
        found = scan.series_changes(tb.name, cell, metric, points, changes_mod.ALPHA, changes_mod.MIN_MAGNITUDE,
                                    every.get((cell, scan.LOAD)))
        by_series[(cell, metric)] = found
        found_all += found
    found_all.sort(key=lambda f: (-f.order, f.cell, f.metric))
    runs = store.runs(tb.name)
    fields = " ".join(f"{esc(k)}={esc(v)}" for k, v in tb.fields.items())
    parts = [f"<h2 id='{esc(tb.name)}'>Testbed {esc(tb.name)}</h2><p class='fields'>{fields}<br>{len(runs)} points"
             f"{', ' + esc(runs[0].label) + ' .. ' + esc(runs[-1].label) if runs else ''}</p>",
             "<h3>Change points, newest first</h3>", _changes_table(found_all, tb.name)]
    workloads = {}
    for (cell, metric) in sorted(series):
        workloads.setdefault(cell.split("/", 1)[0], []).append((cell, metric))
    for workload, keys in sorted(workloads.items()):
        plots = "".join(f"<a href='{cell_file(tb.name, c)}'>{_plot(series[(c, m)], by_series[(c, m)], c.split('/', 1)[1] + ' ' + m)}</a>"
                        for c, m in sorted(keys, key=lambda k: (k[1], k[0])))
        parts.append(f"<h3>{esc(workload)}</h3><div class='grid'>{plots}</div>")
    for cell in sorted({c for c, _ in series}):
        _cellpage(store, tb, cell, by_series, outdir)
    return "".join(parts), found_all


def _cellpage(store, tb, cell, by_series, outdir):
    """Writes the page of one cell: every metric's series, large, and the points; change points are
    marked on the report's metrics (by_series: {(cell, metric): [Found]}, computed once for the index)."""
    series = store.all_series(tb.name, None, cell=cell, reps=False)
    marked = sorted({m for c, m in by_series if c == cell})
    parts = [f"<p><a href='index.html#{esc(tb.name)}'>← testbed {esc(tb.name)}</a></p>"
             f"<p class='fields'>Change points are marked on {esc(', '.join(marked) or 'no metric')} (the report's "
             "--metric); library changes on every metric.</p>"]
    for (_, metric), points in sorted(series.items()):
        found = by_series.get((cell, metric), [])
        parts.append(f"<h2>{esc(metric)}</h2>" + _plot(points, found, metric, width=900, height=260))
    parts.append(_points_table(series))
    _write(os.path.join(outdir, cell_file(tb.name, cell)), page(f"{cell} on {tb.name}", "".join(parts)))


def _points_table(series):
    """One table of a cell's points: label, order, run, host, library, then each metric's median (± half the IQR)."""
    metrics = sorted(m for _, m in series)
    by_label = {}
    for (_, metric), points in series.items():
        for p in points:
            by_label.setdefault((p.order, p.label), [p, {}])[1][metric] = p
    head = "".join(f"<th>{esc(m)}</th>" for m in metrics)
    rows = []
    for (order, label), (first, values) in sorted(by_label.items()):
        lib = first.library
        cells = "".join(f"<td>{values[m].median:.6g} ±{values[m].spread / 2:.2g}</td>" if m in values else "<td></td>"
                        for m in metrics)
        rows.append(f"<tr><td>{esc(label)}</td><td>{order:g}</td><td>{esc(first.run_id)}</td><td>{esc(first.host)}</td>"
                    f"<td>{esc(lib.get('version') or '')} {esc((lib.get('sha256') or '')[:12])}</td>{cells}</tr>")
    return ("<h2>Points</h2><p class='fields'>median of the reps ± half their interquartile range</p><div style='overflow-x:auto'>"
            f"<table><tr><th>label</th><th>order</th><th>run</th><th>host</th><th>library</th>{head}</tr>{''.join(rows)}</table></div>")


def _summary_md(sections):
    """summary.md: per testbed, its change points as a Markdown table (newest first)."""
    out = ["# heapbench history: change points", ""]
    md = markdown.text
    for tb, found in sections:
        out += [f"## Testbed {md(tb.name)}", ""]
        if not found:
            out += ["No change point.", ""]
            continue
        out += ["| first point after | cell | metric | before | after | change | p | library changed | load moved |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        out += [f"| {md(f.label)} | {md(f.cell)} | {md(f.metric)} | {f.before_median:.6g} | {f.after_median:.6g} | "
                f"{_pct(f)} | {f.p:.4f} | {'yes' if f.library_change else ''} | {md(f.load_change)} |" for f in found]
        out.append("")
    return "\n".join(out)


def write_site(store, testbed_names, metrics, outdir):
    """Writes the site for the testbeds into outdir (created); returns the index's path."""
    os.makedirs(outdir, exist_ok=True)
    sections, body = [], []
    beds = {t.name: t for t in store.testbeds()}
    for name in testbed_names:
        text, found = _testbed_section(store, beds[name], metrics, outdir)
        body.append(text)
        sections.append((beds[name], found))
    toc = "".join(f"<a href='#{esc(n)}'>{esc(n)}</a> " for n in testbed_names) or "The history is empty."
    legend = ("<p class='fields'>Each plot: the median of the reps per point (line), their 25-75% band, change points "
              "(red dashed, E-divisive means, p ≤ " + f"{changes_mod.ALPHA}" + ") and allocator library changes (blue dotted). "
              "Click a plot for the cell's page.</p>")
    _write(os.path.join(outdir, "summary.md"), _summary_md(sections))
    index = os.path.join(outdir, "index.html")
    _write(index, page("heapbench history", f"<p>{toc}</p>{legend}{''.join(body)}"))
    return index
