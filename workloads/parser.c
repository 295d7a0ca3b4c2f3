/* parser.c - JSON-lines log files generated deterministically, parsed into node trees and aggregated, per allocation strategy.
 *
 * Claim checked: a day file of 2.3 M lines has ~11.9 M nodes; parsing into an arena is ~9x
 * faster than one malloc per node; an arena never reset grows RSS with every file (~1.5 GB over
 * 30 files), one reset between files stays flat. --scale is the per-mille of a day file per file
 * (1000 = 2.3 M lines), so the default run stays small.
 * Variants (--alloc): malloc (one malloc per node, a file's trees freed at the file's end),
 * arena (an arena per file, freed at its end), reset (one arena reset between files: --keep=all
 * keeps every block for reuse, --keep=last frees all but the newest block, as the article's
 * reset does: its block list pushes new blocks at the head and the reset keeps the head;
 * --keep=first keeps the oldest instead), noreset (one arena never reset). --block sets the arena's block size.
 * The parse hashes every node once (the aggregation); --recheck=yes walks every file's trees a
 * second time before release, to check them (the article's loop has no such walk).
 * Phases: `file-<i>` per file (parse seconds of that file, nodes, live bytes and RSS after the
 * file's end-of-file release), `parse` (all files), `warm` (files 2..N: the first file pays
 * for the heap's growth and page faults, the later ones reuse it), `release` (the end-of-file
 * releases of all files, already inside their `file-<i>`: freeing every node, or the arena's
 * reset or free; ops = files), `free`.
 * Always holds: live_bytes = bytes requested from malloc and held (nodes or arena blocks, plus
 * the text buffer); with --recheck=yes each file's trees are walked again before release and
 * must give the same node count and checksum as the parse (verify fails otherwise); the checksum
 * depends only on --seed and the sizes, never on the variant. */
#include "wl_arena.h"
#include "wl_args.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_rng.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_DAY_LINES 2300000ULL
#define PS_LINE_MAX 256

static struct wl_param ps_params[] = {
    WL_WORD("alloc", "malloc", "malloc|arena|reset|noreset", "how nodes are allocated and released"),
    WL_INT("scale", "25", "2", 1, 100000, "lines per file in per-mille of a 2.3 M-line day file"),
    WL_INT("files", "4", "2", 1, 100000, "files generated and parsed one after the other"),
    WL_INT("block", "65536", NULL, 4096, 1LL << 34, "arena block size in bytes"),
    WL_WORD("keep", "all", "all|first|last", "reset variant: blocks a reset keeps (all, the oldest, or the newest as the article)"),
    WL_WORD("recheck", "yes", "yes|no", "walk every file's trees again before release to check them"),
};

static struct wl_prog ps_prog =
    WL_PROG("parser", "JSON-lines logs parsed into node trees: malloc per node vs arena (reset/noreset)", ps_params);

enum ps_type { PS_OBJ, PS_STR, PS_NUM };

/* One JSON value; key and string text live in the same allocation, after the struct. */
struct ps_node {
    struct ps_node *child, *next; /* first member of an object; next sibling (next root for roots) */
    long long num;
    unsigned short klen, tlen;
    unsigned char type;
    size_t bytes; /* requested size of this node */
    char text[];  /* key, NUL, string value, NUL */
};

enum ps_mode { PS_MALLOC, PS_ARENA, PS_RESET, PS_NORESET };

struct ps_state {
    enum ps_mode mode;
    struct wl_arena arena;
    uint64_t node_bytes; /* malloc mode: requested bytes of the nodes held */
    unsigned long long nodes, bad;
    char keep;         /* --keep: 'a'll, 'f'irst or 'l'ast */
    int recheck;       /* --recheck=yes */
};

static const char *const ps_levels[] = {"INFO", "WARN", "ERROR", "DEBUG"};
static const char *const ps_words[] = {"request", "served", "user", "cache", "miss", "timeout", "retry", "ok",
                                       "db", "query", "slow", "login", "token", "expired", "upstream", "reset"};

