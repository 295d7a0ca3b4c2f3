/* test_metric.c - unit tests of --metric parsing and extraction (runner/measure/metric.c).
 * Always holds: every expected value follows from the spec and the text given here.
 */
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "tcheck.h"

/* --metric parsing and extraction. */
static void test_metric(void)
{
    struct hb_metric m;
    char err[256];
    double v = 0;
    TCHECK("metric with group and direction", hb_metric_parse(&m, "rps=([0-9.]+) requests per second,higher", err, sizeof err) == 0);
    TCHECK("direction higher", m.higher == 1 && strcmp(m.name, "rps") == 0);
    TCHECK("first group extracted", hb_metric_extract(&m, "x\nSET: 1234.5 requests per second\nGET: 99 requests per second\n", &v) == 1 && v == 1234.5);
    TCHECK("no match -> not found", hb_metric_extract(&m, "nothing here", &v) == 0);
    hb_metric_free(&m);
    TCHECK("whole match without a group", hb_metric_parse(&m, "n=[0-9]+", err, sizeof err) == 0 &&
                                            hb_metric_extract(&m, "took 42 ms", &v) == 1 && v == 42 && !m.higher);
    hb_metric_free(&m);
    TCHECK("bad regex rejected", hb_metric_parse(&m, "x=([0-9]", err, sizeof err) != 0 && strstr(err, "regular"));
    TCHECK("bad name rejected", hb_metric_parse(&m, "a-b=1", err, sizeof err) != 0);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_metric();
    return tcheck_summary();
}
