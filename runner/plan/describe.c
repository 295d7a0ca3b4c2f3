/* describe.c - a workload binary's --describe, parsed (see describe.h).
 *
 * Always holds: an integer is compared by sign and magnitude, so the whole of MIN..MAX (seed's
 * 0..2^64-1 included) is checked exactly; nothing here writes to the terminal.
 */
#include "plan/describe.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysinfo.h"
#include "base/util.h"

/* Parses the lines of text (describe.h). */
void hb_describe_parse(struct hb_describe *d, const char *text)
{
    struct hb_strv lines = {0};
    hb_strv_split(&lines, text ? text : "", "\n", 0);
    d->p = hb_xcalloc(lines.n ? lines.n : 1, sizeof *d->p);
    d->n = 0;
    for (size_t i = 0; i < lines.n; i++) {
        struct hb_strv f = {0};
        hb_strv_split(&f, lines.v[i], "\t", 1);
        d->p[d->n++] = (struct hb_param_info){hb_xstrdup(f.v[0]), hb_xstrdup(f.n > 1 ? f.v[1] : ""),
                                              hb_xstrdup(f.n > 2 ? f.v[2] : ""), hb_xstrdup(f.n > 3 ? f.v[3] : "")};
        hb_strv_free(&f);
    }
    hb_strv_free(&lines);
}

/* Runs bin --describe (describe.h). */
void hb_describe_load(struct hb_describe *d, const char *bin)
{
    char *argv[] = {(char *)bin, "--describe", NULL};
    char *text = hb_capture_all(argv);
    hb_describe_parse(d, text);
    free(text);
}

/* The parameter called name (describe.h). */
const struct hb_param_info *hb_describe_find(const struct hb_describe *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->p[i].name, name) == 0)
            return &d->p[i];
    return NULL;
}

/* A whole decimal number as sign and magnitude ('+' taken, as strtoll in the workloads takes it);
 * -1 when s is not one (or does not fit 64 bits). */
static int hb_describe_int(const char *s, size_t len, int *neg, unsigned long long *mag)
{
    if (len > 1 && s[0] == '+' && s[1] != '-')
        s++, len--;
    *neg = len > 0 && s[0] == '-';
    char digits[32];
    size_t n = len - (size_t)*neg;
    if (n == 0 || n >= sizeof digits || strspn(s + *neg, "0123456789") < n)
        return -1;
    memcpy(digits, s + *neg, n);
    digits[n] = '\0';
    errno = 0;
    *mag = strtoull(digits, NULL, 10);
    return errno ? -1 : 0;
}

/* -1, 0 or 1 as the signed integer a is below, equal to or above b. */
static int hb_describe_cmp(int aneg, unsigned long long a, int bneg, unsigned long long b)
{
    if (aneg != bneg && (a || b))
        return aneg ? -1 : 1;
    int c = a < b ? -1 : a > b;
    return aneg ? -c : c;
}

/* Splits "MIN..MAX" into its bounds; -1 when accepts is not one. */
static int hb_describe_bounds(const char *accepts, int neg[2], unsigned long long mag[2])
{
    const char *dots = strstr(accepts, "..");
    if (!dots || hb_describe_int(accepts, (size_t)(dots - accepts), &neg[0], &mag[0]) != 0)
        return -1;
    return hb_describe_int(dots + 2, strlen(dots + 2), &neg[1], &mag[1]);
}

/* 1 when word is one of the '|'-separated choices. */
static int hb_describe_choice(const char *choices, const char *word)
{
    struct hb_strv c = {0};
    hb_strv_split(&c, choices, "|", 1);
    int found = hb_strv_find(&c, word) >= 0;
    hb_strv_free(&c);
    return found;
}

/* Is value accepted by p (describe.h). */
int hb_describe_accepts(const struct hb_param_info *p, const char *value)
{
    int neg[2], vneg;
    unsigned long long mag[2], v;
    if (!*p->accepts)
        return 1;
    if (hb_describe_bounds(p->accepts, neg, mag) != 0)
        return hb_describe_choice(p->accepts, value);
    return hb_describe_int(value, strlen(value), &vneg, &v) == 0 && hb_describe_cmp(vneg, v, neg[0], mag[0]) >= 0 &&
           hb_describe_cmp(vneg, v, neg[1], mag[1]) <= 0;
}

/* One bound as a long long, clamped. */
static long long hb_describe_clamp(int neg, unsigned long long mag)
{
    if (mag > (unsigned long long)LLONG_MAX)
        return neg ? LLONG_MIN : LLONG_MAX;
    return neg ? -(long long)mag : (long long)mag;
}

/* The bounds of an integer parameter (describe.h). */
int hb_describe_range(const struct hb_param_info *p, long long *min, long long *max)
{
    int neg[2];
    unsigned long long mag[2];
    if (hb_describe_bounds(p->accepts, neg, mag) != 0)
        return -1;
    *min = hb_describe_clamp(neg[0], mag[0]);
    *max = hb_describe_clamp(neg[1], mag[1]);
    return 0;
}

void hb_describe_free(struct hb_describe *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->p[i].name), free(d->p[i].def), free(d->p[i].desc), free(d->p[i].accepts);
    free(d->p);
    d->p = NULL;
    d->n = 0;
}
