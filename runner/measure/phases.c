/* phases.c - parses phase-protocol records and judges a run's status (see phases.h).
 *
 * Always holds: the judge never upgrades a status (timeout/crashed/failed stay as they are).
 */
#include "measure/phases.h"
#include "measure/latency.h"
#include "ownalloc.h"
#include "measure/ownscan.h"
#include "wl_phase.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses every record of text. */
void hb_phase_parse(const char *text, struct hb_phase_report *rep)
{
    memset(rep, 0, sizeof *rep);
    struct hb_strv lines = {0};
    hb_strv_split(&lines, text ? text : "", "\n", 0);
    for (size_t i = 0; i < lines.n; i++) {
        struct hb_strv f = {0};
        hb_strv_split(&f, lines.v[i], "\t", 1);
        if (strcmp(f.v[0], WL_TAG_SERVED_BY) == 0 && f.n >= 2 && !rep->served_by) {
            rep->served_by = hb_xstrdup(f.v[1]);
        } else if (strcmp(f.v[0], HB_TAG_OWN_ALLOCATOR) == 0 && f.n >= 3) {
            hb_own_merge(rep->own_allocator, sizeof rep->own_allocator, f.v[1]);
            if (!rep->own_where)
                rep->own_where = hb_xstrdup(f.v[2]);
        } else if (strcmp(f.v[0], HB_TAG_OWN_SHARE) == 0 && f.n >= 2 && !rep->own_share &&
                   strspn(f.v[1], "0123456789.") == strlen(f.v[1]) && *f.v[1]) {
            rep->own_share = hb_xstrdup(f.v[1]);
        } else if (strcmp(f.v[0], WL_TAG_PHASE) == 0 && f.n >= 1 + WL_PHASE_FIELDS) {
            rep->ph = hb_xappend(rep->ph, rep->nph, sizeof *rep->ph);
            rep->ph[rep->nph++] = (struct hb_phase){hb_xstrdup(f.v[1]), hb_xstrdup(f.v[2]), hb_xstrdup(f.v[3]),
                                                    hb_xstrdup(f.v[4]), hb_xstrdup(f.v[5])};
        } else if (strcmp(f.v[0], WL_TAG_SIZE) == 0 && f.n >= 3) {
            hb_strv_push(&rep->sizes, f.v[1]);
            hb_strv_push(&rep->sizes, f.v[2]);
        } else if (strcmp(f.v[0], WL_ALLOCSTAT_TAG) == 0 && f.n >= WL_ALLOCSTAT_FIELDS) {
            for (size_t k = 1; k <= WL_ALLOCSTAT_FIELDS; k++) /* an empty reason may be cut off */
                hb_strv_push(&rep->allocstats, k < f.n ? f.v[k] : "");
        } else if (strcmp(f.v[0], WL_TAG_VERIFY) == 0 && f.n >= 2 && strcmp(f.v[1], WL_VERIFY_OK) != 0) {
            rep->verify_failed = 1;
            free(rep->verify_detail);
            rep->verify_detail = hb_xstrdup(f.n >= 3 ? f.v[2] : "");
        } else {
            hb_latency_take(rep, &f);
        }
        hb_strv_free(&f);
    }
    hb_strv_free(&lines);
    hb_latency_finish(rep);
}

/* The phase name of a `phase` record line with at least the fields hb_phase_parse() needs. */
char *hb_phase_name_of(const char *line, size_t len)
{
    static const char tag[] = WL_TAG_PHASE "\t";
    if (len < sizeof tag - 1 || memcmp(line, tag, sizeof tag - 1) != 0)
        return NULL;
    const char *name = line + sizeof tag - 1, *end = memchr(name, '\t', len - (size_t)(name - line));
    size_t tabs = 0;
    for (size_t i = 0; i < len; i++)
        tabs += line[i] == '\t';
    if (!end || tabs < WL_PHASE_FIELDS)
        return NULL;
    char *out = hb_xmalloc((size_t)(end - name) + 1);
    memcpy(out, name, (size_t)(end - name));
    out[end - name] = '\0';
    return out;
}

/* The last failed verify record's detail (phases.h). */
void hb_phase_verify_detail(const char *text, char *out, size_t n)
{
    static const char tag[] = WL_TAG_VERIFY "\t";
    out[0] = '\0';
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, tag, sizeof tag - 1) != 0 || strncmp(line + sizeof tag - 1, WL_VERIFY_OK, sizeof WL_VERIFY_OK - 1) == 0)
            continue;
        const char *detail = strchr(line + sizeof tag - 1, '\t');
        size_t len = detail ? strcspn(++detail, "\n") : 0;
        if (len >= n)
            for (len = n - 1; len && ((unsigned char)detail[len] & 0xc0) == 0x80; len--)
                ;
        memcpy(out, detail ? detail : "", len);
        out[len] = '\0';
    }
}

/* Checks served_by and verify of an exited-0 run. */
void hb_phase_judge(const struct hb_phase_report *rep, const char *expected, struct hb_result *res)
{
    if (res->status != HB_OK)
        return;
    char real[PATH_MAX];
    if (!rep->served_by) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "workload did not report served_by");
    } else if (!realpath(rep->served_by, real) || strcmp(real, expected) != 0) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "LD_PRELOAD had no effect: malloc served by %s, expected %s",
                 rep->served_by, expected);
    } else if (rep->verify_failed) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "verify failed: %s", rep->verify_detail);
    }
}

/* Frees the parsed records. */
void hb_phase_report_free(struct hb_phase_report *rep)
{
    for (size_t i = 0; i < rep->nph; i++) {
        struct hb_phase *p = &rep->ph[i];
        free(p->name), free(p->seconds), free(p->ops), free(p->live_bytes), free(p->rss_kb);
    }
    free(rep->ph);
    free(rep->served_by);
    free(rep->own_where);
    free(rep->own_share);
    free(rep->verify_detail);
    hb_strv_free(&rep->sizes);
    hb_strv_free(&rep->allocstats);
    hb_latency_free(rep);
    memset(rep, 0, sizeof *rep);
}
