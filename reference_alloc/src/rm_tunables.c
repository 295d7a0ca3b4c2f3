/* rm_tunables.c - glibc's malloc tunables, read under glibc's names and ranges: GLIBC_TUNABLES
 * (glibc.malloc.arena_max, arena_test, tcache_count, tcache_max, mmap_threshold,
 * trim_threshold, top_pad, mmap_max, perturb, mxfast), the environment aliases (MALLOC_ARENA_MAX,
 * MALLOC_ARENA_TEST, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_,
 * MALLOC_MMAP_MAX_, MALLOC_PERTURB_) and mallopt.
 *
 * Always true: parsing never allocates (the environment is read in place); an out-of-range or
 * malformed value is ignored, as glibc does; aliases are read first and GLIBC_TUNABLES wins;
 * setting mmap_threshold, trim_threshold, top_pad or mmap_max turns the dynamic threshold off
 * (as glibc's do_set_* functions do); mallopt answers
 * as glibc 2.36 does and clamps a value beyond refmalloc's range instead of refusing it. With
 * REFMALLOC_REPORT=1 every value in force is written to stderr at start-up, one per line:
 *     refmalloc: glibc.malloc.<name>=<value> (from GLIBC_TUNABLES|<alias>|mallopt|default)
 * and every ignored setting as
 *     refmalloc: glibc.malloc.<name>: ignored <text> from <source> (allowed <min>..<max>)
 */
#include "rm_types.h"
#include "interpose.h"

#include <malloc.h>
#include <string.h>

typedef struct rm_tunable {
    const char *name;  /* after "glibc.malloc." */
    const char *alias; /* environment alias, or NULL */
    int mallopt;       /* mallopt parameter, or 0 */
    size_t min, max;
    size_t *field;
    int fixes_threshold; /* setting it disables the dynamic mmap/trim threshold */
    int from;            /* RM_FROM_* */
} rm_tunable;

static rm_tunable rm_tunables[] = {
    {"arena_max", "MALLOC_ARENA_MAX", M_ARENA_MAX, 1, (size_t)-1, &rm_mp.arena_max, 0, 0},
    {"arena_test", "MALLOC_ARENA_TEST", M_ARENA_TEST, 1, (size_t)-1, &rm_mp.arena_test, 0, 0},
    {"tcache_count", NULL, 0, 0, RM_TCACHE_COUNT_MAX, &rm_mp.tcache_count, 0, 0},
    {"tcache_max", NULL, 0, 0, RM_TCACHE_MAX_BYTES, &rm_mp.tcache_max, 0, 0},
    {"mmap_threshold", "MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 0, RM_MMAP_THRESHOLD_MAX,
     &rm_mp.mmap_threshold, 1, 0},
    {"trim_threshold", "MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, 0, (size_t)-1,
     &rm_mp.trim_threshold, 1, 0},
    /* glibc's do_set_top_pad and do_set_mmaps_max also stop the dynamic threshold */
    {"top_pad", "MALLOC_TOP_PAD_", M_TOP_PAD, 0, RM_TOP_PAD_MAX, &rm_mp.top_pad, 1, 0},
    {"mmap_max", "MALLOC_MMAP_MAX_", M_MMAP_MAX, 0, 0x7fffffff, &rm_mp.mmap_max, 1, 0},
    {"perturb", "MALLOC_PERTURB_", M_PERTURB, 0, 0xff, &rm_mp.perturb, 0, 0},
    {"mxfast", NULL, M_MXFAST, 0, RM_MXFAST_MAX, &rm_mp.mxfast, 0, 0},
};
#define RM_NTUNABLES (sizeof rm_tunables / sizeof rm_tunables[0])

static int rm_report_on; /* REFMALLOC_REPORT=1 */

/* Parses [s, end) as an unsigned number like strtoul(s, NULL, 0) (decimal, 0x hex, 0 octal);
 * returns 0 on a malformed or overflowing number. */
static int rm_parse_num(const char *s, const char *end, size_t *out)
{
    unsigned base = 10;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    } else if (end - s > 1 && s[0] == '0') {
        base = 8;
        s++;
    }
    if (s == end)
        return 0;
    size_t v = 0;
    for (; s < end; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return 0;
        if (d >= base || __builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v))
            return 0;
    }
    *out = v;
    return 1;
}

/* Writes the "ignored" line for t when reporting is on. */
static void rm_report_ignored(const rm_tunable *t, const char *val, const char *val_end,
                              const char *source)
{
    if (!rm_report_on)
        return;
    char buf[320];
    char *end = buf + sizeof buf - 2, *p = buf;
    p = rm_fmt_str(p, end, "refmalloc: glibc.malloc.");
    p = rm_fmt_str(p, end, t->name);
    p = rm_fmt_str(p, end, ": ignored ");
    while (val < val_end && p < end - 64)
        *p++ = *val++;
    p = rm_fmt_str(p, end, " from ");
    p = rm_fmt_str(p, end, source);
    p = rm_fmt_str(p, end, " (allowed ");
    p = rm_fmt_u(p, end, t->min);
    p = rm_fmt_str(p, end, "..");
    p = rm_fmt_u(p, end, t->max);
    p = rm_fmt_str(p, end, ")\n");
    rm_os_write(buf);
}

/* Applies value v to t if it is in range; returns 1 when applied. */
static int rm_tunable_set(rm_tunable *t, size_t v, int from)
{
    if (v < t->min || v > t->max)
        return 0;
    *t->field = v;
    t->from = from;
    if (t->fixes_threshold)
        rm_mp.no_dyn_threshold = 1;
    if (t->field == &rm_mp.tcache_max)
        rm_tunables_set_tcache_max(v);
    if (t->field == &rm_mp.mxfast) /* glibc: below 8 leaves no chunk size small enough */
        rm_mp.max_fast = rm_max_fast_of(v);
    return 1;
}

