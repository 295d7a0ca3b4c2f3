/* list.c - a linked list of N 16-byte nodes built, traversed and freed, by malloc and by an arena.
 *
 * Claim checked (article 000): ~8x faster in total with the arena, free going from 61 ms to ~0
 * (2 M nodes). --alloc=arena bumps through 1 MiB blocks (wl_arena); --alloc=single is the article's
 * arena as its text gives it: one malloc(N x 16) of the whole capacity, bumped through (16-byte
 * round-up, NULL when full, no second block), freed with one free.
 * Phases: `build` (N nodes pushed, all held), `traverse` (--walks walks summing the values; ops = the
 * nodes visited), `free`
 * (every node freed one by one, or the arena's blocks at once; nothing held).
 * The build and free loops are the article's (no sampler code when --latency=off, the arena's bump
 * inline, the single arena's fields in registers: it has no out-of-line slow path; a node's value
 * is the seed plus its index, the seed read once before the loop), so a count of instructions
 * compares the allocators and not this harness.
 * Always holds: a node is exactly 16 bytes (next pointer + value); live_bytes = N*16 after build
 * for malloc, the arena's malloc'd blocks for the arena, 0 after free; each walk must see
 * N nodes whose values sum to the expected total (verify fails otherwise). */
#include "wl_arena.h"
#include "wl_args.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct wl_param ls_params[] = {
    WL_WORD("alloc", "malloc", "malloc|arena|single", "one malloc per node, a bump arena of 1 MiB blocks, or one block of N nodes"),
    WL_INT("nodes", "4000000", "300000", 1, 1000000000, "list length"),
    WL_INT("walks", "1", NULL, 1, 1000, "walks of the list in the traverse phase (a longer phase to time)"),
};

static struct wl_prog ls_prog =
    WL_PROG("list", "2 M-node linked list built, walked, freed: malloc vs arena", ls_params);

struct ls_node {
    struct ls_node *next;
    uint64_t value;
};
_Static_assert(sizeof(struct ls_node) == 16, "a list node is 16 bytes");

/* The single arena: one block of cap bytes, used of them handed out. */
struct ls_single {
    char *base;
    size_t cap, used;
};

/* n bytes rounded up to 16 from the single arena; NULL when it is full (it never grows). */
static inline void *ls_single_alloc(struct ls_single *s, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (s->used + n > s->cap)
        return NULL;
    void *p = s->base + s->used;
    s->used += n;
    return p;
}

/* Pushes n nodes, each from malloc, onto *head; returns how many it got. timed is a constant at each
 * call (always inline): the untimed copy is the bare loop of the article, with no sampler code. */
static inline __attribute__((always_inline)) unsigned long long ls_build_malloc(struct ls_node **head,
                                                                                unsigned long long n, int timed,
                                                                                uint64_t seed)
{
    unsigned long long built = 0;
    for (; built < n; built++) {
        struct ls_node *node;
        WL_LAT_IF(timed, WL_OP_MALLOC, node = malloc(sizeof *node));
        if (!node)
            break;
        node->value = seed + built;
        node->next = *head;
        *head = node;
    }
    return built;
}

/* Pushes n nodes bumped from the arena onto *head (an arena's bump is no malloc-API call, so it is
 * never timed); returns how many it got. */
static unsigned long long ls_build_arena(struct wl_arena *arena, struct ls_node **head, unsigned long long n,
                                         uint64_t seed)
{
    unsigned long long built = 0;
    for (; built < n; built++) {
        struct ls_node *node = wl_arena_alloc(arena, sizeof *node);
        if (!node)
            break;
        node->value = seed + built;
        node->next = *head;
        *head = node;
    }
    return built;
}

/* Pushes n nodes from the single arena onto *head; returns how many it got (n: it is sized for
 * them). The arena's fields are copied into locals for the loop, as -O2 keeps the article's local
 * arena, whose allocation is inline with no out-of-line slow path. */
static unsigned long long ls_build_single(struct ls_single *arena, struct ls_node **head, unsigned long long n,
                                          uint64_t seed)
{
    struct ls_single s = *arena;
    struct ls_node *h = *head;
    unsigned long long built = 0;
    for (; built < n; built++) {
        struct ls_node *node = ls_single_alloc(&s, sizeof *node);
        if (!node)
            break;
        node->value = seed + built;
        node->next = h;
        h = node;
    }
    *arena = s;
    *head = h;
    return built;
}

/* Frees every node of the list one by one (timed as in ls_build_malloc). */
static inline __attribute__((always_inline)) void ls_free_malloc(struct ls_node *head, int timed)
{
    while (head) {
        struct ls_node *next = head->next;
        WL_LAT_IF(timed, WL_OP_FREE, free(head));
        head = next;
    }
}

/* The free loop with and without the sampler, each out of line: main's values live across it stay
 * in main's frame, so the untimed loop is the bare walk and free. */
static __attribute__((noinline)) void ls_free_untimed(struct ls_node *head)
{
    ls_free_malloc(head, 0);
}

static __attribute__((noinline)) void ls_free_timed(struct ls_node *head)
{
    ls_free_malloc(head, 1);
}

/* Builds, walks and frees the list with the chosen allocator, then verifies the walk. */
int main(int argc, char **argv)
{
    wl_args_parse(&ls_prog, argc, argv);
    wl_served_by();
    const char *how = wl_word("alloc");
    int single = strcmp(how, "single") == 0, blocks = strcmp(how, "arena") == 0;
    int timed = wl_lat_mode() != WL_LAT_OFF;
    unsigned long long n = (unsigned long long)wl_arg("nodes");
    uint64_t seed = wl_seed;
    struct wl_arena arena;
    wl_arena_init(&arena, 1 << 20);
    struct ls_single one = {NULL, n * sizeof(struct ls_node), 0};
    struct ls_node *head = NULL;

    double t0 = wl_now();
    unsigned long long built = 0;
    if (single) {
        one.base = malloc(one.cap);
        built = one.base ? ls_build_single(&one, &head, n, seed) : 0;
    } else if (blocks) {
        built = ls_build_arena(&arena, &head, n, seed);
    } else {
        built = timed ? ls_build_malloc(&head, n, 1, seed) : ls_build_malloc(&head, n, 0, seed);
    }
    uint64_t live = single ? (one.base ? one.cap : 0) : blocks ? arena.held : built * sizeof(struct ls_node);
    t0 = wl_phase("build", t0, built, live);

    unsigned long long count = 0, walks = (unsigned long long)wl_arg("walks");
    uint64_t sum = 0;
    for (unsigned long long w = 0; w < walks; w++)
        for (struct ls_node *p = head; p; p = p->next) {
            sum += p->value;
            count++;
        }
    t0 = wl_phase("traverse", t0, count, live);

    if (single)
        free(one.base);
    else if (blocks)
        wl_arena_free(&arena);
    else if (timed)
        ls_free_timed(head);
    else
        ls_free_untimed(head);
    wl_phase("free", t0, single || blocks ? 1 : built, 0);

    uint64_t expect = 0;
    for (unsigned long long i = 0; i < n; i++)
        expect += seed + i;
    char detail[128];
    snprintf(detail, sizeof detail, "nodes=%llu walked=%llu sum=%llu", n, count, (unsigned long long)sum);
    return wl_verify(built == n && count == n * walks && sum == expect * walks, detail);
}
