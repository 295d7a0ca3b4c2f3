/* fewcalls.c - a test program that allocates almost nothing for its length: 1500 malloc/free pairs, then ~0.5 s of arithmetic.
 *
 * Always holds: 3000 malloc-API calls of 64-byte blocks (more than advise's FEW_OPS, so only the
 * calls' share of the run makes them negligible: 3000 x 2 us = 6 ms of a run of ~0.5 s CPU, under
 * half the 5% threshold), then a loop on one local variable with no memory traffic; prints the
 * loop's result so that it is not optimised away; exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static char *blocks[1500];  /* kept until all are made: the compiler cannot drop the calls */
    for (int i = 0; i < 1500; i++)
        if ((blocks[i] = malloc(64)) != NULL)
            memset(blocks[i], i, 64);
    for (int i = 0; i < 1500; i++)
        free(blocks[i]);
    volatile unsigned long x = 1;
    for (unsigned long i = 0; i < 400000000UL; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    printf("%lu\n", (unsigned long)x);
    return 0;
}
