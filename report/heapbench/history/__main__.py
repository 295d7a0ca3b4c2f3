"""__main__.py - `heapbench history` (python3 -m heapbench.history); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.history.main.main with the arguments and exits with its status.
"""
import sys

from heapbench.history.main import main

sys.exit(main(sys.argv[1:]))
