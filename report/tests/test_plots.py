"""test_plots.py - the report's charts show labels as written: a program cell's '$HB_WORKDIR/in ... $' is text.

Always holds: the check draws a real matplotlib figure through heapbench.report.plotlib (the
module that sets the report's rcParams); prints one PASS/FAIL line per test and exits 1 if any failed.
"""
import io
import sys

from heapbench.report import plotlib
from heapbench import testrun
from matplotlib import pyplot as plt


def test_dollar_is_not_math():
    """A title with two '$' (a program cell's params) is drawn as plain text, not math text."""
    fig, ax = plt.subplots()
    title = ax.set_title("prog:sqlite --db=$HB_WORKDIR/db --out=$HB_WORKDIR/out")
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)
    assert plotlib.plt is plt and not title.get_parse_math(), "the title is parsed as math text"



if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "plots"))
