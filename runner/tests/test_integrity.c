/* test_integrity.c - unit tests of runner/write/integrity.c on small directories written here: a
 * whole directory has no defect; a partial last line, a run with missing rows, a (cell, rep) given
 * three times and rows of a run without a runs.csv row are found, and after a repair the same
 * scan finds nothing; a runs.csv without a run column is refused; a file missing from a
 * directory of an older heapbench is no defect unless a run counts rows in it. The cases after
 * the first two were found by runner/fuzz (docs/measurements/fuzz-runner.md), but the last.
 * Always holds: every file lives in a mkdtemp() directory removed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/integrity.h"
#include "tcheck.h"

static char dir[] = "/tmp/hb-test-integrity.XXXXXX";

#define RUNS_HDR "schema,run,workload,allocator,threads,params,env,rep,status,records\n"
#define PH_HDR "schema,run,phase\n"
#define REC "phases.csv=1 rss.csv=0 sizes.csv=0"

/* Writes every results file (those the test does not fill hold their header only). */
static void put(const char *runs, const char *phases)
{
    const char *names[] = {"runs.csv", "phases.csv", "rss.csv", "sizes.csv", "allocstats.csv", "latency.csv"};
    const char *texts[] = {runs, phases, "schema,run,t,rss_kb\n", "schema,run,request,usable\n",
                           "schema,run,phase,stat\n", "schema,run,phase,op\n"};
    for (int i = 0; i < 6; i++) {
        char *path = hb_xasprintf("%s/%s", dir, names[i]);
        hb_write_file_atomic(path, texts[i], strlen(texts[i]));
        free(path);
    }
}

/* Removes one results file (a directory written before that file existed). */
static void drop(const char *name)
{
    char *path = hb_xasprintf("%s/%s", dir, name);
    unlink(path);
    free(path);
}

/* Defects found by a scan (repair or not). */
static int scan(int repair, size_t *notes)
{
    struct hb_strv p = {0}, n = {0};
    int found = hb_integrity_scan(dir, repair, &p, &n);
    if (notes)
        *notes = n.n;
    hb_strv_free(&p), hb_strv_free(&n);
    return found;
}

int main(void)
{
    if (!mkdtemp(dir))
        return 2;
    size_t notes;
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n", PH_HDR "1,1,fill\n");
    TCHECK("a whole directory has no defect", scan(0, &notes) == 0 && notes == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n1,2,w,a,1,,,2,o", PH_HDR "1,1,fill\n");
    TCHECK("a partial last line is a defect", scan(0, NULL) == 1);
    TCHECK("... repaired, it is whole", scan(1, NULL) == 1 && scan(0, NULL) == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n1,2,w,a,1,,,2,ok," REC "\n", PH_HDR "1,1,fill\n");
    TCHECK("a run with a missing row is a defect", scan(0, NULL) == 1);
    TCHECK("... repaired, it is whole", scan(1, NULL) == 1 && scan(0, &notes) == 0 && notes == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n1,2,w,a,1,,,1,ok," REC "\n1,3,w,a,1,,,1,ok," REC "\n",
        PH_HDR "1,1,fill\n1,2,fill\n1,3,fill\n");
    TCHECK("a (cell, rep) three times is two defects", scan(0, NULL) == 2);
    TCHECK("... repaired, it is whole (fuzz finding)", scan(1, NULL) == 2 && scan(0, &notes) == 0 && notes == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n", PH_HDR "1,1,fill\n1,7,fill\n");
    TCHECK("rows of a run without a runs.csv row are a note, not a defect", scan(0, &notes) == 0 && notes == 1);
    TCHECK("... repaired, they are gone", scan(1, NULL) == 0 && scan(0, &notes) == 0 && notes == 0);
    put("schema,workload,records\n1,w," REC "\n", PH_HDR "1,1,fill\n");
    TCHECK("a runs.csv without a run column is refused (fuzz finding)", scan(1, NULL) < 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC "\n", PH_HDR "1,1,fill\n");
    drop("allocstats.csv"), drop("latency.csv");
    TCHECK("a directory of an older heapbench (no allocstats.csv, latency.csv; records names neither) is whole",
           scan(0, &notes) == 0 && notes == 0);
    TCHECK("... and a repair leaves it so", scan(1, NULL) == 0 && scan(0, NULL) == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC " latency.csv=0\n", PH_HDR "1,1,fill\n");
    drop("latency.csv");
    TCHECK("a missing file whose every records count is 0 is no defect", scan(0, NULL) == 0);
    put(RUNS_HDR "1,1,w,a,1,,,1,ok," REC " latency.csv=2\n1,2,w,a,1,,,2,ok," REC " latency.csv=0\n",
        PH_HDR "1,1,fill\n1,2,fill\n");
    drop("latency.csv");
    TCHECK("a missing file that a run counts rows in is that run's defect", scan(0, NULL) == 1);
    TCHECK("... repaired (the run dropped), it is whole", scan(1, NULL) == 1 && scan(0, NULL) == 0);
    const char *names[] = {"runs.csv", "phases.csv", "rss.csv", "sizes.csv", "allocstats.csv", "latency.csv"};
    for (int i = 0; i < 6; i++)
        drop(names[i]);
    rmdir(dir);
    return tcheck_summary();
}
