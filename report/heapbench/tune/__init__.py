"""heapbench.tune - `heapbench tune`: allocator knobs swept, verified and measured, the Pareto front.

Always holds: importing it has no side effect; its modules import the package's shared modules
(heapbench.results, .stats, .cli, ...) by absolute name and read only result files.
"""
