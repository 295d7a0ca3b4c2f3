/* test_phases.c - unit tests of the phase-protocol parser and the served_by/verify judge
 * (runner/measure/phases.c), and of allocstat records from the floor's writer (contract/wl_allocstat.c)
 * read back by that parser.
 * Always holds: the expected verdicts follow from the records and allocators built here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/ownscan.h"
#include "measure/phases.h"
#include "plan/registry.h"
#include "base/sysinfo.h"
#include "tcheck.h"
#include "wl_allocstat.h"

/* A result that exited 0. */
static struct hb_result exited_ok(void)
{
    struct hb_result r;
    memset(&r, 0, sizeof r);
    r.status = HB_OK;
    return r;
}

/* Parsing every record kind. */
static void test_parse(void)
{
    struct hb_phase_report rep;
    hb_phase_parse("served_by\t/x/lib.so\n"
                    "phase\tbuild\t0.5\t100\t4096\t2000\n"
                    "garbage line\n"
                    "size\t1\t24\n"
                    "phase\tfree\t0.1\t100\t0\t1500\n"
                    "verify\tok\tsum 7\n",
                    &rep);
    TCHECK("served_by read", rep.served_by && strcmp(rep.served_by, "/x/lib.so") == 0);
    TCHECK("two phases in order", rep.nph == 2 && strcmp(rep.ph[1].name, "free") == 0 &&
                                      strcmp(rep.ph[0].live_bytes, "4096") == 0);
    TCHECK("size record kept as request, usable", rep.sizes.n == 2 && strcmp(rep.sizes.v[1], "24") == 0);
    TCHECK("verify ok is not a failure", !rep.verify_failed);
    hb_phase_report_free(&rep);
}

/* The judge: served_by missing, wrong, right; verify fail; non-ok kept. */
static void test_judge(void)
{
    char *libc = hb_sys_libc_path();
    struct hb_alloc glibc = {.name = "glibc", .system = 1, .found = 1};
    struct hb_alloc sh = {.name = "sh", .found = 1, .lib = "/usr/bin/dash"};
    struct hb_phase_report rep;
    struct hb_result r = exited_ok();

    hb_phase_parse("phase\tx\t1\t1\t1\t1\n", &rep);
    hb_phase_judge(&rep, hb_registry_expected(&glibc), &r);
    TCHECK("no served_by -> failed", r.status == HB_FAILED && strcmp(r.reason, "workload did not report served_by") == 0);
    hb_phase_report_free(&rep);

    char *text = hb_xasprintf("served_by\t%s\n", libc);
    hb_phase_parse(text, &rep);
    r = exited_ok();
    hb_phase_judge(&rep, hb_registry_expected(&glibc), &r);
    TCHECK("libc serving glibc -> ok", r.status == HB_OK);
    r = exited_ok();
    hb_phase_judge(&rep, hb_registry_expected(&sh), &r);
    TCHECK("libc serving a preloaded allocator -> failed", r.status == HB_FAILED);
    TCHECK("reason says LD_PRELOAD had no effect and names both",
           strncmp(r.reason, "LD_PRELOAD had no effect: malloc served by ", 43) == 0 && strstr(r.reason, libc) &&
               strstr(r.reason, "expected /usr/bin/dash"));
    r = exited_ok();
    r.status = HB_CRASHED;
    hb_phase_judge(&rep, hb_registry_expected(&sh), &r);
    TCHECK("a crashed run stays crashed", r.status == HB_CRASHED);
    hb_phase_report_free(&rep);
    free(text);

    hb_phase_parse("served_by\t/bin/sh\nverify\tfail\tchecksum 3 != 4\n", &rep);
    r = exited_ok();
    hb_phase_judge(&rep, hb_registry_expected(&sh), &r);
    TCHECK("served_by through a symlink matches; verify fail -> failed",
           r.status == HB_FAILED && strcmp(r.reason, "verify failed: checksum 3 != 4") == 0);
    hb_phase_report_free(&rep);
    free(libc);
}

/* 1 when hb_phase_name_of(line) is want (NULL: no name). */
static int name_is(const char *line, const char *want)
{
    char *got = hb_phase_name_of(line, strlen(line));
    int same = want ? got && strcmp(got, want) == 0 : got == NULL;
    free(got);
    return same;
}

