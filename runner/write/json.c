/* json.c - JSON string writing for meta.json, and reading meta.json back with cJSON (see json.h).
 *
 * Always holds: hb_json_str() and the cJSON reader are inverses for every string.
 */
#include "write/json.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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

/* The top-level value of key in text, parsed by cJSON; *root gets the tree to delete. */
static const cJSON *hb_json_top(const char *text, const char *key, cJSON **root)
{
    *root = text ? cJSON_Parse(text) : NULL;
    return cJSON_IsObject(*root) ? cJSON_GetObjectItemCaseSensitive(*root, key) : NULL;
}

/* The string value of a top-level key (json.h). */
char *hb_json_get_str(const char *text, const char *key)
{
    cJSON *root;
    const cJSON *v = hb_json_top(text, key, &root);
    char *s = cJSON_IsString(v) ? hb_xstrdup(v->valuestring) : NULL;
    cJSON_Delete(root);
    return s;
}

/* The strings of a top-level array (json.h). */
int hb_json_get_strv(const char *text, const char *key, struct hb_strv *out)
{
    cJSON *root;
    const cJSON *v = hb_json_top(text, key, &root);
    const cJSON *item;
    int rc = cJSON_IsArray(v) ? 0 : -1;
    cJSON_ArrayForEach(item, v)
        if (cJSON_IsString(item))
            hb_strv_push(out, item->valuestring);
    cJSON_Delete(root);
    return rc;
}

/* A string two objects below a top-level object (json.h). */
int hb_json_get_str_in(const char *text, const char *object, const char *key, const char *field, char **out)
{
    cJSON *root;
    const cJSON *v = hb_json_top(text, object, &root);
    int rc = cJSON_IsObject(v) ? 0 : -1;
    const cJSON *entry = rc == 0 ? cJSON_GetObjectItemCaseSensitive(v, key) : NULL;
    const cJSON *s = cJSON_IsObject(entry) ? cJSON_GetObjectItemCaseSensitive(entry, field) : NULL;
    *out = cJSON_IsString(s) ? hb_xstrdup(s->valuestring) : NULL;
    cJSON_Delete(root);
    return rc;
}

/* The boolean value of a top-level key (json.h). */
int hb_json_get_bool(const char *text, const char *key)
{
    cJSON *root;
    const cJSON *v = hb_json_top(text, key, &root);
    int rc = cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
    cJSON_Delete(root);
    return rc;
}
