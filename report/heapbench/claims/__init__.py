"""heapbench.claims - workloads/check-claims: the published claims measured through the runner and judged.

Always holds: importing it has no side effect; its modules import the package's shared modules
(heapbench.results, .stats, .cli, ...) by absolute name and read only result files.
"""