/* The name of a phase record line for the launch's tagged RSS samples: exactly the records the parser keeps. */
static void test_name_of(void)
{
    TCHECK("name_of: a phase record gives its name", name_is("phase\tc1-idle-0.1s\t0.1\t0\t5\t7", "c1-idle-0.1s"));
    TCHECK("name_of: a record short of a field gives none", name_is("phase\tc1\t0.1\t0\t5", NULL));
    TCHECK("name_of: other records give none", name_is("phases\tx\t1\t2\t3\t4", NULL) && name_is("allocstat\tx\t\t\t\t\t", NULL));
    TCHECK("name_of: the length bounds the line", hb_phase_name_of("phase\tab\t1\t2\t3\t4", 8) == NULL);
    struct hb_phase_report rep;
    hb_phase_parse("phase\t\t1\t2\t3\t4\n", &rep);
    TCHECK("name_of: an empty name, as the parser keeps it", rep.nph == 1 && name_is("phase\t\t1\t2\t3\t4", ""));
    hb_phase_report_free(&rep);
}

/* Runs every check above; the exit status says whether one failed. */
/* The allocstat writer's records, read by the parser: every field in place, a reason with no value. */
static void test_allocstat_roundtrip(void)
{
    FILE *f = tmpfile();
    char text[1024] = "";
    if (f) {
        wl_allocstat(fileno(f), "build", "mallctl", "stats.active", "allocator", 123456789012ULL, NULL);
        wl_allocstat(fileno(f), "build", "none", "resident", "allocator", 0, "no statistics API in x.so");
        rewind(f);
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    struct hb_phase_report rep;
    hb_phase_parse(text, &rep);
    const struct hb_strv *a = &rep.allocstats;
    TCHECK("allocstat: two records of WL_ALLOCSTAT_FIELDS fields read back", a->n == 2 * WL_ALLOCSTAT_FIELDS);
    TCHECK("allocstat: phase, api, stat, layer, value, empty reason in order",
           a->n == 2 * WL_ALLOCSTAT_FIELDS && strcmp(a->v[0], "build") == 0 && strcmp(a->v[1], "mallctl") == 0 &&
               strcmp(a->v[2], "stats.active") == 0 && strcmp(a->v[3], "allocator") == 0 &&
               strcmp(a->v[4], "123456789012") == 0 && strcmp(a->v[5], "") == 0);
    TCHECK("allocstat: with a reason the value is empty",
           a->n == 2 * WL_ALLOCSTAT_FIELDS && strcmp(a->v[10], "") == 0 &&
               strcmp(a->v[11], "no statistics API in x.so") == 0);
    hb_phase_report_free(&rep);
}

/* The probe's own_allocator and own_share records: names merged once each in order, the first
 * record's object kept, a share that is not a plain fraction dropped. */
static void test_own_records(void)
{
    struct hb_phase_report rep;
    hb_phase_parse("served_by\t/x/lib.so\nown_allocator\tmimalloc\t/l/libmimalloc.so.2\n"
                   "own_allocator\tjemalloc\t/l/libj.so\nown_allocator\tmimalloc\t/l/other.so\nown_share\t0.25\n", &rep);
    TCHECK("own: names merged once each", strcmp(rep.own_allocator, "mimalloc+jemalloc") == 0);
    TCHECK("own: the first record's object", rep.own_where && strcmp(rep.own_where, "/l/libmimalloc.so.2") == 0);
    TCHECK("own: the share", rep.own_share && strcmp(rep.own_share, "0.25") == 0);
    hb_phase_report_free(&rep);
    hb_phase_parse("served_by\t/x/lib.so\nown_share\t-1e9\n", &rep);
    TCHECK("own: none without records, a share that is no fraction dropped", !rep.own_allocator[0] && !rep.own_where &&
                                                                             !rep.own_share);
    hb_phase_report_free(&rep);
    char list[16] = "a";
    hb_own_merge(list, sizeof list, "b+a+cccccccccccccccc");
    TCHECK("own: merge keeps order and drops what does not fit", strcmp(list, "a+b") == 0);
}

int main(void)
{
    test_own_records();
    test_allocstat_roundtrip();
    test_name_of();
    test_parse();
    test_judge();
    return tcheck_summary();
}
