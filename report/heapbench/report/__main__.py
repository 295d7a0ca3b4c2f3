"""__main__.py - `heapbench report` (python3 -m heapbench.report); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.report.report.main with the arguments and exits with its status.
"""
import sys

from heapbench.report.report import main

sys.exit(main(sys.argv[1:]))
