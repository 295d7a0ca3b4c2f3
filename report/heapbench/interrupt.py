"""interrupt.py - Ctrl-C of a heapbench Python command (ci, compare, report, merge): one line on
stderr and exit 130, never a KeyboardInterrupt traceback, from the command's first statement on.

Always holds: this module imports only the standard library's os, signal and sys, so that quiet()
can run before a command's heavy imports (numpy, scipy, matplotlib take seconds under load); run()
puts Python's own handler back and turns KeyboardInterrupt into the same line.
"""
import os
import signal
import sys


def _line(prog, what):
    return f"{prog}: interrupted; {what}\n"


def quiet(prog, what):
    """Until run() starts main: Ctrl-C (while the command's modules load) prints the one line and
    exits 130 at once (nothing has been written yet)."""
    def handler(signum, frame):
        os.write(2, _line(prog, what).encode())
        os._exit(130)
    signal.signal(signal.SIGINT, handler)


def run(prog, main, argv, what):
    """main(argv)'s exit status; on Ctrl-C the line 'PROG: interrupted; WHAT' and 130."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return main(argv)
    except KeyboardInterrupt:
        sys.stderr.write(_line(prog, what))
        return 130
