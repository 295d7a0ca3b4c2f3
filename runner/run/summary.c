/* summary.c - the end-of-run table (see summary.h).
 *
 * Always holds: medians are of the stored samples only (warm-up runs are never added).
 */
#include "run/summary.h"

#include <stdlib.h>
#include <string.h>

/* Allocates one empty sample list per cell. */
void hb_summary_init(struct hb_summary *s, const struct hb_matrix *m)
{
    s->m = m;
    s->cell = hb_xcalloc(m->ng * m->nalloc + 1, sizeof *s->cell);
}

/* Appends a sample. */
void hb_summary_add(struct hb_summary *s, size_t g, size_t a, double wall_s)
{
    struct hb_samples *c = &s->cell[g * s->m->nalloc + a];
    c->v = hb_xappend(c->v, c->n, sizeof *c->v);
    c->v[c->n++] = wall_s;
}

/* Counts a run that is not ok. */
void hb_summary_fail(struct hb_summary *s, size_t g, size_t a)
{
    s->cell[g * s->m->nalloc + a].bad++;
}

/* The env of a group for one table line: "-" when empty, control characters as '?'. */
static char *hb_summary_env(const char *env)
{
    char *e = hb_xstrdup(env[0] ? env : "-");
    for (char *p = e; *p; p++)
        if (hb_is_ctrl((unsigned char)*p))
            *p = '?';
    return e;
}

/* Lines naming the cells with runs not ok (summary.h). */
size_t hb_summary_failures(const struct hb_summary *s, FILE *out)
{
    const struct hb_matrix *m = s->m;
    size_t total = 0;
    for (size_t g = 0; g < m->ng; g++)
        for (size_t a = 0; a < m->nalloc; a++) {
            const struct hb_samples *c = &s->cell[g * m->nalloc + a];
            if (!c->bad)
                continue;
            char *env = hb_summary_env(m->g[g].env);
            fprintf(out, "heapbench: failed: %s %s t=%d env=%s %s: %zu runs failed, crashed or timed out "
                    "(reason column of runs.csv)\n", m->g[g].wl->name, m->g[g].params, m->g[g].threads, env,
                    m->alloc[a]->name, c->bad);
            free(env);
            total += c->bad;
        }
    return total;
}

/* qsort comparator for doubles. */
static int hb_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of the cell's samples. */
double hb_summary_median(const struct hb_summary *s, size_t g, size_t a)
{
    struct hb_samples *c = &s->cell[g * s->m->nalloc + a];
    if (!c->n)
        return -1;
    qsort(c->v, c->n, sizeof *c->v, hb_cmp_double);
    return c->n % 2 ? c->v[c->n / 2] : (c->v[c->n / 2 - 1] + c->v[c->n / 2]) / 2;
}

/* The characters of the first len bytes of UTF-8 text s (continuation bytes are not counted). */
static size_t hb_summary_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/* Prints s in a column of width characters and a blank: cut after width characters, never inside
 * one (stdout stays UTF-8 text), padded with blanks. */
static void hb_summary_field(FILE *out, const char *s, int width)
{
    size_t len = 0, chars = 0;
    while (s[len] && (chars < (size_t)width || ((unsigned char)s[len] & 0xc0) == 0x80)) {
        chars += ((unsigned char)s[len] & 0xc0) != 0x80;
        len++;
    }
    fprintf(out, "%.*s%*s ", (int)len, s, width - (int)chars, "");
}

/* Prints one line per cell of the shard. */
void hb_summary_print(const struct hb_summary *s, FILE *out)
{
    const struct hb_matrix *m = s->m;
    int glibc = -1;
    for (size_t a = 0; a < m->nalloc; a++)
        if (m->alloc[a]->system)
            glibc = (int)a;
    int envw = 3, wlw = 18; /* the workload column holds every name whole (trace:DIR/NAME.hbt cells differ at the end) */
    for (size_t g = 0; g < m->ng; g++) {
        if ((int)hb_summary_chars(m->g[g].env, strlen(m->g[g].env)) > envw)
            envw = (int)hb_summary_chars(m->g[g].env, strlen(m->g[g].env));
        if (hb_matrix_in_shard(m, g) && (int)hb_summary_chars(m->g[g].wl->name, strlen(m->g[g].wl->name)) > wlw)
            wlw = (int)hb_summary_chars(m->g[g].wl->name, strlen(m->g[g].wl->name));
    }
    fprintf(out, "%-*s %-34s %3s %-*s %-16s %3s %10s %9s\n", wlw, "workload", "params", "thr", envw, "env",
            "allocator", "ok", "median_s", "vs_glibc");
    for (size_t g = 0; g < m->ng; g++) {
        if (!hb_matrix_in_shard(m, g))
            continue;
        const struct hb_group *gr = &m->g[g];
        double base = glibc >= 0 ? hb_summary_median(s, g, (size_t)glibc) : -1;
        for (size_t a = 0; a < m->nalloc; a++) {
            double med = hb_summary_median(s, g, a);
            char medtxt[32] = "-", ratio[32] = "-";
            if (med >= 0)
                snprintf(medtxt, sizeof medtxt, "%.4f", med);
            if (med >= 0 && base > 0)
                snprintf(ratio, sizeof ratio, "%.2fx", med / base);
            char *env = hb_summary_env(gr->env);
            hb_summary_field(out, gr->wl->name, wlw);
            hb_summary_field(out, gr->params, 34);
            fprintf(out, "%3d ", gr->threads);
            hb_summary_field(out, env, envw);
            hb_summary_field(out, m->alloc[a]->name, 16);
            fprintf(out, "%3zu %10s %9s\n", s->cell[g * m->nalloc + a].n, medtxt, ratio);
            free(env);
        }
    }
}

/* Frees the samples. */
void hb_summary_free(struct hb_summary *s)
{
    for (size_t i = 0; s->cell && i < s->m->ng * s->m->nalloc; i++)
        free(s->cell[i].v);
    free(s->cell);
    s->cell = NULL;
}
