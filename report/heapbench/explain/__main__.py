"""__main__.py - `heapbench explain` (python3 -m heapbench.explain); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.explain.explain.main with the arguments and exits with its status.
"""
import sys

from heapbench.explain.explain import main

sys.exit(main(sys.argv[1:]))
