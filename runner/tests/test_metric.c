/* test_metric.c - unit tests of --metric parsing and extraction (runner/measure/metric.c).
 * Always holds: every expected value follows from the spec and the text given here.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/content.h"
#include "measure/metric.h"
#include "tcheck.h"

/* --metric parsing and extraction. */
static void test_metric(void)
{
    struct hb_metric m;
    char err[256];
    double v = 0;
    char got[64];
    TCHECK("metric with group and direction", hb_metric_parse(&m, "rps=([0-9.]+) requests per second,higher", err, sizeof err) == 0);
    TCHECK("direction higher", m.higher == 1 && strcmp(m.name, "rps") == 0);
    TCHECK("first group extracted", hb_metric_extract(&m, "x\nSET: 1234.5 requests per second\nGET: 99 requests per second\n", &v, got, sizeof got) == HB_METRIC_VALUE && v == 1234.5);
    TCHECK("no match -> not found", hb_metric_extract(&m, "nothing here", &v, got, sizeof got) == HB_METRIC_NO_MATCH);
    hb_metric_free(&m);
    TCHECK("whole match without a group", hb_metric_parse(&m, "n=[0-9]+", err, sizeof err) == 0 &&
                                            hb_metric_extract(&m, "took 42 ms", &v, got, sizeof got) == HB_METRIC_VALUE && v == 42 && !m.higher);
    hb_metric_free(&m);
    TCHECK("bad regex rejected", hb_metric_parse(&m, "x=([0-9]", err, sizeof err) != 0 && strstr(err, "regular"));
    TCHECK("bad name rejected", hb_metric_parse(&m, "a-b=1", err, sizeof err) != 0);
    TCHECK("Perl's \\d rejected with [0-9] as the fix",
           hb_metric_parse(&m, "x=(\\d+) ops", err, sizeof err) != 0 && strstr(err, "[0-9]"));
    TCHECK("an escaped backslash before d is accepted", hb_metric_parse(&m, "x=a\\\\d([0-9]+)", err, sizeof err) == 0 &&
                                                        hb_metric_extract(&m, "a\\d42", &v, got, sizeof got) == HB_METRIC_VALUE && v == 42);
    hb_metric_free(&m);
}

/* 1 when spec is refused with a reason that holds word, on one line. */
static int refused(const char *spec, const char *word)
{
    struct hb_metric m;
    char err[256] = "";
    int rc = hb_metric_parse(&m, spec, err, sizeof err);
    if (rc == 0)
        hb_metric_free(&m);
    return rc != 0 && strstr(err, word) && !strchr(err, '\n');
}

/* 1 when spec compiles. */
static int accepted(const char *spec)
{
    struct hb_metric m;
    char err[256];
    if (hb_metric_parse(&m, spec, err, sizeof err) != 0)
        return 0;
    hb_metric_free(&m);
    return 1;
}

/* Regexes whose time or size has no bound are refused; ordinary ones, brackets included, are not. */
static void test_metric_bounds(void)
{
    TCHECK("back-reference refused", refused("x=(a*)*\\1b", "back-references"));
    TCHECK("back-reference in a group refused", refused("x=((.*)\\2)c", "back-references"));
    TCHECK("nested intervals refused", refused("x=((a{1,100}){1,100}){1,100}", "atoms"));
    TCHECK("open interval counted", refused("x=(ab{2000,})", "atoms"));
    TCHECK("intervals in sequence add up", refused("x=a{150}b{150}", "atoms"));
    TCHECK("\\1 inside brackets is not a back-reference", accepted("x=[\\1]+"));
    TCHECK("{ inside brackets is not an interval", accepted("x=[{]9999}"));
    TCHECK("[:digit:] and ] first in brackets", accepted("x=[]a[:digit:]]{1,3}(x{2,5}){10}"));
    TCHECK("small intervals accepted", accepted("ip=([0-9]{1,3}\\.){3}[0-9]{1,3}"));
    TCHECK("escaped \\{ is a literal", accepted("x=a\\{9999}"));
    char deep[2 * HB_METRIC_DEPTH_MAX + 16] = "x=";
    for (int i = 0; i <= HB_METRIC_DEPTH_MAX; i++)
        strcat(deep, "(");
    TCHECK("groups nested too deep refused", refused(deep, "deeper"));
}

