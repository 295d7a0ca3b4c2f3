"""heapbench - the Python side of heapbench: reads results directories and reports, compares and tunes on them.

Always holds: importing the package (or a subpackage) has no side effect; nothing edits sys.path;
the package is found through PYTHONPATH=<root>/report, which build/heapbench sets when it hands over
(python3 -m heapbench.<sub>) and which tests and scripts set on their own command line.
"""
