"""__main__.py - `heapbench compare` (python3 -m heapbench.compare); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.compare.compare.main with the arguments and exits with its status
(Ctrl-C: one line, exit 130, heapbench.interrupt).
"""
import sys

from heapbench import interrupt

WHAT = "compare.csv and its summary may be missing or partial: run it again"
interrupt.quiet("heapbench compare", WHAT)

from heapbench.compare.compare import main  # noqa: E402 (after quiet: Ctrl-C while it loads is one line too)

sys.exit(interrupt.run("heapbench compare", main, sys.argv[1:], WHAT))
