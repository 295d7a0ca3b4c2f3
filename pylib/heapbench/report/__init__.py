"""heapbench.report - `heapbench report`: a results directory rendered as report.html, report.md and PNGs."""
