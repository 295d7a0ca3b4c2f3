/* list_rebuild.c - an independent rebuild of article 000's linked-list program, one malloc per node against its arena, for callgrind.
 *
 * Written from the article's text, not from workloads/list.c: 2,000,000 nodes of 16 bytes pushed
 * on a singly linked list, walked once, destroyed; the arena is one malloc of the whole capacity,
 * an allocation that rounds the size up to 16, returns NULL once the capacity is used, and one
 * free of the block. Each step the article timed is one noinline function here (build_*, walk,
 * drop_*), so callgrind's inclusive cost per function is that step's user-space instructions.
 * The malloc side's line is printed right after its steps, before the arena runs, as the article's
 * output shows it: print_line() is the first printf of the process, whose stdout buffer is the first
 * large malloc after the 2 M frees.
 * The article does not show whether its node count is a constant: built plainly it is (so -O2 can
 * fold the arena's capacity test into the loop's bound); built with -DNODES_AT_RUN_TIME it is read
 * from argv[1], as a program taking its size at run time would.
 * Always holds: built with cc -O2 by rebuild_check.py; exits 1 if the arena runs out (never at its
 * capacity of N nodes); prints the walks' sums so the compiler keeps every step.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef NODES_AT_RUN_TIME
static long nodes = 2000000;
#define N nodes
#else
#define N 2000000L
#endif

struct node { struct node *next; long key; };

struct bump { char *start; size_t size, taken; };

static void bump_open(struct bump *b, size_t size) { b->start = malloc(size); b->size = size; b->taken = 0; }

static inline void *bump_take(struct bump *b, size_t want)
{
    size_t n = (want + 15) & ~(size_t)15;
    if (b->taken + n > b->size)
        return NULL;
    void *p = b->start + b->taken;
    b->taken += n;
    return p;
}

static void bump_close(struct bump *b) { free(b->start); b->start = NULL; }

__attribute__((noinline)) static struct node *build_malloc(void)
{
    struct node *head = NULL;
    for (long i = 0; i < N; i++) {
        struct node *x = malloc(sizeof *x);
        if (!x)
            exit(1);
        x->key = i;
        x->next = head;
        head = x;
    }
    return head;
}

__attribute__((noinline)) static long walk(const struct node *p)
{
    long sum = 0;
    for (; p; p = p->next)
        sum += p->key;
    return sum;
}

__attribute__((noinline)) static void drop_malloc(struct node *p)
{
    while (p) {
        struct node *next = p->next;
        free(p);
        p = next;
    }
}

__attribute__((noinline)) static struct node *build_arena(struct bump *b)
{
    bump_open(b, (size_t)N * sizeof(struct node));
    struct node *head = NULL;
    for (long i = 0; i < N; i++) {
        struct node *x = bump_take(b, sizeof *x);
        if (!x)
            exit(1);
        x->key = i;
        x->next = head;
        head = x;
    }
    return head;
}

__attribute__((noinline)) static void drop_arena(struct bump *b) { bump_close(b); }

__attribute__((noinline)) static void print_line(const char *what, long sum) { printf("%s: sum %ld\n", what, sum); }

int main(int argc, char **argv)
{
#ifdef NODES_AT_RUN_TIME
    if (argc > 1)
        nodes = atol(argv[1]);
    if (nodes < 1)
        return 2;
#else
    (void)argc, (void)argv;
#endif
    struct node *h = build_malloc();
    long s = walk(h);
    drop_malloc(h);
    print_line("malloc/free", s);
    struct bump b;
    h = build_arena(&b);
    s = walk(h);
    drop_arena(&b);
    print_line("arena", s);
    return 0;
}
