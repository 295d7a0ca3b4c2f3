/* test_describe.c - unit tests of a workload's --describe read back (plan/describe.c): the four
 * fields, what an integer range and a word list accept at and just beyond their edges, and a
 * line of an older binary without the accepts field.
 * Always holds: the texts are written here, no workload is run.
 */
#include <limits.h>
#include <string.h>

#include "plan/describe.h"
#include "tcheck.h"

static const char text[] = "threads\t1\tthreads sharing the work\t1..1024\n"
                           "mode\tloop\tloop or batch (loop|batch)\tloop|batch\n"
                           "delta\t0\ta signed step\t-5..5\n"
                           "seed\t1\tseed of the random generator\t0..18446744073709551615\n"
                           "\n"
                           "old\t3\ta line of an older binary\n";

int main(void)
{
    struct hb_describe d;
    hb_describe_parse(&d, text);
    TCHECK("five parameters (a blank line is skipped)", d.n == 5);
    const struct hb_param_info *t = hb_describe_find(&d, "threads"), *m = hb_describe_find(&d, "mode");
    const struct hb_param_info *s = hb_describe_find(&d, "seed"), *o = hb_describe_find(&d, "old");
    const struct hb_param_info *n = hb_describe_find(&d, "delta");
    TCHECK("the fields of a line", t && strcmp(t->def, "1") == 0 && strcmp(t->accepts, "1..1024") == 0 &&
                                       strcmp(t->desc, "threads sharing the work") == 0);
    TCHECK("an unknown name is not found", !hb_describe_find(&d, "nosuch"));
    TCHECK("an integer range takes its edges", hb_describe_accepts(t, "1") && hb_describe_accepts(t, "1024"));
    TCHECK("... with a '+' as the workloads' strtoll does", hb_describe_accepts(t, "+8") && !hb_describe_accepts(t, "+0") &&
                                                               !hb_describe_accepts(t, "+-1") && !hb_describe_accepts(t, "+"));
    TCHECK("... and nothing beyond them", !hb_describe_accepts(t, "0") && !hb_describe_accepts(t, "1025") &&
                                              !hb_describe_accepts(t, "100000") && !hb_describe_accepts(t, "-1"));
    TCHECK("... nor a non-integer", !hb_describe_accepts(t, "2x") && !hb_describe_accepts(t, "") &&
                                        !hb_describe_accepts(t, "1.5") && !hb_describe_accepts(t, "-"));
    TCHECK("a negative range is compared by sign", hb_describe_accepts(n, "-5") && hb_describe_accepts(n, "-0") &&
                                                       !hb_describe_accepts(n, "-6") && !hb_describe_accepts(n, "6"));
    TCHECK("the whole of 0..2^64-1", hb_describe_accepts(s, "18446744073709551615") &&
                                         !hb_describe_accepts(s, "18446744073709551616") &&
                                         !hb_describe_accepts(s, "-1"));
    TCHECK("a word list takes its words only", hb_describe_accepts(m, "batch") && !hb_describe_accepts(m, "bat") &&
                                                   !hb_describe_accepts(m, "loop|batch"));
    TCHECK("a line without accepts takes anything", o && hb_describe_accepts(o, "anything"));
    long long lo, hi;
    TCHECK("the range of an integer parameter", hb_describe_range(t, &lo, &hi) == 0 && lo == 1 && hi == 1024);
    TCHECK("a range beyond long long is clamped", hb_describe_range(s, &lo, &hi) == 0 && lo == 0 && hi == LLONG_MAX);
    TCHECK("a word parameter has no range", hb_describe_range(m, &lo, &hi) == -1);
    hb_describe_free(&d);
    hb_describe_parse(&d, "");
    TCHECK("empty text: no parameters", d.n == 0);
    hb_describe_free(&d);
    return tcheck_summary();
}
