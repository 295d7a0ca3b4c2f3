"""test_plots.py - the report's charts: labels shown as written (a program cell's '$HB_WORKDIR/in ... $' is
text), bar labels thinned only when they cannot fit, the same PNGs drawn in a pool as serially.

Always holds: the checks draw real matplotlib figures through heapbench.report.plotlib (the
module that sets the report's rcParams) into a temporary directory that they remove; prints
one PASS/FAIL line per test and exits 1 if any failed.
"""
import io
import os
import sys
import tempfile

from heapbench.report import drawall, plotlib, plots_bars
from heapbench import testrun
from matplotlib import pyplot as plt


def test_dollar_is_not_math():
    """A title with two '$' (a program cell's params) is drawn as plain text, not math text."""
    fig, ax = plt.subplots()
    title = ax.set_title("prog:sqlite --db=$HB_WORKDIR/db --out=$HB_WORKDIR/out")
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)
    assert plotlib.plt is plt and not title.get_parse_math(), "the title is parsed as math text"


def test_bar_labels_thinned_only_when_crowded():
    """18 variants (the big fixture's thread-churn) keep every label; 2310 (a 10-host merge) keep 1 in k,
    and those k-th labels fit the panel at the smallest font."""
    few = [f"{t}T\n--batch=1000" for t in (1, 2, 4, 8, 16, 32)] * 3
    assert plots_bars.label_step(few, plots_bars.FULL_IN) == 1
    many = [f"host{h:02d}\n--cell={c}" for h in range(10) for c in range(231)]
    step = plots_bars.label_step(many, plots_bars.FULL_IN)
    assert 10 <= len(many[::step]) <= 60, step
    one_label_in = (len("--cell=230") * plots_bars.CHAR_IN + 0.15) * plots_bars.MIN_FONT / 9
    tick_gap_in = plots_bars.FULL_IN * plots_bars.SQUEEZE * step / len(many)
    assert one_label_in <= tick_gap_in, (one_label_in, tick_gap_in)


def _draw_pair(summary, outdir, name):
    """A drawall job: a one-line PNG named name; returns its file name."""
    fig, ax = plotlib.plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, summary["slope"]])
    return plotlib.save(fig, outdir, name)


def test_pool_draws_what_serial_draws():
    """draw_all returns the same {key: file} and writes the same bytes with 2 forked workers as with 1."""
    jobs = [(f"k{i}", _draw_pair, (f"p{i}.png",)) for i in range(4)]
    with tempfile.TemporaryDirectory() as tmp:
        got = {}
        for workers in (1, 2):
            out = os.path.join(tmp, str(workers))
            os.makedirs(out)
            keys = drawall.draw_all({"slope": 3}, out, jobs, workers=workers)
            got[workers] = (keys, {n: open(os.path.join(out, n), "rb").read() for n in sorted(os.listdir(out))})
        assert got[1] == got[2] and got[1][0] == {f"k{i}": f"p{i}.png" for i in range(4)}, got[1][0]
    assert 1 <= drawall.idle_cores() <= (os.cpu_count() or 1)


if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "plots"))
