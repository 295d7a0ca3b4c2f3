/* test_latency.c - unit tests of the latency records' parser (runner/measure/latency.c, reached
 * through hb_phase_parse as the runner reaches it).
 * Always holds: the expected quantiles follow from the bucket formula of docs/DATA.md applied
 * by hand to the records written here; every check can fail.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/phases.h"
#include "tcheck.h"

/* 500 samples of 20 ns, 400 of 30 ns, 100 in the bucket of 1000 ns (index 506: [1000, 1004)),
 * split over two latency_hist records; a free entry whose buckets count 4 of 5 samples. */
static const char records[] = "served_by\t/x/lib.so\n"
                              "latency_clock\tsampled\t32\trdtsc\t20.0\t2096.0\n"
                              "phase\tchurn\t0.1\t1000\t0\t100\n"
                              "latency\tchurn\tmalloc\t1000\t122000\t1002\n"
                              "latency_hist\tchurn\tmalloc\t20:500,30:400\n"
                              "latency_hist\tchurn\tmalloc\t506:100\n"
                              "latency\tchurn\tfree\t5\t100\t20\n"
                              "latency_hist\tchurn\tfree\t20:4\n"
                              "latency_hist\tnosuch\tmalloc\t20:4\n"
                              "verify\tok\tsum 7\n";

/* One entry kept (the damaged one dropped), its buckets joined, quantiles by hand, the clock. */
static void test_parse(void)
{
    struct hb_phase_report rep;
    hb_phase_parse(records, &rep);
    TCHECK("latency: the entry whose buckets miss a sample is dropped", rep.nlat == 1);
    const struct hb_latency *l = rep.nlat ? &rep.lat[0] : NULL;
    TCHECK("latency: phase, op, samples, max read", l && !strcmp(l->phase, "churn") && !strcmp(l->op, "malloc") &&
                                                        l->samples == 1000 && l->max_ns == 1002);
    TCHECK("latency: the latency_hist records are joined", l && !strcmp(l->buckets, "20:500,30:400,506:100"));
    TCHECK("latency: p50 = 20, p90 = 30 (exact buckets below 256 ns)", l && l->q[0] == 20 && l->q[1] == 30);
    TCHECK("latency: p99 = midpoint of [1000, 1004) = 1001.5", l && l->q[2] == 1001.5);
    TCHECK("latency: mean = sum / samples", l && fabs(l->mean_ns - 122.0) < 1e-9);
    TCHECK("latency: clock source and cost", rep.lat_clock && !strcmp(rep.lat_clock, "rdtsc") && rep.lat_clock_ns == 20.0);
    TCHECK("latency: the other records are still read", rep.nph == 1 && rep.served_by && !rep.verify_failed);
    hb_phase_report_free(&rep);
    hb_phase_parse("served_by\t/x/lib.so\nphase\tchurn\t0.1\t10\t0\t100\n", &rep);
    TCHECK("latency: none without latency records", rep.nlat == 0 && rep.lat_clock == NULL);
    hb_phase_report_free(&rep);
}

/* The same malloc samples from a clock of step 10 ns (latency_clock's 7th field): each spread
 * over one step, 500 over [15, 25), 400 over [25, 35), 100 over [996.5, 1006.5), so p50 = 25,
 * p90 = 35, and p99 (1005.5) is held at max (1002). A record without the field means step 0. */
static void test_step(void)
{
    struct hb_phase_report rep;
    hb_phase_parse("served_by\t/x/lib.so\n"
                   "latency_clock\tsampled\t64\trdtsc\t17.5\t2096.0\t10.000\n"
                   "phase\tchurn\t0.1\t1000\t0\t100\n"
                   "latency\tchurn\tmalloc\t1000\t122000\t1002\n"
                   "latency_hist\tchurn\tmalloc\t20:500,30:400,506:100\n",
                   &rep);
    const struct hb_latency *l = rep.nlat ? &rep.lat[0] : NULL;
    TCHECK("latency: the clock's step is read", rep.lat_clock_step_ns == 10.0);
    TCHECK("latency: with a 10 ns step p50 = 25 and p90 = 35 (samples spread over one step)",
           l && fabs(l->q[0] - 25) < 1e-9 && fabs(l->q[1] - 35) < 1e-9);
    TCHECK("latency: and p99 is held at max", l && l->q[2] == 1002);
    hb_phase_report_free(&rep);
    hb_phase_parse(records, &rep);
    TCHECK("latency: no step field: step 0 (the rank rule)", rep.lat_clock_step_ns == 0);
    hb_phase_report_free(&rep);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_parse();
    test_step();
    return tcheck_summary();
}
