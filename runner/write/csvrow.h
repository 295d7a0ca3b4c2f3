/* csvrow.h - builds and parses one CSV line (RFC 4180 quoting) for the results files.
 *
 * Always holds: a built row is one line ending in '\n' whose fields, parsed back with
 * hb_csv_parse(), are exactly the strings that were added (commas, quotes and newlines
 * survive); a number field never has a thousands separator or locale decimal comma;
 * a missing value is an empty field, never 0.
 */
#ifndef HEAPBENCH_CSVROW_H
#define HEAPBENCH_CSVROW_H

#include <stddef.h>

#include "base/util.h"

/* A row being built. Zero-initialised = empty. */
struct hb_csv {
    char *buf;
    size_t len, cap;
    int fields;  /* fields added so far on the current line */
};

/* Appends a text field, quoted when it holds a comma, quote, CR or LF. */
void hb_csv_str(struct hb_csv *row, const char *s);
/* Appends an integer field. */
void hb_csv_long(struct hb_csv *row, long v);
/* Appends a number with up to 9 significant digits ("%.9g"). */
void hb_csv_num(struct hb_csv *row, double v);
/* Appends an empty field. */
void hb_csv_empty(struct hb_csv *row);
/* Ends the line ('\n'); the next field starts a new line. */
void hb_csv_end(struct hb_csv *row);
/* Forgets the content (keeps the buffer). */
void hb_csv_reset(struct hb_csv *row);
void hb_csv_free(struct hb_csv *row);

/* Parses one record starting at *pos in text (quoted fields may span lines) into fields
 * (appended). Advances *pos past the record's newline. Returns 0, or -1 at end of text. */
int hb_csv_parse(const char *text, size_t *pos, struct hb_strv *fields);

#endif
