"""__main__.py - `heapbench compare` (python3 -m heapbench.compare); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.compare.compare.main with the arguments and exits with its status
(Ctrl-C: one line, exit 130, cli.interruptible).
"""
import sys

from heapbench import cli
from heapbench.compare.compare import main

sys.exit(cli.interruptible("heapbench compare", main, sys.argv[1:],
                           "compare.csv and its summary may be missing or partial: run it again"))
