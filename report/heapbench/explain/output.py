"""output.py - what `heapbench explain` prints and writes: the decomposition table per allocator with its top
pinning call sites (text), folded stacks of pinned and live bytes (the format flamegraph.pl, inferno and speedscope
read) and explain.html (a stacked bar per allocator, an icicle of pinned bytes per allocator).

Always holds: every figure comes from the Explanations given (readers.py); a site's stack is printed outermost first in
folded files (the folded format's order) and innermost first in text; a part that could not be measured is printed as
unmeasured with its reason, never as a number.
"""
import io
import os
import re

from heapbench.explain.readers import PARTS, PART_TITLES
from heapbench.page import END, esc, start

MIB = 1024 * 1024
COLORS = {"live": "#2e7d32", "rounding": "#9ccc65", "gaps": "#ffb300", "free": "#e53935", "lazyfree": "#f48fb1",
          "mapped": "#1e88e5", "runtime": "#8e8e8e", "files": "#cfcfcf", "unexplained": "#000000"}


def mib(n):
    return f"{n / MIB:9.2f} MiB"


def size_text(n):
    """A byte count for a sentence: MiB from 1 MiB, else KiB, else bytes."""
    return f"{n / MIB:.2f} MiB" if n >= MIB else f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} bytes"


def stack_of(sites, site_id, most=3):
    """The site's innermost frames joined for a text line."""
    if site_id == 0:
        return "(no call site recorded)"
    frames = sites.get(site_id)
    return " < ".join(frames[:most]) if frames else f"site {site_id} (not in the trace's table)"


def one_text(name, ex, sites, top):
    """The lines of one allocator."""
    rss, total = ex.totals["rss"], sum(ex.parts.values())
    rest = ex.unexplained()
    lines = [f"== {name}: at {ex.moment} ({ex.events} events performed) ==",
             f"  RSS {mib(rss)}   sum of the parts {mib(total)}   unexplained {rest / MIB:+.2f} MiB "
             f"({100.0 * rest / rss if rss else 0:+.1f}% of RSS)"]
    for p in PARTS:
        note = f"   unmeasured: {ex.unmeasured[p]}" if p in ex.unmeasured else ""
        lines.append(f"  {PART_TITLES[p]:<55} {mib(ex.parts[p])} {100.0 * ex.parts[p] / rss if rss else 0:5.1f}%{note}")
    if ex.metadata:
        lines.append(f"  of which allocator metadata ({ex.metadata[0]}): {mib(ex.metadata[1])}")
    elif "metadata" in ex.unmeasured:
        lines.append(f"  allocator metadata: unmeasured ({ex.unmeasured['metadata']})")
    lines.append(f"  of which in transparent huge pages: {mib(ex.totals.get('anonhuge', 0))}")
    fr = ex.free
    lines.append(f"  free resident heap memory: {mib(fr.get('pinned', 0))} pinned by live objects, {mib(fr.get('kept', 0))} "
                 f"free pages the allocator keeps (not pinned), {mib(fr.get('top', 0))} free at a heap's top")
    if ex.sites_note != "recorded":
        lines.append(f"  call sites: none ({ex.sites_note})")
        return lines
    ranked = sorted(ex.sites.items(), key=lambda kv: -kv[1].pinned)
    ranked = [(i, f) for i, f in ranked if f.pinned > 0][:top]
    lines.append("  top call sites by pinned free memory:" if ranked else "  no call site pins free memory")
    for site_id, f in ranked:
        lines.append(f"    pins {size_text(f.pinned)} of free memory ({f.pinning_live} live bytes in {f.pinning_objects} "
                     f"object{'s' if f.pinning_objects != 1 else ''}): {stack_of(sites, site_id)}")
    return lines


FRAME_MARK = re.compile(r"^(?:(\S+)\+)?0x[0-9a-f]+ \[(.+)\]$")
MARK_NOTES = {
    "no symbols": "{files}: no symbols (stripped, or built without them): their frames are shown as FILE+0xOFFSET; "
                  "install their debug symbols (a -dbgsym package) or rebuild with -g",
    "the file was deleted after the run": "{files}: deleted or replaced after the run: their frames are shown as "
                                          "FILE+0xOFFSET; explain again with the recorded binaries in place",
    "not readable": "{files}: not readable when the frames were named (deleted, moved or not permitted after the "
                    "run): their frames are shown as FILE+0xOFFSET; explain again with the recorded binaries in place",
    "no mappings recorded": "the program's mappings were not recorded (it did not exit normally): its frames are "
                            "shown as addresses",
}


