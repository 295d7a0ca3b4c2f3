/* metric.h - figures read from a run's output: --metric NAME=REGEX[,higher] (heapbench exec).
 *
 * Always holds: a metric's value is the first capture group of the first match (or the whole
 * match when the regex has no group) read as a finite number within +-HB_METRIC_ABS_MAX; no match,
 * no number or a number that is not finite (nan, inf, 1e400) or beyond that range fails the run,
 * with the reason (the column stays empty).
 * The log is searched line by line ('\n' or '\r' ends a line), in the first HB_METRIC_LINE_MAX
 * bytes of each; a regex with a back-reference, with more than HB_METRIC_ATOMS_MAX atoms once
 * its {m,n} are expanded or with groups nested deeper than HB_METRIC_DEPTH_MAX is refused (each
 * makes glibc's regex time, memory or recursion grow without bound).
 */
#ifndef HEAPBENCH_METRIC_H
#define HEAPBENCH_METRIC_H

#include <regex.h>

#define HB_METRIC_LINE_MAX 1024
/* The largest |value| of a metric: metric_*'s physical range in docs/DATA.md (check's table,
 * runner/cli/content.c, holds the same; test_metric compares them). */
#define HB_METRIC_ABS_MAX 1e100
#define HB_METRIC_ATOMS_MAX 200
#define HB_METRIC_DEPTH_MAX 64

struct hb_metric {
    char *name;
    char *regex;    /* as given, without its ,higher / ,lower: quoted in a failed run's reason */
    int higher;     /* 1: higher is better; 0: lower is better */
    int valgrind;   /* 0: read from the log by re; HB_METRIC_VG_*: a count of the run's valgrind output file */
    int every_cell; /* 1: --metric, read in every cell; 0: a program's own (metric =), read in its cells only */
    regex_t re;     /* compiled only when valgrind == 0 */
};

enum { HB_METRIC_VG_TOTAL = 1, HB_METRIC_VG_ALLOC }; /* the program's instructions, the allocator's (cgalloc.h) */

/* A metric read from the run's valgrind output file (no regex): which is HB_METRIC_VG_*. */
void hb_metric_valgrind(struct hb_metric *m, const char *name, int which);

/* Parses and compiles NAME=REGEX[,higher|,lower] (POSIX extended). Returns 0, or -1 with err. */
int hb_metric_parse(struct hb_metric *m, const char *spec, char *err, size_t errlen);

/* What a search of a run's output found. */
enum hb_metric_found {
    HB_METRIC_VALUE,
    HB_METRIC_NO_MATCH,
    HB_METRIC_NOT_NUMBER,
    HB_METRIC_NOT_FINITE,
    HB_METRIC_OUT_OF_RANGE
};

/* Searches text (NULL: none) line by line. HB_METRIC_VALUE with *value set when the first match
 * reads as a finite number; otherwise what went wrong, with the match's text (cut, control
 * characters as '?') in got when there was one. */
enum hb_metric_found hb_metric_extract(const struct hb_metric *m, const char *text, double *value, char *got,
                                       size_t gotlen);

/* The failed run's reason for what hb_metric_extract found (not HB_METRIC_VALUE): names the
 * metric and quotes its regex and the match, or the output's last line (last_line, "" when the
 * program printed nothing). */
void hb_metric_reason(const struct hb_metric *m, enum hb_metric_found found, const char *got, const char *last_line,
                      char *out, size_t len);

void hb_metric_free(struct hb_metric *m);

#endif
