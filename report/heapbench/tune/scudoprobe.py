"""scudoprobe.py - run under LD_PRELOAD of Scudo by verify.py: shows what its SCUDO_OPTIONS did.

Always holds: everything it reports goes to stderr in the order it happened, interleaved with
Scudo's own __scudo_print_stats output (which ends with "Quarantine limits: global: NK; thread
local: NK" and counts each size class's "releases"); its own lines are
`scudoprobe: batch MS REUSED DIRTY` (MS since the process started; REUSED blocks handed out again
at an address freed before, DIRTY of those not zero: they kept the bytes written before the free)
and `scudoprobe: mismatch survived`. Arguments: --after MS (a second batch MS after the first
ended, so that MS have passed since any release of the first), --mismatch (operator new, then
free: Scudo aborts when dealloc_type_mismatch is on).
"""
import ctypes
import os
import sys
import time

BLOCK, PER_ROUND, ROUNDS = 1024, 256, 64
BIG, BIG_COUNT = 8192, 2048


def since_exec_ms():
    """Milliseconds since this process was started (exec), from /proc/self/stat's starttime."""
    with open("/proc/self/stat") as fh:
        start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
    return int((time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000)


def batch(lib):
    """Allocates, writes and frees rounds of blocks; (reused, dirty) of the blocks handed out again."""
    freed, reused, dirty = set(), 0, 0
    for _ in range(ROUNDS):
        blocks = [lib.malloc(BLOCK) for _ in range(PER_ROUND)]
        for p in blocks:
            if p in freed:
                reused += 1
                dirty += bool(ctypes.string_at(p, BLOCK).strip(b"\0"))
            ctypes.memset(p, 0xAB, BLOCK)
        for p in blocks:
            lib.free(p)
        freed.update(blocks)
    big = [lib.malloc(BIG) for _ in range(BIG_COUNT)]
    for p in big:
        ctypes.memset(p, 1, BIG)
    for p in big:
        lib.free(p)
    return reused, dirty


def report(lib):
    """One batch, its line, then Scudo's statistics."""
    reused, dirty = batch(lib)
    print(f"scudoprobe: batch {since_exec_ms()} {reused} {dirty}", file=sys.stderr, flush=True)
    lib.__scudo_print_stats()


def main(argv):
    """Runs the batches and the mismatch test the arguments ask for."""
    lib = ctypes.CDLL(None)
    lib.malloc.restype, lib.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    lib.free.argtypes = [ctypes.c_void_p]
    report(lib)
    if "--after" in argv:
        time.sleep(int(argv[argv.index("--after") + 1]) / 1000 + 0.05)
        report(lib)
    if "--mismatch" in argv:
        lib._Znwm.restype, lib._Znwm.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        lib.free(lib._Znwm(64))
        print("scudoprobe: mismatch survived", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
