/* metric.h - figures read from a run's output: --metric NAME=REGEX[,higher] (heapbench exec).
 *
 * Always holds: a metric's value is the first capture group of the first match (or the whole
 * match when the regex has no group) read as a number; no match or no number = empty column.
 * The log is searched line by line ('\n' or '\r' ends a line), in the first HB_METRIC_LINE_MAX
 * bytes of each; a regex with a back-reference, with more than HB_METRIC_ATOMS_MAX atoms once
 * its {m,n} are expanded or with groups nested deeper than HB_METRIC_DEPTH_MAX is refused (each
 * makes glibc's regex time, memory or recursion grow without bound).
 */
#ifndef HEAPBENCH_METRIC_H
#define HEAPBENCH_METRIC_H

#include <regex.h>

#define HB_METRIC_LINE_MAX 1024
#define HB_METRIC_ATOMS_MAX 200
#define HB_METRIC_DEPTH_MAX 64

struct hb_metric {
    char *name;
    int higher;     /* 1: higher is better; 0: lower is better */
    int valgrind;   /* 0: read from the log by re; HB_METRIC_VG_*: a count of the run's valgrind output file */
    regex_t re;     /* compiled only when valgrind == 0 */
};

enum { HB_METRIC_VG_TOTAL = 1, HB_METRIC_VG_ALLOC }; /* the program's instructions, the allocator's (cgalloc.h) */

/* A metric read from the run's valgrind output file (no regex): which is HB_METRIC_VG_*. */
void hb_metric_valgrind(struct hb_metric *m, const char *name, int which);

/* Parses and compiles NAME=REGEX[,higher|,lower] (POSIX extended). Returns 0, or -1 with err. */
int hb_metric_parse(struct hb_metric *m, const char *spec, char *err, size_t errlen);

/* Searches text line by line; returns 1 with *value set when a number was found, else 0. */
int hb_metric_extract(const struct hb_metric *m, const char *text, double *value);

void hb_metric_free(struct hb_metric *m);

#endif
