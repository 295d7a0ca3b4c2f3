"""heapbench.bisect - `heapbench bisect`: the first commit of a range whose program behaves like the bad end, found by measurement.

Always holds: importing it has no side effect; it never touches the user's work tree, index or
branches (each commit's files are exported with `git archive` into the bisect's own directory).
"""
