/* little.c - a test program on which no allocator can matter: it allocates little, then sleeps.
 *
 * Always holds: it makes 3000 malloc/free pairs of 64 bytes (enough calls for advise to record
 * and replay it) and then sleeps 0.2 s, so its time and peak RSS are the process's own whatever
 * serves malloc; exits 0. report/heapbench/advise/tests/run expects "keep what you have" for it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(void)
{
    static void *blocks[3000];
    for (int i = 0; i < 3000; i++)
        if ((blocks[i] = malloc(64)) != NULL)
            memset(blocks[i], 1, 64);
    for (int i = 0; i < 3000; i++)
        free(blocks[i]);
    struct timespec pause = {0, 200000000};
    nanosleep(&pause, NULL);
    return 0;
}
