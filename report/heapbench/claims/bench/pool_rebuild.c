/* pool_rebuild.c - an independent rebuild of article 002's program: a fixed-size pool against malloc, 1 M x 256 B, CPU time of the timed part.
 *
 * Written from the article's description, not from workloads/pool.c: a static array of 1 M slots
 * of 256 bytes whose free list is linked before timing (setup untimed); timed with clock(): 1 M
 * allocations into an array of pointers, then 1 M frees in allocation order. argv[1] picks the
 * side: "pool", "malloc" (the heap grows by brk and is faulted in inside the timed part, as the
 * article's was) or "warm" (malloc's heap faulted in before timing: the 1 M blocks malloc'd,
 * written and freed, one block kept above them so free cannot trim the space away).
 * Prints one line: "<side> <CPU seconds of the timed part> <minor faults in it>".
 * The table of pointers (8 MB, like the article's array on the stack) is first touched inside the
 * timed part on every side.
 * Always holds: exits 2 on an unknown side, 1 if an allocation fails; blocks are never written in
 * the timed part (the article's are not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#define SLOTS 1000000
#define SLOT_BYTES 256

union slot {
    union slot *next;
    long double align;
    char bytes[SLOT_BYTES];
};

union slot slab[SLOTS];
union slot *free_head;
void *taken[SLOTS];
void *warmed[SLOTS]; /* the warm-up's own table: taken[] stays untouched until the timed part, on every side */

void pool_link(void)
{
    for (size_t i = 0; i + 1 < SLOTS; i++)
        slab[i].next = &slab[i + 1];
    slab[SLOTS - 1].next = NULL;
    free_head = &slab[0];
}

void *pool_get(void)
{
    union slot *s = free_head;
    if (!s)
        return NULL;
    free_head = s->next;
    return s->bytes;
}

void pool_put(void *p)
{
    if (!p)
        return;
    union slot *s = p;
    s->next = free_head;
    free_head = s;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static void prefault_heap(void)
{
    for (int i = 0; i < SLOTS; i++) {
        warmed[i] = malloc(SLOT_BYTES);
        if (!warmed[i])
            exit(1);
        memset(warmed[i], 1, SLOT_BYTES);
    }
    if (!malloc(SLOT_BYTES))
        exit(1);
    for (int i = 0; i < SLOTS; i++)
        free(warmed[i]);
}

int main(int argc, char **argv)
{
    const char *side = argc > 1 ? argv[1] : "";
    int pool = strcmp(side, "pool") == 0, warm = strcmp(side, "warm") == 0;
    if (!pool && !warm && strcmp(side, "malloc") != 0) {
        fprintf(stderr, "pool_rebuild: say pool, malloc or warm\n");
        return 2;
    }
    if (pool)
        pool_link();
    if (warm)
        prefault_heap();
    long f0 = minflt();
    clock_t begin = clock();
    for (int i = 0; i < SLOTS; i++) {
        void *p = pool ? pool_get() : malloc(SLOT_BYTES);
        if (!p)
            return 1;
        taken[i] = p;
    }
    for (int i = 0; i < SLOTS; i++) {
        if (pool)
            pool_put(taken[i]);
        else
            free(taken[i]);
    }
    clock_t end = clock();
    long f1 = minflt();
    printf("%s %.6f %ld\n", side, (double)(end - begin) / CLOCKS_PER_SEC, f1 - f0);
    return 0;
}
