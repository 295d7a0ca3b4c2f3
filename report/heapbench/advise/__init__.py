"""heapbench.advise - `heapbench advise`: from "my program" to "run it with this allocator and these settings".

Always holds: importing it has no side effect; it measures only through the CLI's own commands
(exec, run -w trace:, record, trace) and tune's and compare's Python layers, and reads only
result files.
"""
