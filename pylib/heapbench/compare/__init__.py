"""heapbench.compare - `heapbench compare`, `ci` and `merge`: two results directories judged cell by cell, the CI gate, shard merging."""
