/* csvrow.c - CSV row building and parsing (see csvrow.h).
 *
 * Always holds: hb_csv buffers stay NUL-terminated, so a row can be printed as a string.
 */
#include "write/csvrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends raw bytes to the row buffer. */
static void hb_csv_raw(struct hb_csv *row, const char *s, size_t n)
{
    if (row->len + n + 1 > row->cap) {
        row->cap = (row->len + n + 1) * 2 + 64;
        row->buf = hb_xrealloc(row->buf, row->cap);
    }
    memcpy(row->buf + row->len, s, n);
    row->len += n;
    row->buf[row->len] = '\0';
}

/* Starts a field: a comma unless it is the first of its line. */
static void hb_csv_sep(struct hb_csv *row)
{
    if (row->fields++)
        hb_csv_raw(row, ",", 1);
}

/* Text field with RFC 4180 quoting when needed. */
void hb_csv_str(struct hb_csv *row, const char *s)
{
    hb_csv_sep(row);
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        hb_csv_raw(row, s, strlen(s));
        return;
    }
    hb_csv_raw(row, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            hb_csv_raw(row, "\"", 1);
        hb_csv_raw(row, p, 1);
    }
    hb_csv_raw(row, "\"", 1);
}

/* Integer field. */
void hb_csv_long(struct hb_csv *row, long v)
{
    char tmp[32];
    hb_csv_sep(row);
    hb_csv_raw(row, tmp, (size_t)snprintf(tmp, sizeof tmp, "%ld", v));
}

/* Number field, 9 significant digits, C locale formatting. */
void hb_csv_num(struct hb_csv *row, double v)
{
    char tmp[64];
    hb_csv_sep(row);
    hb_csv_raw(row, tmp, (size_t)snprintf(tmp, sizeof tmp, "%.9g", v));
}

/* Empty field. */
void hb_csv_empty(struct hb_csv *row)
{
    hb_csv_sep(row);
}

/* Line end. */
void hb_csv_end(struct hb_csv *row)
{
    hb_csv_raw(row, "\n", 1);
    row->fields = 0;
}

/* Empties the row for reuse. */
void hb_csv_reset(struct hb_csv *row)
{
    row->len = 0;
    row->fields = 0;
    if (row->buf)
        row->buf[0] = '\0';
}

/* Releases the buffer. */
void hb_csv_free(struct hb_csv *row)
{
    free(row->buf);
    memset(row, 0, sizeof *row);
}

/* One record from text at *pos; fields appended to out. */
int hb_csv_parse(const char *text, size_t *pos, struct hb_strv *out)
{
    const char *p = text + *pos;
    if (!*p)
        return -1;
    struct hb_csv field = {0};
    for (;;) {
        hb_csv_reset(&field);
        hb_csv_raw(&field, "", 0);
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                hb_csv_raw(&field, p++, 1);
            }
            if (*p == '"')
                p++;
        }
        size_t n = strcspn(p, ",\n");
        hb_csv_raw(&field, p, n);
        n = strlen(field.buf);
        if (n && field.buf[n - 1] == '\r')
            field.buf[n - 1] = '\0';
        hb_strv_push(out, field.buf);
        p += strcspn(p, ",\n");
        if (*p != ',')
            break;
        p++;
    }
    if (*p == '\n')
        p++;
    *pos = (size_t)(p - text);
    hb_csv_free(&field);
    return 0;
}
