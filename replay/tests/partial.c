/* partial.c - a program that writes only part of its big blocks (the touch records, trace format
 * 4): usage: replay-partial MODE. MODE free: mallocs 8 MiB, writes its first 2 MiB, frees it;
 * live: the same block left live at exit; busy: the same, another thread still running at exit
 * (and holding the recorder's attention: it keeps allocating); calloc: callocs 8 MiB, writes 2 MiB, frees it;
 * realloc: the block, 2 MiB written, realloc'd to 12 MiB then freed (two blocks measured); small:
 * 10,000 blocks of 64 bytes, each written and freed (no touch record). Prints "expect
 * pages=N resident=R" for the big block: its whole pages (from malloc_usable_size) and the
 * resident ones (mincore, as the recorder measures), so that the test compares with the trace.
 * Always holds: the block is 8 MiB (above glibc's mmap threshold: its unwritten pages stay
 * out of RSS), and holds the written bytes until its end. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BIG (8u << 20)
#define WRITTEN (2u << 20)

static void print_resident(char *p)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p;
    uintptr_t start = (a + pg - 1) & ~(pg - 1), end = (a + malloc_usable_size(p)) & ~(pg - 1);
    size_t n = (end - start) / pg, res = 0;
    unsigned char *vec = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (vec == MAP_FAILED || mincore((void *)start, end - start, vec) != 0)
        return;
    for (size_t i = 0; i < n; i++)
        res += vec[i] & 1;
    printf("expect pages=%zu resident=%zu\n", n, res);
    munmap(vec, n);
}

/* busy's thread: allocates and frees small blocks until the process exits. */
static void *spin(void *arg)
{
    (void)arg;
    for (;;) {
        char *volatile q = malloc(32);
        free(q);
        usleep(100);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "free";
    if (!strcmp(mode, "small")) {
        for (int i = 0; i < 10000; i++) {
            char *volatile q = malloc(64);
            memset(q, 1, 64);
            free(q);
        }
        return 0;
    }
    char *p = !strcmp(mode, "calloc") ? calloc(1, BIG) : malloc(BIG);
    if (!p)
        return 1;
    memset(p, 7, WRITTEN);
    print_resident(p);
    fflush(stdout);
    pthread_t tid;
    if (!strcmp(mode, "busy") && pthread_create(&tid, NULL, spin, NULL) != 0)
        return 1;
    if (!strcmp(mode, "busy"))
        usleep(20000); /* the thread is recording */
    if (!strcmp(mode, "realloc") && !(p = realloc(p, BIG + BIG / 2)))
        return 1;
    if (strcmp(mode, "live") != 0 && strcmp(mode, "busy") != 0)
        free(p);
    return 0;
}
