/* metric.c - compiles --metric regexes and reads their figures from run logs (see metric.h).
 *
 * Always holds: metric names are [A-Za-z0-9_]+ so metric_<NAME> is a plain CSV column name.
 */
#include "metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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
    int rc = regcomp(&m->re, regex, REG_EXTENDED | REG_NEWLINE);
    if (rc != 0) {
        char msg[128];
        regerror(rc, &m->re, msg, sizeof msg);
        snprintf(err, errlen, "'%s': bad regular expression (%s)", spec, msg);
        free(regex);
        return -1;
    }
    free(regex);
    m->name = hb_xasprintf("%.*s", (int)nlen, spec);
    return 0;
}

/* First match, first group, as a number. */
int hb_metric_extract(const struct hb_metric *m, const char *text, double *value)
{
    regmatch_t match[2];
    if (!text || regexec(&m->re, text, 2, match, 0) != 0)
        return 0;
    regmatch_t *use = match[1].rm_so >= 0 && m->re.re_nsub >= 1 ? &match[1] : &match[0];
    char *digits = hb_xasprintf("%.*s", (int)(use->rm_eo - use->rm_so), text + use->rm_so);
    char *end;
    *value = strtod(digits, &end);
    int ok = end != digits;
    free(digits);
    return ok;
}

/* Frees the compiled regex. */
void hb_metric_free(struct hb_metric *m)
{
    if (m->name)
        regfree(&m->re);
    free(m->name);
    m->name = NULL;
}
