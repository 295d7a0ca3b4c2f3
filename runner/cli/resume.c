/* resume.c - reads back an interrupted results directory (see resume.h).
 *
 * Always holds: only runs.csv decides what is done (rows of the other CSVs are written before
 * the runs.csv row of the same run).
 */
#include "cli/resume.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/csvrow.h"
#include "write/json.h"

/* meta.json's argv, run_id and start. */
void hb_resume_read_meta(const char *dir, struct hb_strv *argv, char **run_id, char **start)
{
    char *path = hb_xasprintf("%s/meta.json", dir);
    char *text = hb_read_file(path, NULL);
    if (!text && errno == ENOENT)
        hb_usage("--resume %s: no meta.json, so the run's options are unknown (heapbench check %s says why); a "
                 "run cut while creating it measured nothing: run the same command again with -o %s", dir, dir, dir);
    if (!text || hb_json_get_strv(text, "argv", argv) != 0 || !argv->n ||
        !(*run_id = hb_json_get_str(text, "run_id")))
        hb_usage("--resume %s: no readable meta.json with argv and run_id; give a results directory "
                 "written by heapbench run", dir);
    *start = hb_json_get_str(text, "start");
    free(text);
    free(path);
}

/* Column index of name in the header, or exits 2. */
static size_t hb_resume_col(const struct hb_strv *header, const char *name, const char *path)
{
    int i = hb_strv_find(header, name);
    if (i < 0)
        hb_usage("--resume: %s has no '%s' column; not a heapbench runs.csv", path, name);
    return (size_t)i;
}

/* Marks the rows of runs.csv. */
void hb_resume_mark(const char *dir, struct hb_matrix *m, struct hb_summary *s)
{
    static const char *const cols[] = {"workload", "allocator", "threads", "params", "env", "rep",
                                       "status", "wall_s"};
    char *path = hb_xasprintf("%s/runs.csv", dir);
    char *text = hb_read_file(path, NULL);
    size_t pos = 0;
    struct hb_strv header = {0};
    if (!text || hb_csv_parse(text, &pos, &header) != 0)
        hb_usage("--resume: cannot read %s; give a results directory written by heapbench run", path);
    size_t idx[8];
    for (size_t i = 0; i < 8; i++)
        idx[i] = hb_resume_col(&header, cols[i], path);
    struct hb_strv f = {0};
    while (hb_csv_parse(text, &pos, &f) == 0) {
        if (f.n == header.n) {
            size_t g, a;
            if (hb_matrix_mark(m, f.v[idx[0]], f.v[idx[1]], f.v[idx[2]], f.v[idx[3]], f.v[idx[4]], f.v[idx[5]],
                               &g, &a) != 0)
                hb_usage("--resume: %s has a row (%s, %s, rep %s) that is not in this run's matrix; "
                         "was meta.json edited?", path, f.v[idx[0]], f.v[idx[1]], f.v[idx[5]]);
            if (strcmp(f.v[idx[6]], "ok") == 0)
                hb_summary_add(s, g, a, atof(f.v[idx[7]]));
            else if (strcmp(f.v[idx[6]], "skipped") != 0)
                hb_summary_fail(s, g, a);
        }
        hb_strv_free(&f);
    }
    hb_strv_free(&header);
    free(text);
    free(path);
}
