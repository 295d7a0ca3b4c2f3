"""heapbench.claims - workloads/check-claims: the published claims measured through the runner and judged."""
