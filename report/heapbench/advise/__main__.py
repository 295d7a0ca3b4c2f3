"""__main__.py - `heapbench advise` (python3 -m heapbench.advise); build/heapbench execs this with PYTHONPATH=<root>/report.

Always holds: it only calls heapbench.advise.advise.main with the arguments and exits with its status.
"""
import sys

from heapbench.advise.advise import main

sys.exit(main(sys.argv[1:]))
