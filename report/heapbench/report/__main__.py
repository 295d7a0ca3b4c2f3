"""__main__.py - `heapbench report` (python3 -m heapbench.report); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.report.report.main with the arguments and exits with its status
(Ctrl-C: one line, exit 130, heapbench.interrupt).
"""
import sys

from heapbench import interrupt

WHAT = "the report may be partial: run it again"
interrupt.quiet("heapbench report", WHAT)

from heapbench.report.report import main  # noqa: E402 (after quiet: Ctrl-C while it loads is one line too)

sys.exit(interrupt.run("heapbench report", main, sys.argv[1:], WHAT))
