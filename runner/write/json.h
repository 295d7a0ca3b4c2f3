/* json.h - the little JSON the runner needs: writing strings, reading back top-level values of
 * meta.json (for --resume) through cJSON (libcjson).
 *
 * Always holds: hb_json_str() output is valid JSON for any byte string (control characters
 * escaped as \u00XX); the readers accept any JSON document (a malformed one reads as absent).
 */
#ifndef HEAPBENCH_JSON_H
#define HEAPBENCH_JSON_H

#include <stdio.h>

#include "base/util.h"

/* Writes s as a quoted JSON string (NULL as null). */
void hb_json_str(FILE *out, const char *s);

/* The string value of "key" at the top level of text, new string; NULL when absent. */
char *hb_json_get_str(const char *text, const char *key);

/* Appends the strings of the array value of "key" to out; -1 when absent. */
int hb_json_get_strv(const char *text, const char *key, struct hb_strv *out);

/* The string text[object][key][field] into *out (new string; NULL when the key or field is absent
 * or not a string); returns -1 when text has no top-level object "object", else 0. */
int hb_json_get_str_in(const char *text, const char *object, const char *key, const char *field, char **out);

/* The boolean value of "key" at the top level of text: 1 true, 0 false, -1 absent or not a boolean. */
int hb_json_get_bool(const char *text, const char *key);

#endif
