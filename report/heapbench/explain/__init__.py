"""heapbench.explain - `heapbench explain`: where a program's resident memory goes under each allocator, and which call sites pin free memory (README.md)."""