/* The log is searched line by line ('\r' ends a line too), in each line's first HB_METRIC_LINE_MAX bytes. */
static void test_metric_lines(void)
{
    struct hb_metric m;
    char err[256];
    double v = 0;
    char got[64];
    TCHECK("progress with \\r", hb_metric_parse(&m, "rps=^GET: ([0-9.]+) req", err, sizeof err) == 0 &&
                                    hb_metric_extract(&m, "GET: rps=1\rGET: 12.5 req\n", &v, got, sizeof got) == HB_METRIC_VALUE && v == 12.5);
    hb_metric_free(&m);
    char *text = malloc(3 * HB_METRIC_LINE_MAX);
    memset(text, 'a', 3 * HB_METRIC_LINE_MAX - 1);
    memcpy(text + HB_METRIC_LINE_MAX - 8, " 7 ms", 5);
    memcpy(text + 2 * HB_METRIC_LINE_MAX, " 9 ms", 5);
    text[3 * HB_METRIC_LINE_MAX - 1] = '\0';
    TCHECK("a figure in a line's first bytes", hb_metric_parse(&m, "t=([0-9]+) ms", err, sizeof err) == 0 &&
                                                hb_metric_extract(&m, text, &v, got, sizeof got) == HB_METRIC_VALUE && v == 7);
    text[HB_METRIC_LINE_MAX - 7] = 'x';
    TCHECK("a figure past them is not read", hb_metric_extract(&m, text, &v, got, sizeof got) == HB_METRIC_NO_MATCH);
    text[2 * HB_METRIC_LINE_MAX - 1] = '\n';
    TCHECK("the next line is", hb_metric_extract(&m, text, &v, got, sizeof got) == HB_METRIC_VALUE && v == 9);
    hb_metric_free(&m);
    free(text);
}

/* A match that is not a finite number is told apart from no match, and each reason quotes what
 * the user needs: the regex, the match, the output's last line. */
static void test_metric_failures(void)
{
    struct hb_metric m;
    char err[256], got[64], why[256];
    double v = 0;
    TCHECK("parse", hb_metric_parse(&m, "speed=speed (\\S+),higher", err, sizeof err) == 0);
    const char *bad[] = {"speed nan\n", "speed inf\n", "speed -inf\n", "speed 1e400\n", "speed NaN(1)\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        TCHECK("a non-finite figure is not a value", hb_metric_extract(&m, bad[i], &v, got, sizeof got) == HB_METRIC_NOT_FINITE);
    hb_metric_extract(&m, "speed 1e400", &v, got, sizeof got);
    hb_metric_reason(&m, HB_METRIC_NOT_FINITE, got, "speed 1e400", why, sizeof why);
    TCHECK("its reason quotes the match and the regex", strstr(why, "metric speed: '1e400' is not a finite number") &&
                                                            strstr(why, "'speed (\\S+)'"));
    TCHECK("a word is not a number", hb_metric_extract(&m, "speed fast\n", &v, got, sizeof got) == HB_METRIC_NOT_NUMBER &&
                                         strcmp(got, "fast") == 0);
    TCHECK("a figure beyond the metric range is not a value", hb_metric_extract(&m, "speed 1e101\n", &v, got, sizeof got) == HB_METRIC_OUT_OF_RANGE);
    hb_metric_reason(&m, HB_METRIC_OUT_OF_RANGE, got, "", why, sizeof why);
    TCHECK("its reason names the range", strstr(why, "'1e101' is beyond +-1e+100") != NULL);
    TCHECK("the edge of the range is a value", hb_metric_extract(&m, "speed -1e100\n", &v, got, sizeof got) == HB_METRIC_VALUE);
    const struct hb_content_range *r = hb_content_range_of("metric_speed");
    TCHECK("check's metric range is the runner's", r->low == -HB_METRIC_ABS_MAX && r->high == HB_METRIC_ABS_MAX);
    TCHECK("a tiny figure is a value", hb_metric_extract(&m, "speed 1e-400\n", &v, got, sizeof got) == HB_METRIC_VALUE);
    TCHECK("no output: no match", hb_metric_extract(&m, NULL, &v, got, sizeof got) == HB_METRIC_NO_MATCH);
    hb_metric_reason(&m, HB_METRIC_NO_MATCH, "", "Throughput =  1454498", why, sizeof why);
    TCHECK("no match: the reason quotes the regex and the last line",
           strcmp(why, "metric speed: 'speed (\\S+)' matched no line of the output; its last line: 'Throughput =  1454498'") == 0);
    hb_metric_reason(&m, HB_METRIC_NO_MATCH, "", "", why, sizeof why);
    TCHECK("no output: the reason says so", strstr(why, "printed nothing") != NULL);
    hb_metric_free(&m);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_metric();
    test_metric_bounds();
    test_metric_lines();
    test_metric_failures();
    return tcheck_summary();
}
