"""__main__.py - `heapbench compare` (python3 -m heapbench.compare); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.compare.compare.main with the arguments and exits with its status.
"""
import sys

from heapbench.compare.compare import main

sys.exit(main(sys.argv[1:]))