/* Parses the text value [val, end) for t from source; reports it when ignored. */
static void rm_tunable_parse(rm_tunable *t, const char *val, const char *end, int from,
                             const char *source)
{
    size_t v;
    if (!rm_parse_num(val, end, &v) || !rm_tunable_set(t, v, from))
        rm_report_ignored(t, val, end, source);
}

/* Applies one "glibc.malloc.name=value" item of GLIBC_TUNABLES ([s, end)); others are ignored. */
static void rm_tunables_item(const char *s, const char *end)
{
    static const char prefix[] = "glibc.malloc.";
    const char *eq = memchr(s, '=', (size_t)(end - s));
    if (!eq || (size_t)(end - s) < sizeof prefix - 1 || memcmp(s, prefix, sizeof prefix - 1) != 0)
        return;
    const char *name = s + sizeof prefix - 1;
    for (size_t i = 0; i < RM_NTUNABLES; i++) {
        rm_tunable *t = &rm_tunables[i];
        if (strlen(t->name) == (size_t)(eq - name) && memcmp(t->name, name, (size_t)(eq - name)) == 0)
            rm_tunable_parse(t, eq + 1, end, RM_FROM_TUNABLES, "GLIBC_TUNABLES");
    }
}

/* The tcache bin count for a tcache_max of bytes (glibc: tidx(request2size(bytes)) + 1). */
void rm_tunables_set_tcache_max(size_t bytes)
{
    rm_mp.tcache_max = bytes;
    rm_mp.tcache_bins = rm_tcache_index(rm_request2size(bytes)) + 1;
}

/* Reads the aliases, then GLIBC_TUNABLES, into rm_mp. Allocates nothing. */
void rm_tunables_load(void)
{
    const char *r = rm_os_getenv("REFMALLOC_REPORT");
    rm_report_on = r && r[0] == '1';
    for (size_t i = 0; i < RM_NTUNABLES; i++) {
        rm_tunable *t = &rm_tunables[i];
        const char *v = t->alias ? rm_os_getenv(t->alias) : NULL;
        if (v)
            rm_tunable_parse(t, v, v + strlen(v), RM_FROM_ALIAS, t->alias);
    }
    const char *s = rm_os_getenv("GLIBC_TUNABLES");
    while (s && *s) {
        const char *end = strchr(s, ':');
        if (!end)
            end = s + strlen(s);
        rm_tunables_item(s, end);
        s = *end ? end + 1 : end;
    }
}

/* With REFMALLOC_REPORT=1, writes the value in force of every tunable and where it came from. */
void rm_tunables_report(void)
{
    if (!rm_report_on)
        return;
    static const char *const from_names[] = {"default", "GLIBC_TUNABLES", NULL, "mallopt"};
    for (size_t i = 0; i < RM_NTUNABLES; i++) {
        const rm_tunable *t = &rm_tunables[i];
        char buf[200];
        char *end = buf + sizeof buf - 2, *p = buf;
        p = rm_fmt_str(p, end, "refmalloc: glibc.malloc.");
        p = rm_fmt_str(p, end, t->name);
        p = rm_fmt_str(p, end, "=");
        p = rm_fmt_u(p, end, *t->field);
        p = rm_fmt_str(p, end, t->from == RM_FROM_DEFAULT ? " (" : " (from ");
        p = rm_fmt_str(p, end, t->from == RM_FROM_ALIAS ? t->alias : from_names[t->from]);
        p = rm_fmt_str(p, end, ")\n");
        rm_os_write(buf);
    }
}

/* The tunable set by mallopt parameter param, or NULL. */
static rm_tunable *rm_tunable_of_mallopt(int param)
{
    for (size_t i = 0; i < RM_NTUNABLES; i++)
        if (rm_tunables[i].mallopt == param && param != 0)
            return &rm_tunables[i];
    return NULL;
}

/* The value glibc 2.36 stores for mallopt(param of t, value): a negative int becomes a huge
 * size_t (M_TRIM_THRESHOLD,-1 turns trimming off), except that a negative M_MMAP_MAX means no
 * mapped chunks (glibc compares it as an int) and M_PERTURB keeps the low byte (memset does);
 * clamped to refmalloc's range of the tunable (README: the differences table). */
static size_t rm_mallopt_value(const rm_tunable *t, int value)
{
    size_t v = (size_t)(long)value;
    if (t->field == &rm_mp.perturb)
        v = (size_t)value & 0xff;
    else if (t->field == &rm_mp.mmap_max && value < 0)
        v = 0;
    if (v < t->min)
        v = t->min;
    return v > t->max ? t->max : v;
}

/* mallopt with glibc 2.36's answers: 1 for every parameter and value (unknown parameters and
 * M_CHECK_ACTION are accepted and ignored, M_ARENA_MAX / M_ARENA_TEST <= 0 are ignored), except
 * M_MXFAST outside 0..160, which is refused with 0. */
int ip_backend_mallopt(int param, int value)
{
    rm_ensure_init();
    rm_tunable *t = rm_tunable_of_mallopt(param);
    if (!t)
        return 1;
    if (t->field == &rm_mp.mxfast)
        return value >= 0 && rm_tunable_set(t, (size_t)value, RM_FROM_MALLOPT);
    if ((t->field == &rm_mp.arena_max || t->field == &rm_mp.arena_test) && value <= 0)
        return 1;
    rm_tunable_set(t, rm_mallopt_value(t, value), RM_FROM_MALLOPT);
    return 1;
}
