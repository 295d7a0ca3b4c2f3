"""__main__.py - `heapbench tune` (python3 -m heapbench.tune); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.tune.tune.main with the arguments and exits with its status.
"""
import sys

from heapbench.tune.tune import main

sys.exit(main(sys.argv[1:]))
