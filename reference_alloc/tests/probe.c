/* probe.c - prints what refmalloc's tunables changed, for tests/run to compare across
 * environments (linked against refmalloc): one line
 *   arenas=<arenas after 8 concurrent threads> tcache=<cached|uncached> mmapped=<0|1> perturb=<byte>
 * tcache: whether a freed 100-byte block stays "in use" for mallinfo2 (held by the tcache);
 * mmapped: whether any of 8 requests of 64 KiB got a mapping of its own; perturb: first byte of a fresh
 * malloc. With an argument "double-free-tcache", "double-free-arena", "bad-pointer" or "realloc-bad-pointer" it makes
 * that mistake instead (refmalloc must abort with its message).
 */
#include "rmtest.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_barrier_t pr_barrier;

/* Allocates while all 8 threads are alive, so that each needs an arena at the same time. */
static void *pr_thread(void *arg)
{
    (void)arg;
    void *volatile p = malloc(200);
    pthread_barrier_wait(&pr_barrier);
    free(p);
    return NULL;
}

/* Makes the mistake named by what; returns only if refmalloc did not abort. */
static int pr_mistake(const char *what)
{
    char *volatile p = malloc(strcmp(what, "double-free-arena") == 0 ? 5000 : 50);
    char *volatile guard = malloc(50);
    if (strcmp(what, "bad-pointer") == 0) {
        char *volatile inside = p + 8;
        free(inside);
    } else if (strcmp(what, "realloc-bad-pointer") == 0) {
        char *volatile inside = p + 8;
        free(realloc(inside, 200));
    } else {
        free(p);
        free(p);
    }
    free(guard);
    fprintf(stderr, "probe: %s was not detected\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "double-free-tcache") && strcmp(argv[1], "double-free-arena") &&
            strcmp(argv[1], "bad-pointer") && strcmp(argv[1], "realloc-bad-pointer")) {
            fprintf(stderr, "refmalloc-probe: unknown mistake '%s'; give double-free-tcache, "
                            "double-free-arena, bad-pointer or realloc-bad-pointer\n", argv[1]);
            return 2;
        }
        return pr_mistake(argv[1]);
    }
    unsigned char *volatile fresh = malloc(64);
    int perturb = fresh[0];
    pthread_t t[8];
    pthread_barrier_init(&pr_barrier, NULL, 8);
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, pr_thread, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    void *volatile p = malloc(100);
    size_t before = mallinfo2().uordblks;
    free(p);
    size_t after = mallinfo2().uordblks;
    void *volatile m[8];
    for (int i = 0; i < 8; i++)
        m[i] = malloc(64 << 10);
    size_t mapped = mallinfo2().hblks;
    printf("arenas=%d tcache=%s mmapped=%d perturb=%d\n", rmt_arena_count(),
           before == after ? "cached" : "uncached", mapped > 0, perturb);
    for (int i = 0; i < 8; i++)
        free(m[i]);
    free(fresh);
    return 0;
}
