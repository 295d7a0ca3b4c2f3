"""__main__.py - `heapbench bisect` (python3 -m heapbench.bisect); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.bisect.main.main with the arguments and exits with its status.
"""
import sys

from heapbench.bisect.main import main

sys.exit(main(sys.argv[1:]))
