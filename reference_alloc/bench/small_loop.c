/* small_loop.c - the single-threaded small malloc/free pattern of glibc's benchtests
 * bench-malloc-simple, for bench/insn-ratio: 64 slots, each iteration frees one slot and
 * refills it with a block of 16..271 bytes. Built by insn-ratio without refmalloc, so the same
 * binary runs under glibc and with refmalloc preloaded.
 *
 * Always holds: the sizes depend only on the iteration count (a fixed LCG), so both allocators
 * see the same requests; every block is written once, so no allocation is optimised away.
 * Usage: small_loop ITERATIONS
 */
#include <stdio.h>
#include <stdlib.h>

enum { SL_SLOTS = 64, SL_MIN = 16, SL_SPAN = 256 };

int main(int argc, char **argv)
{
    long iters = argc == 2 ? atol(argv[1]) : 0;
    if (iters <= 0) {
        fprintf(stderr, "usage: small_loop ITERATIONS (a positive count)\n");
        return 2;
    }
    char *slot[SL_SLOTS] = {0};
    unsigned rng = 1;
    for (long i = 0; i < iters; i++) {
        rng = rng * 1103515245u + 12345u;
        size_t size = SL_MIN + (rng >> 16) % SL_SPAN;
        free(slot[i % SL_SLOTS]);
        slot[i % SL_SLOTS] = malloc(size);
        if (!slot[i % SL_SLOTS]) {
            fprintf(stderr, "small_loop: malloc(%zu) failed\n", size);
            return 1;
        }
        slot[i % SL_SLOTS][0] = (char)i;
    }
    for (int s = 0; s < SL_SLOTS; s++)
        free(slot[s]);
    return 0;
}