/* Writes one log line (ending in '\n') at out; returns its length (< PS_LINE_MAX). */
static size_t ps_gen_line(char *out, struct wl_rng *r, unsigned long long ts)
{
    int n = snprintf(out, PS_LINE_MAX, "{\"ts\":%llu,\"level\":\"%s\",\"msg\":\"%s %s %s\"", ts,
                     ps_levels[wl_rng_range(r, 0, 3)], ps_words[wl_rng_range(r, 0, 15)],
                     ps_words[wl_rng_range(r, 0, 15)], ps_words[wl_rng_range(r, 0, 15)]);
    if (wl_rng_range(r, 0, 99) < 27)
        n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), ",\"dur\":%llu", (unsigned long long)wl_rng_range(r, 1, 99999));
    if (wl_rng_range(r, 0, 99) < 30) {
        n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), ",\"ctx\":{\"user\":%llu",
                      (unsigned long long)wl_rng_range(r, 1, 1000000));
        uint64_t extra = wl_rng_range(r, 0, 2);
        if (extra >= 1)
            n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), ",\"path\":\"/api/v1/%s\"", ps_words[wl_rng_range(r, 0, 15)]);
        if (extra >= 2)
            n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), ",\"code\":%llu", (unsigned long long)wl_rng_range(r, 200, 599));
        n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), "}");
    }
    n += snprintf(out + n, (size_t)(PS_LINE_MAX - n), "}\n");
    return (size_t)n;
}

/* Generates `lines` lines into *buf (grown with realloc; *cap its capacity); returns the text length. */
static size_t ps_gen_file(char **buf, size_t *cap, unsigned long long lines, struct wl_rng *r, unsigned long long *ts)
{
    size_t len = 0;
    for (unsigned long long i = 0; i < lines; i++) {
        if (*cap - len < PS_LINE_MAX) {
            size_t ncap = *cap ? *cap * 2 : 1 << 20;
            char *nb;
            WL_LAT(WL_OP_REALLOC, nb = realloc(*buf, ncap));
            if (!nb)
                return 0;
            *buf = nb;
            *cap = ncap;
        }
        len += ps_gen_line(*buf + len, r, (*ts)++);
    }
    return len;
}

/* Allocates one node of the given type with its key and text copied in, by the state's strategy. */
static struct ps_node *ps_new(struct ps_state *st, int type, const char *key, size_t klen, const char *txt, size_t tlen)
{
    size_t bytes = sizeof(struct ps_node) + klen + tlen + 2;
    struct ps_node *n;
    if (st->mode == PS_MALLOC)
        WL_LAT(WL_OP_MALLOC, n = malloc(bytes));
    else
        n = wl_arena_alloc(&st->arena, bytes); /* inline bump, no malloc-API call: never timed */
    if (!n)
        return NULL;
    n->child = n->next = NULL;
    n->num = 0;
    n->klen = (unsigned short)klen;
    n->tlen = (unsigned short)tlen;
    n->type = (unsigned char)type;
    n->bytes = bytes;
    memcpy(n->text, key, klen);
    n->text[klen] = '\0';
    memcpy(n->text + klen + 1, txt, tlen);
    n->text[klen + 1 + tlen] = '\0';
    st->node_bytes += bytes;
    st->nodes++;
    return n;
}

/* Scans a JSON string starting after its opening quote; sets *len, returns the char after the closing quote. */
static const char *ps_string(const char *s, const char **start, size_t *len)
{
    *start = s;
    while (*s && *s != '"')
        s += (*s == '\\' && s[1]) ? 2 : 1;
    *len = (size_t)(s - *start);
    return *s ? s + 1 : s;
}

