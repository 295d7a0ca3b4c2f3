/* small.c - advise's known-answer program where the right answer is to keep glibc: small blocks, little allocation.
 *
 * Always holds: single-threaded, a fixed amount of work (not a fixed time): STEPS steps
 * (argument 1, default 400000), each allocating one block of 16-64 bytes into a ring of 128
 * live blocks (freeing the one it replaces) and then hashing it for 200 rounds, so that the
 * allocator's part of each step (~20-50 ns of ~1 us) is below 5% of its time whatever the
 * allocator: glibc's thread cache serves these sizes as fast as any. It prints `checksum N`
 * (N depends only on the work) and exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 128
#define ROUNDS 200

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 400000;
    unsigned char *ring[RING] = {0};
    uint64_t sum = 0, x = 88172645463325252ull;
    if (steps < 1) {
        fprintf(stderr, "usage: small [STEPS>=1]\n");
        return 2;
    }
    for (long s = 0; s < steps; s++) {
        int i = (int)(s % RING);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t size = 16 + x % 49;
        free(ring[i]);
        ring[i] = malloc(size);
        if (!ring[i])
            abort();
        memset(ring[i], (int)s, size);
        uint64_t h = x;
        for (int r = 0; r < ROUNDS; r++)
            h = (h ^ ring[i][r % size]) * 1099511628211ull;
        sum += h;
    }
    for (int i = 0; i < RING; i++)
        free(ring[i]);
    printf("checksum %llu\n", (unsigned long long)sum);
    return 0;
}
