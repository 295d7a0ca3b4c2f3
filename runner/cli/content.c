/* content.c - the values of a results directory: meta.json and every CSV field (see content.h).
 *
 * Always holds: the rules are results.py's (TEXT_COLUMNS, RANGES, the number syntax,
 * META_TYPES, the buckets) and nothing else, so check and the Python readers agree; each file
 * gets at most one defect line (its first), which names the file and line.
 */
#include "cli/content.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/options.h"
#include "write/columns.h"
#include "write/csvrow.h"
#include "wl_hist.h"

const char *const hb_content_text_columns[] = {
    "schema", "run_id", "host", "workload", "allocator", "params", "env", "status", "reason", "served_by", "phase",
    "thp", "own_allocator", "api", "stat", "layer", "op", "buckets", "records", NULL};
/* Each number's physical range, both ends included (docs/DATA.md "Physical ranges"): times end at
 * 2^64 ns, sizes at 2^64 bytes, counts at 2^64; a column not named is a count. results.py's
 * RANGES is the same table (runner/tests/judge.sh compares them). */
const struct hb_content_range hb_content_ranges[] = {
    {"exit_code", 0, 255},
    {"signal", 1, 64},
    {"value", -9223372036854775808.0, 18446744073709551616.0},
    {"wall_s", 0, 18446744073.709552},
    {"user_s", 0, 18446744073.709552},
    {"sys_s", 0, 18446744073.709552},
    {"seconds", 0, 18446744073.709552},
    {"t", 0, 18446744073.709552},
    {"task_clock_ms", 0, 18446744073709.552},
    {"maxrss_kb", 0, 18014398509481984.0},
    {"rss_kb", 0, 18014398509481984.0},
    {"anon_huge_kb", 0, 18014398509481984.0},
    {"metric_*", -1e100, 1e100},
    {"*", 0, 18446744073709551616.0},
    {NULL, 0, 0}};

/* The types of the meta.json fields the Python side reads (null is accepted for every one). */
static const struct {
    const char *key;
    int type; /* cJSON_String, cJSON_Number (a whole number), cJSON_True (a boolean), cJSON_Array, cJSON_Object */
} hb_meta_types[] = {
    {"host", cJSON_String},    {"cpu_model", cJSON_String}, {"run_id", cJSON_String},      {"shard", cJSON_String},
    {"shard_cells", cJSON_Number}, {"reps", cJSON_Number},  {"cells", cJSON_Number},       {"complete", cJSON_True},
    {"interrupted", cJSON_True}, {"quick", cJSON_True},     {"start", cJSON_String},       {"end", cJSON_String},
    {"command_line", cJSON_String}, {"workloads", cJSON_Array}, {"envs", cJSON_Array},    {"allocators", cJSON_Object},
    {"counters", cJSON_Object}, {"metrics", cJSON_Object},  {"argv", cJSON_Array},
    {"machine", cJSON_Object}, {"instrumented", cJSON_String}, {"own_allocator", cJSON_Object},
    {"tested_commit", cJSON_String},
};

static int hb_in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* Is s a number field (content.h)? */
int hb_content_number(const char *s)
{
    const char *p = s + (*s == '-');
    size_t whole = strspn(p, "0123456789"), frac = 0;
    p += whole;
    if (*p == '.')
        frac = strspn(++p, "0123456789"), p += frac;
    if (!whole && !frac)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return 0;
        p += exp;
    }
    return !*p && isfinite(strtod(s, NULL));
}

/* The range of numeric column name (content.h). */
const struct hb_content_range *hb_content_range_of(const char *name)
{
    const struct hb_content_range *r = hb_content_ranges;
    for (; strcmp(r->column, "*") != 0; r++)
        if (strcmp(r->column, name) == 0 || (strcmp(r->column, "metric_*") == 0 && strncmp(name, "metric_", 7) == 0))
            return r;
    return r;
}

/* A whole number of at most 20 digits at *s, ended by stop or '\0'; -1 when not one (or above 2^64-1). */
static int hb_content_whole(const char **s, char stop, unsigned long long *out)
{
    size_t n = strspn(*s, "0123456789");
    if (!n || n > 20 || ((*s)[n] != stop && (*s)[n] != '\0'))
        return -1;
    errno = 0;
    *out = strtoull(*s, NULL, 10);
    *s += n;
    return errno ? -1 : 0;
}

/* Is s a buckets field adding up to samples (content.h)? */
int hb_content_buckets(const char *s, unsigned long long samples)
{
    unsigned long long sum = 0;
    while (*s) {
        unsigned long long i, c;
        if (hb_content_whole(&s, ':', &i) != 0 || *s != ':' || i >= WL_HIST_BUCKETS)
            return 0;
        s++;
        if (hb_content_whole(&s, ',', &c) != 0 || c > ~0ULL - sum || (*s == ',' && !s[1]))
            return 0;
        sum += c;
        s += *s == ',';
    }
    return sum == samples;
}