/* Parses one JSON value at *sp (objects, strings, integers) into a node keyed by key; NULL on a syntax error. */
static struct ps_node *ps_value(struct ps_state *st, const char **sp, const char *key, size_t klen)
{
    const char *s = *sp, *txt;
    size_t tlen;
    struct ps_node *n = NULL;
    if (*s == '"') {
        s = ps_string(s + 1, &txt, &tlen);
        n = ps_new(st, PS_STR, key, klen, txt, tlen);
    } else if (*s == '-' || (*s >= '0' && *s <= '9')) {
        char *end;
        long long v = strtoll(s, &end, 10);
        n = ps_new(st, PS_NUM, key, klen, "", 0);
        if (n)
            n->num = v;
        s = end;
    } else if (*s == '{') {
        n = ps_new(st, PS_OBJ, key, klen, "", 0);
        struct ps_node **tail = n ? &n->child : NULL;
        for (s++; n && *s != '}';) {
            const char *k;
            size_t kl;
            if (*s != '"')
                return NULL;
            s = ps_string(s + 1, &k, &kl);
            if (*s++ != ':')
                return NULL;
            if (!(*tail = ps_value(st, &s, k, kl)))
                return NULL;
            tail = &(*tail)->next;
            if (*s == ',')
                s++;
            else if (*s != '}')
                return NULL;
        }
        s++;
    }
    *sp = s;
    return n;
}

/* FNV-1a of a tree (type, key, text, number of every node); *count gets its node count added. */
static uint64_t ps_hash(const struct ps_node *n, unsigned long long *count)
{
    uint64_t h = 1469598103934665603ULL;
    for (; n; n = n->next) {
        const unsigned char *c = (const unsigned char *)n->text;
        for (size_t i = 0; i < (size_t)n->klen + n->tlen + 2; i++)
            h = (h ^ c[i]) * 1099511628211ULL;
        h = (h ^ (uint64_t)n->num ^ n->type) * 1099511628211ULL;
        if (n->child)
            h ^= ps_hash(n->child, count) * 31;
        (*count)++;
    }
    return h;
}

/* Frees a malloc'd tree (roots chained by next). */
static void ps_free_tree(struct ps_state *st, struct ps_node *n)
{
    while (n) {
        struct ps_node *next = n->next;
        ps_free_tree(st, n->child);
        st->node_bytes -= n->bytes;
        WL_LAT(WL_OP_FREE, free(n));
        n = next;
    }
}

/* Parses every line of text[0..len); roots are chained; returns the sum of the line hashes. */
static uint64_t ps_parse_file(struct ps_state *st, const char *text, size_t len, struct ps_node **roots)
{
    uint64_t sum = 0;
    struct ps_node **tail = roots;
    for (const char *s = text; s < text + len;) {
        const char *eol = memchr(s, '\n', (size_t)(text + len - s));
        struct ps_node *root = ps_value(st, &s, "", 0);
        if (!root || s != eol) {
            st->bad++;
            s = eol ? eol + 1 : text + len;
            continue;
        }
        unsigned long long count = 0;
        root->next = NULL;
        sum += ps_hash(root, &count);
        *tail = root;
        tail = &root->next;
        s = eol + 1;
    }
    return sum;
}

/* Walks every retained tree again: 1 when the sum of line hashes and the node count match. */
static int ps_recheck(const struct ps_node *roots, uint64_t sum, unsigned long long nodes)
{
    uint64_t again = 0;
    unsigned long long count = 0;
    for (struct ps_node *r = (struct ps_node *)roots; r; r = r->next) {
        struct ps_node *saved = r->next;
        r->next = NULL;
        again += ps_hash(r, &count);
        r->next = saved;
    }
    return again == sum && count == nodes;
}

/* Rechecks the trees (--recheck=yes) and releases them by the strategy. */
static void ps_end_file(struct ps_state *st, struct ps_node *roots, uint64_t sum, unsigned long long nodes)
{
    if (st->recheck)
        st->bad += !ps_recheck(roots, sum, nodes);
    if (st->mode == PS_MALLOC)
        ps_free_tree(st, roots);
    else if (st->mode == PS_ARENA)
        wl_arena_free(&st->arena);
    else if (st->mode == PS_RESET && st->keep == 'f')
        wl_arena_reset_first(&st->arena);
    else if (st->mode == PS_RESET && st->keep == 'l')
        wl_arena_reset_last(&st->arena);
    else if (st->mode == PS_RESET)
        wl_arena_reset(&st->arena);
}

