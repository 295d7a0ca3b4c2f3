"""heapbench.tune - `heapbench tune`: allocator knobs swept, verified and measured, the Pareto front."""