def frame_notes(sites):
    """One line per reason some frames are addresses, not names (the markers hbtrace's frames carry), naming the files."""
    files = {}
    for frames in sites.values():
        for fr in frames:
            m = FRAME_MARK.match(fr)
            if m:
                files.setdefault(m.group(2), set()).add(m.group(1) or "?")
    return ["note: " + (MARK_NOTES[why] if why in MARK_NOTES else "{files}: frames shown as addresses: " + why)
            .format(files=", ".join(sorted(f))) for why, f in sorted(files.items())]


def text(results, sites, top):
    """The text answer for [(allocator, Explanation)], then the notes on frames without names."""
    out = []
    for name, ex in results:
        out += one_text(name, ex, sites, top) + [""]
    return "\n".join(out + frame_notes(sites)).rstrip()


def folded(ex, sites, attr):
    """Folded-stack lines (outermost;...;innermost VALUE) of one figure of each site."""
    lines = []
    for site_id, f in sorted(ex.sites.items()):
        v = getattr(f, attr)
        if v <= 0:
            continue
        frames = sites.get(site_id) or [f"site {site_id}" if site_id else "(no call site recorded)"]
        lines.append(";".join(x.replace(";", ",").replace(" ", "_") for x in reversed(frames)) + f" {v}")
    return "\n".join(lines) + ("\n" if lines else "")


def _svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    return buf.getvalue()[buf.getvalue().find("<svg"):]


def bars_svg(results):
    """One stacked bar per allocator: the parts and the unexplained rest, MiB."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(results) + 1.5))
    names = [n for n, _ in results]
    left = [0.0] * len(results)
    for p in list(PARTS) + ["unexplained"]:
        vals = [max(0, ex.unexplained()) / MIB if p == "unexplained" else ex.parts[p] / MIB for _, ex in results]
        ax.barh(names, vals, left=left, color=COLORS[p], label=PART_TITLES.get(p, "unexplained"))
        left = [a + b for a, b in zip(left, vals)]
    ax.set_xlabel("resident MiB")
    ax.invert_yaxis()
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2)
    out = _svg(fig)
    plt.close(fig)
    return out


def icicle_svg(name, ex, sites):
    """An icicle of the pinned bytes by call stack (outermost frame on top), or None when nothing is pinned."""
    tree = {}
    for site_id, f in ex.sites.items():
        if f.pinned <= 0:
            continue
        node = tree
        for frame in reversed(sites.get(site_id) or [f"site {site_id}"]):
            entry = node.setdefault(frame, [0, {}])
            entry[0] += f.pinned
            node = entry[1]
    if not tree:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 4))
    total = sum(v[0] for v in tree.values())
    depth = [0]

    def draw(node, x0, level):
        depth[0] = max(depth[0], level + 1)
        x = x0
        for frame, (v, kids) in sorted(node.items(), key=lambda kv: -kv[1][0]):
            w = v / total
            ax.add_patch(plt.Rectangle((x, -level - 1), w, 0.95, color="#ef6c00" if kids else "#c62828", alpha=0.85))
            if w > 0.08:
                ax.text(x + 0.005, -level - 0.5, f"{frame[:int(w * 120)]} ({v / MIB:.1f} MiB)", fontsize=6, va="center")
            draw(kids, x, level + 1)
            x += w

    draw(tree, 0.0, 0)
    ax.set_xlim(0, 1)
    ax.set_ylim(-depth[0] - 0.1, 0.1)
    ax.axis("off")
    ax.set_title(f"{name}: pinned free memory by call stack ({total / MIB:.1f} MiB; outermost frame on top)", fontsize=9)
    out = _svg(fig)
    plt.close(fig)
    return out


def page(results, sites):
    """explain.html."""
    body = [start("heapbench explain", "Where the resident memory goes"), bars_svg(results), "<pre>",
            esc(text(results, sites, 10)), "</pre>"]
    for name, ex in results:
        svg = icicle_svg(name, ex, sites)
        body.append(f"<h2>{esc(name)}</h2>" + (svg if svg else "<p>no call site pins free memory</p>"))
    return "\n".join(body) + END


def write_files(results, sites, out):
    """Writes explain.html, pinned-ALLOC.folded per allocator and live.folded; returns the paths."""
    written = []
    for name, ex in results:
        path = os.path.join(out, f"pinned-{name}.folded")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(folded(ex, sites, "pinned"))
        written.append(path)
    if results:
        path = os.path.join(out, "live.folded")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(folded(results[0][1], sites, "live"))
        written.append(path)
    path = os.path.join(out, "explain.html")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page(results, sites))
    written.append(path)
    return written
