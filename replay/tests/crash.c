/* crash.c - a program for the recorder's tests: 200 000 malloc/free pairs (several chunks of
 * trace), then a segmentation fault with blocks still live.
 * Always holds: it never exits normally (it dies of SIGSEGV). */
#include <signal.h>
#include <stdlib.h>

int main(void)
{
    static void *keep[1000];
    for (int i = 0; i < 200000; i++) {
        void *p = malloc((size_t)(16 + i % 64));
        if (i % 200 == 0)
            keep[i / 200] = p;
        else
            free(p);
    }
    signal(SIGSEGV, SIG_DFL);
    *(volatile int *)keep[0] = 0;
    *(volatile int *)0 = 1;
    return 0;
}
