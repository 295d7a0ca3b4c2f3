/* json.c - JSON string writing and reading for meta.json (see json.h).
 *
 * Always holds: hb_json_str() and the string reader are inverses for every string.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* Quoted, escaped string. */
void hb_json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* Parses the JSON string starting at the quote *pp; advances past it. NULL when malformed. */
static char *hb_json_read_string(const char **pp)
{
    const char *p = *pp;
    if (*p != '"')
        return NULL;
    size_t cap = strlen(p) + 1, len = 0;
    char *out = hb_xmalloc(cap);
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            if (*p == 'u') {
                unsigned code = 0;
                sscanf(p + 1, "%4x", &code);
                out[len++] = (char)code;
                p += 4;
                continue;
            }
            out[len++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else {
            out[len++] = *p;
        }
    }
    out[len] = '\0';
    *pp = *p ? p + 1 : p;
    return out;
}

/* Start of the value of "key": ..., or NULL. */
static const char *hb_json_value(const char *text, const char *key)
{
    char *needle = hb_xasprintf("\"%s\":", key);
    const char *p = strstr(text, needle);
    if (p)
        p += strlen(needle);
    free(needle);
    while (p && (*p == ' ' || *p == '\n'))
        p++;
    return p;
}

/* String value of a top-level key. */
char *hb_json_get_str(const char *text, const char *key)
{
    const char *p = hb_json_value(text, key);
    return p ? hb_json_read_string(&p) : NULL;
}

/* Array-of-strings value of a top-level key. */
int hb_json_get_strv(const char *text, const char *key, struct hb_strv *out)
{
    const char *p = hb_json_value(text, key);
    if (!p || *p != '[')
        return -1;
    for (p++;;) {
        while (*p == ' ' || *p == ',' || *p == '\n')
            p++;
        char *s = hb_json_read_string(&p);
        if (!s)
            break;
        hb_strv_push(out, s);
        free(s);
    }
    return 0;
}