/* One file's timed work: parses text[0..len), then releases its trees (adding the release's
 * seconds to *release_s); returns the hash sum.
 * Kept out of line so a profile can name it apart from the generation (callgrind
 * --toggle-collect=ps_take_file: the claims' allocation share). */
__attribute__((noinline)) static uint64_t ps_take_file(struct ps_state *st, const char *text, size_t len,
                                                      double *release_s)
{
    unsigned long long before = st->nodes;
    struct ps_node *roots = NULL;
    uint64_t sum = ps_parse_file(st, text, len, &roots);
    double t0 = wl_now();
    ps_end_file(st, roots, sum, st->nodes - before);
    *release_s += wl_now() - t0;
    return sum;
}

/* Requested bytes the program holds: the text buffer plus nodes (malloc) or arena blocks. */
static uint64_t ps_live(const struct ps_state *st, size_t cap)
{
    return cap + (st->mode == PS_MALLOC ? st->node_bytes : st->arena.held);
}

/* Generates and parses --files files, one phase each, then `parse`, `warm`, `release` and `free`, then verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&ps_prog, argc, argv);
    wl_served_by();
    static const char *const modes[] = {"malloc", "arena", "reset", "noreset"};
    struct ps_state st = {PS_MALLOC, {0}, 0, 0, 0, wl_word("keep")[0], wl_word("recheck")[0] == 'y'};
    for (int m = 0; m < 4; m++)
        if (strcmp(wl_word("alloc"), modes[m]) == 0)
            st.mode = (enum ps_mode)m;
    wl_arena_init(&st.arena, (size_t)wl_arg("block"));
    unsigned long long lines = PS_DAY_LINES * (unsigned long long)wl_arg("scale") / 1000;
    long long files = wl_arg("files");
    struct wl_rng r;
    wl_rng_init(&r, wl_seed, 0);
    char *buf = NULL;
    size_t cap = 0;
    unsigned long long ts = 1700000000, total_nodes = 0;
    uint64_t checksum = 0;
    double parse_s = 0, first_s = 0, release_s = 0;
    unsigned long long first_nodes = 0;

    for (long long f = 1; f <= files; f++) {
        size_t len = ps_gen_file(&buf, &cap, lines, &r, &ts);
        if (!len)
            return wl_verify(0, "out of memory generating a file");
        unsigned long long before = st.nodes;
        double t0 = wl_now();
        uint64_t sum = ps_take_file(&st, buf, len, &release_s);
        char name[32];
        snprintf(name, sizeof name, "file-%lld", f);
        parse_s += wl_phase(name, t0, st.nodes - before, ps_live(&st, cap)) - t0;
        if (f == 1) {
            first_s = parse_s;
            first_nodes = st.nodes - before;
        }
        checksum = checksum * 1099511628211ULL + sum;
        total_nodes += st.nodes - before;
    }
    double now = wl_now();
    wl_phase("parse", now - parse_s, total_nodes, ps_live(&st, cap));
    wl_phase("warm", now - (parse_s - first_s), total_nodes - first_nodes, ps_live(&st, cap));
    double t0 = wl_phase("release", wl_now() - release_s, (unsigned long long)files, ps_live(&st, cap));
    wl_arena_free(&st.arena);
    free(buf);
    wl_phase("free", t0, (unsigned long long)files, 0);

    char detail[160];
    snprintf(detail, sizeof detail, "lines=%llu nodes=%llu checksum=%016llx bad=%llu", lines * (unsigned long long)files,
             total_nodes, (unsigned long long)checksum, st.bad);
    return wl_verify(st.bad == 0, detail);
}
