"""heapbench.report - `heapbench report`: a results directory rendered as report.html, report.md and PNGs.

Always holds: importing it has no side effect; its modules import the package's shared modules
(heapbench.results, .stats, .cli, ...) by absolute name and read only result files.
"""
