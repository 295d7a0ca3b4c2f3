"""heapbench.compare - `heapbench compare`, `ci` and `merge`: two results directories judged cell by cell, the CI gate, shard merging.

Always holds: importing it has no side effect; its modules import the package's shared modules
(heapbench.results, .stats, .cli, ...) by absolute name and read only result files.
"""
