/* describe.h - a workload binary's `--describe`: its parameters, their defaults and what each
 * accepts (docs/DATA.md, "Workload command line"), read once and asked by `list` and validate.c.
 *
 * Always holds: every parameter has a name, a default and a description (empty when the line
 * had fewer fields); accepts is "" when the binary printed no fourth field (an older or foreign
 * binary), and then every value is taken as accepted: the workload itself still refuses it.
 */
#ifndef HEAPBENCH_DESCRIBE_H
#define HEAPBENCH_DESCRIBE_H

#include <stddef.h>

struct hb_param_info {
    char *name, *def, *desc;
    char *accepts; /* "MIN..MAX" (an integer parameter), "a|b|c" (a word one) or "" */
};

struct hb_describe {
    struct hb_param_info *p;
    size_t n;
};

/* Parses the text of `BIN --describe` (one `name<TAB>default<TAB>description<TAB>accepts` line
 * per parameter; blank lines are skipped) into d. */
void hb_describe_parse(struct hb_describe *d, const char *text);

/* Runs `bin --describe` and parses what it prints; d is empty when it printed nothing. */
void hb_describe_load(struct hb_describe *d, const char *bin);

/* The parameter called name, or NULL. */
const struct hb_param_info *hb_describe_find(const struct hb_describe *d, const char *name);

/* 1 when value is what p accepts: an integer within MIN..MAX, or one of the choices (or p
 * says nothing of what it accepts); 0 otherwise. */
int hb_describe_accepts(const struct hb_param_info *p, const char *value);

/* The integer bounds of p's MIN..MAX into *min and *max (clamped to the range of long long);
 * returns -1 when p is not an integer parameter with a range. */
int hb_describe_range(const struct hb_param_info *p, long long *min, long long *max);

void hb_describe_free(struct hb_describe *d);

#endif
