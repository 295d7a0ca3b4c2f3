/* sites.c - a program with known call sites for the recorder's call-site tests: big_site() keeps
 * 100 blocks of 10,000 bytes, small_site() 1,000 blocks of 100 bytes, both live at the peak, then
 * every block is freed; with "pin", one 64-byte block from pin_site() is made after them and kept
 * until the program's end (the frag workload's pin, at a site of its own).
 * Always holds: prints "expect big=1000000 small=100000" (the live bytes of each site at the peak);
 * each site calls malloc itself (no tail call), so that it is the allocation's caller; stdout's buffer is
 * allocated before the blocks, so that the pin is the only live block above them once they are freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *keep[1100];

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) static void *big_site(void) { return malloc(10000); }
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) static void *small_site(void) { return malloc(100); }
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) static void *pin_site(void) { return malloc(64); }

int main(int argc, char **argv)
{
    int pin = argc > 1 && !strcmp(argv[1], "pin");
    printf("expect big=1000000 small=100000\n"); /* first: stdout's buffer is allocated below the blocks */
    fflush(stdout);
    for (int i = 0; i < 100; i++)
        keep[i] = big_site();
    for (int i = 100; i < 1100; i++)
        keep[i] = small_site();
    void *p = pin ? pin_site() : NULL;
    for (int i = 0; i < 1100; i++) {
        memset(keep[i], 1, i < 100 ? 10000 : 100);
        free(keep[i]);
    }
    free(p);
    return 0;
}