/* The first value of a JSON tree that is a number but not finite, or NULL. */
static const cJSON *hb_content_nonfinite(const cJSON *v)
{
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return v;
    for (const cJSON *c = v->child; c; c = c->next) {
        const cJSON *bad = hb_content_nonfinite(c);
        if (bad)
            return bad;
    }
    return NULL;
}

/* Whether v is of the meta.json type t (null always is). */
static int hb_content_meta_type(const cJSON *v, int t)
{
    if (cJSON_IsNull(v))
        return 1;
    switch (t) {
    case cJSON_String: return cJSON_IsString(v);
    case cJSON_Number: return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble);
    case cJSON_True: return cJSON_IsBool(v);
    case cJSON_Array: return cJSON_IsArray(v);
    default: return cJSON_IsObject(v);
    }
}

/* The number of data rows of DIR/runs.csv (lines after the header), 0 when it cannot be read. */
static size_t hb_content_run_rows(const char *dir)
{
    char *path = hb_xasprintf("%s/runs.csv", dir);
    size_t len = 0, lines = 0;
    char *text = hb_read_file(path, &len);
    free(path);
    for (size_t i = 0; text && i < len; i++)
        lines += text[i] == '\n';
    free(text);
    return lines > 1 ? lines - 1 : 0;
}

/* Whether DIR/name exists. */
static int hb_content_has(const char *dir, const char *name)
{
    char *path = hb_xasprintf("%s/%s", dir, name);
    int has = access(path, F_OK) == 0;
    free(path);
    return has;
}

/* The defect of meta.json, or NULL (a new string). */
static char *hb_content_meta_defect(const char *dir, const char *text, size_t len)
{
    size_t bad;
    if (!text) {
        size_t rows = hb_content_run_rows(dir);
        if (!hb_content_has(dir, "runs.csv") && !hb_content_has(dir, ".lock"))
            return hb_xasprintf("not a heapbench results directory: it holds no meta.json and no runs.csv; give "
                                "the directory a run wrote (results/<run-id>)");
        if (!rows)
            return hb_xasprintf("meta.json: missing and runs.csv has no rows: the run was cut while creating the "
                                "directory (a full disk?), nothing was measured; run the same command again with "
                                "-o %s (it reuses a directory that holds no measured run)", dir);
        return hb_xasprintf("meta.json: missing although runs.csv has %zu rows, so --resume cannot know the run's "
                            "options; put its meta.json back, or measure again into a new directory", rows);
    }
    if (!hb_utf8_valid(text, len, &bad))
        return hb_xasprintf("meta.json: byte %zu is not UTF-8 text (or a NUL byte); not written by heapbench: "
                            "measure again into a new directory", bad);
    cJSON *root = cJSON_ParseWithLength(text, len);
    char *defect = NULL;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema"), *nonfinite;
    if (!root)
        defect = hb_xasprintf("meta.json: not JSON (cut short or altered); measure again into a new directory");
    else if (!cJSON_IsObject(root))
        defect = hb_xasprintf("meta.json: a JSON %s, not an object; not written by heapbench",
                              cJSON_IsArray(root) ? "list" : "value");
    else if ((nonfinite = hb_content_nonfinite(root)) != NULL)
        defect = hb_xasprintf("meta.json: '%s' is not a finite number; not written by heapbench",
                              nonfinite->string ? nonfinite->string : "a value");
    else if (!cJSON_IsNumber(schema) || schema->valuedouble != 1)
        defect = hb_xasprintf("meta.json: schema is not 1, the schema this heapbench reads; use the heapbench "
                              "that wrote it, or measure again");
    for (size_t i = 0; !defect && i < sizeof hb_meta_types / sizeof *hb_meta_types; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, hb_meta_types[i].key);
        if (v && !hb_content_meta_type(v, hb_meta_types[i].type))
            defect = hb_xasprintf("meta.json: '%s' has the wrong type; not written by heapbench", hb_meta_types[i].key);
    }
    const cJSON *tested = defect ? NULL : cJSON_GetObjectItemCaseSensitive(root, "tested_commit");
    if (cJSON_IsString(tested) && !(hb_commit_hex(tested->valuestring) &&
                                    strspn(tested->valuestring, "0123456789abcdef") == strlen(tested->valuestring)))
        defect = hb_xasprintf("meta.json: 'tested_commit' is not a lower-case commit hash of 7 to 40 hex digits; not "
                              "written by heapbench");
    cJSON_Delete(root);
    return defect;
}

