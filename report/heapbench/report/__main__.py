"""__main__.py - `heapbench report` (python3 -m heapbench.report); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.report.report.main with the arguments and exits with its status
(Ctrl-C: one line, exit 130, cli.interruptible).
"""
import sys

from heapbench import cli
from heapbench.report.report import main

sys.exit(cli.interruptible("heapbench report", main, sys.argv[1:], "the report may be partial: run it again"))
