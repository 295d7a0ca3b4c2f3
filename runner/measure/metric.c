/* metric.c - compiles --metric regexes and reads their figures from run logs (see metric.h).
 *
 * Always holds: metric names are [A-Za-z0-9_]+ so metric_<NAME> is a plain CSV column name; a
 * compiled regex holds no back-reference and at most HB_METRIC_ATOMS_MAX atoms, and a search
 * reads at most HB_METRIC_LINE_MAX bytes of each line, so extraction is linear in the log.
 */
#include "measure/metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The end (its ']') of the bracket expression that starts at p, or NULL when it is not closed. */
static const char *hb_metric_bracket_end(const char *p)
{
    p += 1 + (p[1] == '^');
    if (*p == ']')
        p++;
    for (; *p && *p != ']'; p++)
        if (*p == '[' && p[1] && strchr(":.=", p[1])) { /* [:class:], [.coll.], [=equiv=] */
            const char *close = strstr(p + 2, (char[]){p[1], ']', '\0'});
            if (!close)
                return NULL;
            p = close + 1;
        }
    return *p ? p : NULL;
}

static long hb_metric_cap(long w) { return w > HB_METRIC_ATOMS_MAX ? HB_METRIC_ATOMS_MAX + 1 : w; }

/* The interval "{m}", "{m,}" or "{m,n}" at p: the most copies it makes of its atom (m + 1 for
 * "{m,}", at least 1), *end past it; 0 when p holds none. */
static long hb_metric_interval(const char *p, const char **end)
{
    if (p[0] != '{' || p[1] < '0' || p[1] > '9')
        return 0;
    char *e;
    long m = strtol(p + 1, &e, 10), n = m;
    if (*e == ',') {
        e++;
        n = *e >= '0' && *e <= '9' ? strtol(e, &e, 10) : m + 1;
    }
    if (*e != '}')
        return 0;
    *end = e + 1;
    return hb_metric_cap(m > n ? m : n) + (m == 0 && n == 0);
}

/* The atoms regcomp makes of the pattern at *pp once intervals are expanded (alternatives are
 * added, so this is an upper bound), up to the ')' that closes the group when depth > 0 (groups
 * nested deeper than HB_METRIC_DEPTH_MAX count as too many atoms); -1 when it holds a
 * back-reference. Capped at HB_METRIC_ATOMS_MAX + 1. */
static long hb_metric_atoms(const char **pp, int depth)
{
    const char *p = *pp, *end;
    long total = 0, last = 0; /* last: the atom an interval after it repeats (0: none) */
    if (depth > HB_METRIC_DEPTH_MAX)
        return HB_METRIC_ATOMS_MAX + 1;
    for (; *p && !(depth && *p == ')'); p = end) {
        long w = 1, reps = last ? hb_metric_interval(p, &end) : 0; /* sets end past an interval */
        if (reps) {
            total = hb_metric_cap(total + last * (reps - 1));
            last = hb_metric_cap(last * reps);
            continue;
        }
        end = p + 1;
        if (strchr("*+?", *p))
            continue;
        if (strchr("|^$", *p)) {
            last = 0;
            continue;
        }
        if (*p == '\\') {
            if (p[1] >= '1' && p[1] <= '9')
                return -1;
            end = p + 1 + (p[1] != '\0');
        } else if (*p == '[') {
            const char *close = hb_metric_bracket_end(p);
            end = close ? close + 1 : p + strlen(p);
        } else if (*p == '(') {
            end = p + 1;
            if ((w = hb_metric_atoms(&end, depth + 1)) < 0)
                return -1;
            w += !w;
            end += *end == ')';
        }
        total = hb_metric_cap(total + w);
        last = w;
    }
    *pp = p;
    return total;
}

/* Refuses a regex whose matching time or compiled size can grow without bound: a back-reference
 * (glibc matches those by backtracking, exponential in the log's length) or intervals that
 * expand to more than HB_METRIC_ATOMS_MAX atoms (regcomp copies the atom for each count).
 * 0, or -1 with the reason in err. */
static int hb_metric_bounded(const char *spec, const char *regex, char *err, size_t errlen)
{
    long atoms = hb_metric_atoms(&regex, 0);
    if (atoms < 0)
        snprintf(err, errlen, "'%s': back-references (\\1 to \\9) are not supported (their matching time grows "
                 "exponentially); write the regex without them", spec);
    else if (atoms > HB_METRIC_ATOMS_MAX)
        snprintf(err, errlen, "'%s': the regex expands to more than %d atoms once its {m,n} repetitions are "
                 "copied, or nests groups deeper than %d; use smaller counts or + and *", spec, HB_METRIC_ATOMS_MAX,
                 HB_METRIC_DEPTH_MAX);
    return atoms < 0 || atoms > HB_METRIC_ATOMS_MAX ? -1 : 0;
}

/* 1 when regex uses Perl's \d or \D, which a POSIX regex reads as the letter d (so the metric would
 * never match a number); an escaped backslash before d (\\d) is not one. */
static int hb_metric_perl_digit(const char *regex)
{
    for (const char *p = regex; *p; p++)
        if (*p == '\\') {
            if (p[1] == 'd' || p[1] == 'D')
                return 1;
            if (p[1])
                p++;
        }
    return 0;
}