/* The defect of one whole row's field (column name, its text), or NULL. */
static const char *hb_content_field(const char *name, const char *value, const struct hb_strv *header,
                                    const struct hb_strv *fields, char *why, size_t whylen)
{
    if (strcmp(name, "schema") == 0)
        return strcmp(value, "1") == 0 ? NULL : "schema is not 1 (another heapbench version?)";
    if (strcmp(name, "buckets") == 0) {
        int s = hb_strv_find(header, "samples");
        unsigned long long samples = 0;
        const char *t = s >= 0 ? fields->v[s] : "";
        if (s < 0 || hb_content_whole(&t, '\0', &samples) != 0 || !hb_content_buckets(value, samples))
            return "buckets is not 'index:count' pairs whose counts add up to samples";
        return NULL;
    }
    if (hb_in_list(hb_content_text_columns, name) || !*value)
        return NULL;
    if (!hb_content_number(value))
        return "is not a finite number";
    const struct hb_content_range *r = hb_content_range_of(name);
    double v = strtod(value, NULL);
    if (v < r->low || v > r->high) {
        snprintf(why, whylen, "is outside the column's physical range [%.9g, %.9g] (docs/DATA.md)", r->low, r->high);
        return why;
    }
    return NULL;
}

/* At most 40 bytes of a field for a one-line message: control characters become '?', the cut falls
 * between characters. New string. */
static char *hb_content_excerpt(const char *s)
{
    size_t len = strlen(s);
    if (len > 40)
        for (len = 40; len && ((unsigned char)s[len] & 0xc0) == 0x80; len--)
            ;
    char *out = hb_xasprintf("%.*s", (int)len, s);
    for (char *p = out; *p; p++)
        if (hb_is_ctrl((unsigned char)*p))
            *p = '?';
    return out;
}

/* The first defect of one CSV's text, or NULL (a new string). */
static char *hb_content_csv_defect(const char *name, const char *text, size_t len)
{
    size_t bad, pos = 0, line = 1;
    if (!hb_utf8_valid(text, len, &bad)) {
        for (size_t i = 0; i < bad; i++)
            line += text[i] == '\n';
        return hb_xasprintf("%s:%zu: bytes that are not UTF-8 text (or a NUL byte); the file was altered: "
                            "measure again into a new directory", name, line);
    }
    struct hb_strv header = {0}, fields = {0};
    char *defect = NULL;
    if (hb_csv_parse(text, &pos, &header) != 0 || strcmp(header.v[0], "schema") != 0)
        defect = hb_xasprintf("%s: no 'schema' header column; not a heapbench results file", name);
    for (size_t i = 0; !defect && i < header.n; i++)
        for (size_t j = i + 1; !defect && j < header.n; j++)
            if (strcmp(header.v[i], header.v[j]) == 0)
                defect = hb_xasprintf("%s:1: column %s appears twice in the header (columns %zu and %zu); the file was "
                                      "altered or not written by heapbench: measure again into a new directory",
                                      name, header.v[i], i + 1, j + 1);
    while (!defect && hb_csv_parse(text, &pos, &fields) == 0) {
        line++;
        for (size_t i = 0; fields.n == header.n && text[pos - 1] == '\n' && i < fields.n && !defect; i++) {
            char range[160];
            const char *why = hb_content_field(header.v[i], fields.v[i], &header, &fields, range, sizeof range);
            if (why) {
                char *shown = hb_content_excerpt(fields.v[i]);
                defect = hb_xasprintf("%s:%zu: column %s is '%s': %s; the file was altered or not written by "
                                      "heapbench: measure again into a new directory", name, line, header.v[i],
                                      shown, why);
                free(shown);
            }
        }
        for (size_t i = 0; i < fields.n; i++) /* a field holding newlines spans several lines */
            for (const char *p = fields.v[i]; (p = strchr(p, '\n')) != NULL; p++)
                line++;
        hb_strv_free(&fields);
    }
    hb_strv_free(&header), hb_strv_free(&fields);
    return defect;
}

/* The scan (content.h). */
int hb_content_scan(const char *dir, struct hb_strv *problems)
{
    int found = 0;
    size_t len = 0;
    char *path = hb_xasprintf("%s/meta.json", dir);
    char *text = hb_read_file(path, &len);
    char *defect = hb_content_meta_defect(dir, text, len);
    free(path), free(text);
    if (defect)
        hb_strv_push(problems, defect), found++;
    free(defect);
    for (int f = 0; f < HB_NFILES; f++) {
        path = hb_xasprintf("%s/%s", dir, hb_columns_file(f));
        text = hb_read_file(path, &len);
        defect = text ? hb_content_csv_defect(hb_columns_file(f), text, len) : NULL;
        if (defect)
            hb_strv_push(problems, defect), found++;
        free(path), free(text), free(defect);
    }
    return found;
}
