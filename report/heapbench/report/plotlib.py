"""plotlib.py - the matplotlib set-up every plot module shares: Agg backend, allocator colours, layout, saving.

Always holds: matplotlib runs headless (Agg, selected before pyplot is imported); an
allocator keeps the same colour in every figure of a report (colours follow the
Summary's allocator order); figures use a fixed layout in inches (no tight_layout: it
costs a full extra draw per figure and the report must render a default matrix in < 10 s),
carry at most one shared legend at the top, and are closed once saved.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (must follow matplotlib.use)
from matplotlib import ticker  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

DPI = 90
PNG_LEVEL = 3        # zlib level of the PNGs: 30% less encoding time than the default 6, files ~8% bigger
PALETTE = plt.get_cmap("tab10").colors
LEGEND_IN = 0.45     # inches above the panels for the shared legend
TITLE_IN = 0.35      # inches above each panel for its title
LABEL_IN = 0.55      # inches below each panel for tick labels and the x label

# text.parse_math off: labels are cell names, program arguments and paths ('$HB_WORKDIR/in'), never
# math; with it on, matplotlib would typeset the text between two '$' as a formula.
plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "axes.grid": True, "grid.alpha": 0.3,
                     "legend.fontsize": 8, "figure.dpi": DPI, "text.parse_math": False})


def colours(allocators):
    """allocator name -> colour, stable for one report (order of the given list)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(allocators)}


def grid(count, ncols, width=12.0, row_height=3.2, label_in=LABEL_IN, left_in=0.75, legend=True):
    """A figure with count panels on ncols columns, laid out with fixed margins; unused axes are hidden.

    row_height is the height of one row in inches including its title and tick labels;
    label_in is the room under each panel for tick labels, left_in the room left of each
    panel for y tick labels; legend reserves room at the top for shared_legend. Returns (fig, axes list).
    """
    ncols = max(1, min(ncols, count))
    nrows = (count + ncols - 1) // ncols
    legend_in = LEGEND_IN if legend else 0.0
    height = row_height * nrows + legend_in
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
    panel = row_height - TITLE_IN - label_in
    fig.subplots_adjust(left=left_in / width, right=1 - 0.2 / width, top=1 - (legend_in + TITLE_IN) / height,
                        bottom=label_in / height, wspace=(left_in + 0.15) / (width / ncols - left_in - 0.15),
                        hspace=(TITLE_IN + label_in) / panel)
    flat = [ax for row in axes for ax in row]
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def shared_legend(fig, axes):
    """One legend for the whole figure, at the top: every distinct label of the axes, in order."""
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="upper center", ncol=min(len(seen), 8), frameon=False,
                   bbox_to_anchor=(0.5, 1.0))


def bars(ax, centres, heights, width, colour, label, bottom=0.0):
    """Bars as one PolyCollection (ax.bar makes one patch per bar and is 5-10x slower); returns it.

    bottom must be > 0 on a log axis. The collection carries label, so legends show it like ax.bar.
    """
    verts = [[(x - width / 2, bottom), (x - width / 2, h), (x + width / 2, h), (x + width / 2, bottom)]
             for x, h in zip(centres, heights)]
    coll = PolyCollection(verts, facecolors=[colour], edgecolors="none", label=label)
    ax.add_collection(coll, autolim=True)
    ax.autoscale_view()
    return coll


def log_ratio_axis(ax):
    """Logarithmic y axis for ratios, labelled in plain numbers (0.5, 1, 2, 5) rather than powers of ten."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def label_panel(ax, title, xlabel, ylabel):
    """Titles a line panel, starts its y axis at 0 and puts its legend where it hides least."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.legend(loc="best", fontsize=7)


def save(fig, outdir, name):
    """Writes fig as outdir/name (a .png), closes it and returns name."""
    fig.savefig(os.path.join(outdir, name), dpi=DPI, pil_kwargs={"compress_level": PNG_LEVEL})
    plt.close(fig)
    return name


def mib(kb):
    """KiB -> MiB."""
    return kb / 1024.0


def slug(name):
    """A file-name-safe form of a workload name."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
