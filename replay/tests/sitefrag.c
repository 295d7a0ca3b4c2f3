/* sitefrag.c - a program whose two call sites fragment glibc's heap differently, for explain's
 * pinning ranking: in each of 32 rounds it allocates 64 blocks of 4,000 bytes, one 48-byte block at
 * wide_pin(), 4 more blocks of 4,000 bytes and one 48-byte block at narrow_pin(); then it frees every
 * 4,000-byte block and keeps the 48-byte ones until it exits. Under glibc, whose main heap gives
 * free memory back only from its top, each wide_pin block holds the ~250 KiB freed just below it
 * resident, each narrow_pin block ~16 KiB: wide_pin pins ~8 MiB in all, narrow_pin ~0.5 MiB.
 * Always holds: prints "expect wide=ROUNDS*64*4000 narrow=ROUNDS*4*4000" (the bytes freed below each
 * site's blocks, before headers); each site calls malloc itself (no tail call), so that it is the
 * allocation's caller, and noipa keeps the compiler from folding the two into one; every block comes from the main heap (below glibc's mmap threshold). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 32
#define WIDE 64   /* blocks freed below each wide_pin block */
#define NARROW 4  /* blocks freed below each narrow_pin block */
#define FILL 4000

static void *fill[ROUNDS * (WIDE + NARROW)];
static void *pins[2 * ROUNDS];

__attribute__((noipa, optimize("no-optimize-sibling-calls"))) static void *wide_pin(void) { return malloc(48); }
__attribute__((noipa, optimize("no-optimize-sibling-calls"))) static void *narrow_pin(void) { return malloc(48); }

int main(void)
{
    printf("expect wide=%d narrow=%d\n", ROUNDS * WIDE * FILL, ROUNDS * NARROW * FILL);
    fflush(stdout); /* stdout's buffer is allocated before the blocks */
    int n = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < WIDE; i++)
            memset(fill[n++] = malloc(FILL), 1, FILL);
        pins[2 * r] = wide_pin();
        for (int i = 0; i < NARROW; i++)
            memset(fill[n++] = malloc(FILL), 1, FILL);
        pins[2 * r + 1] = narrow_pin();
    }
    for (int i = 0; i < n; i++)
        free(fill[i]);
    for (int i = 0; i < 2 * ROUNDS; i++)
        memset(pins[i], 2, 48);
    return 0;
}