/* Parses NAME=REGEX[,higher|,lower]. */
int hb_metric_parse(struct hb_metric *m, const char *spec, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    const char *eq = strchr(spec, '=');
    size_t nlen = eq ? (size_t)(eq - spec) : 0;
    if (!nlen || strspn(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != nlen) {
        snprintf(err, errlen, "'%s': want NAME=REGEX[,higher] with NAME of letters, digits, _", spec);
        return -1;
    }
    char *regex = hb_xstrdup(eq + 1);
    size_t rlen = strlen(regex);
    if (rlen > 7 && strcmp(regex + rlen - 7, ",higher") == 0) {
        m->higher = 1;
        regex[rlen - 7] = '\0';
    } else if (rlen > 6 && strcmp(regex + rlen - 6, ",lower") == 0) {
        regex[rlen - 6] = '\0';
    }
    if (hb_metric_perl_digit(regex)) {
        snprintf(err, errlen, "'%s': \\d is Perl's; in a POSIX extended regex it is the letter d: write [0-9]",
                 spec);
        free(regex);
        return -1;
    }
    if (hb_metric_bounded(spec, regex, err, errlen) != 0) {
        free(regex);
        return -1;
    }
    int rc = regcomp(&m->re, regex, REG_EXTENDED | REG_NEWLINE);
    if (rc != 0) {
        char msg[128];
        regerror(rc, &m->re, msg, sizeof msg);
        snprintf(err, errlen, "'%s': bad regular expression (%s)", spec, msg);
        free(regex);
        return -1;
    }
    m->regex = regex;
    m->name = hb_xasprintf("%.*s", (int)nlen, spec);
    return 0;
}

/* Copies text (n bytes) into out, cut to len - 1 bytes, control characters as '?'. */
static void hb_metric_quote(const char *text, size_t n, char *out, size_t len)
{
    if (!len)
        return;
    size_t k = 0;
    for (; k < n && k + 1 < len; k++)
        out[k] = hb_is_ctrl((unsigned char)text[k]) ? '?' : text[k];
    out[k] = '\0';
}

/* The first match in line (its value's text in got): what it holds, or HB_METRIC_NO_MATCH. */
static enum hb_metric_found hb_metric_match(const struct hb_metric *m, const char *line, double *value, char *got,
                                            size_t gotlen)
{
    regmatch_t match[2];
    if (regexec(&m->re, line, 2, match, 0) != 0)
        return HB_METRIC_NO_MATCH;
    regmatch_t *use = match[1].rm_so >= 0 && m->re.re_nsub >= 1 ? &match[1] : &match[0];
    char *digits = hb_xasprintf("%.*s", (int)(use->rm_eo - use->rm_so), line + use->rm_so);
    hb_metric_quote(digits, strlen(digits), got, gotlen);
    char *end;
    *value = strtod(digits, &end);
    enum hb_metric_found found = end == digits                         ? HB_METRIC_NOT_NUMBER
                                 : !isfinite(*value)                   ? HB_METRIC_NOT_FINITE
                                 : fabs(*value) > HB_METRIC_ABS_MAX    ? HB_METRIC_OUT_OF_RANGE
                                                                       : HB_METRIC_VALUE;
    free(digits);
    return found;
}

/* The first matching line, searched in its first HB_METRIC_LINE_MAX bytes: glibc's regexec takes
 * time quadratic in the text it searches, so each search is bounded and the whole is linear. */
enum hb_metric_found hb_metric_extract(const struct hb_metric *m, const char *text, double *value, char *got,
                                       size_t gotlen)
{
    char line[HB_METRIC_LINE_MAX + 1];
    if (gotlen)
        got[0] = '\0';
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n\r"), n = len < HB_METRIC_LINE_MAX ? len : HB_METRIC_LINE_MAX;
        memcpy(line, p, n);
        line[n] = '\0';
        enum hb_metric_found found = hb_metric_match(m, line, value, got, gotlen);
        if (found != HB_METRIC_NO_MATCH)
            return found;
        p += len + (p[len] != '\0');
    }
    return HB_METRIC_NO_MATCH;
}

void hb_metric_reason(const struct hb_metric *m, enum hb_metric_found found, const char *got, const char *last_line,
                      char *out, size_t len)
{
    char re[80];
    hb_metric_quote(m->regex, strlen(m->regex), re, sizeof re);
    if (found == HB_METRIC_NOT_FINITE)
        snprintf(out, len, "metric %s: '%s' is not a finite number (the program's output, read by '%s')", m->name,
                 got, re);
    else if (found == HB_METRIC_OUT_OF_RANGE)
        snprintf(out, len, "metric %s: '%s' is beyond +-%g, a metric's range (docs/DATA.md; read by '%s')", m->name,
                 got, HB_METRIC_ABS_MAX, re);
    else if (found == HB_METRIC_NOT_NUMBER)
        snprintf(out, len, "metric %s: '%s' is not a number (what '%s' matched; put the figure in its first group)",
                 m->name, got, re);
    else if (!last_line[0])
        snprintf(out, len, "metric %s: '%s' matched no line: the program printed nothing", m->name, re);
    else
        snprintf(out, len, "metric %s: '%s' matched no line of the output; its last line: '%s'", m->name, re,
                 last_line);
}

/* Frees the compiled regex. */
void hb_metric_valgrind(struct hb_metric *m, const char *name, int which)
{
    memset(m, 0, sizeof *m);
    m->name = hb_xstrdup(name);
    m->valgrind = which;
}

void hb_metric_free(struct hb_metric *m)
{
    if (m->name && !m->valgrind)
        regfree(&m->re);
    free(m->name);
    free(m->regex);
    m->name = m->regex = NULL;
}
