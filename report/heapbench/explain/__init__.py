"""heapbench.explain - `heapbench explain`: where a program's resident memory goes under each allocator, and which
call sites pin free memory (README.md).

Always holds: importing it has no side effect; it measures only through the CLI's `record`, the replayer's
`hbtrace --sites` and `hbreplay --explain`, and reads only the files those write.
"""
