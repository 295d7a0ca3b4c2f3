"""history - heapbench's history of runs per testbed: store, testbeds, change points, trends, export.

Always holds: a module here reads results directories only through heapbench.results and the
database only through store.Store; one concept per file (testbed, schema, store, points,
changes, report, export, main).
"""
