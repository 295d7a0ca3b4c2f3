/* check.c - `heapbench check DIR` (see check.h).
 *
 * Always holds: the defects are the ones --resume would repair (integrity.h); rows of a run
 * stopped before its runs.csv row are a note, not a defect (--resume drops and re-runs them).
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "integrity.h"
#include "util.h"

static const char hb_check_usage[] =
    "usage: heapbench check DIR\n"
    "Verifies a results directory: no CSV ends in a partial line, no (cell, rep) or run number has two\n"
    "runs.csv rows, every run has all the rows its runs.csv 'records' column counts in each file.\n"
    "Exit status: 0 whole, 1 a defect was found (heapbench run --resume DIR repairs it), 2 usage.\n";

/* The subcommand. */
int hb_cmd_check(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(hb_check_usage, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
        hb_usage("check takes one results directory: heapbench check DIR");
    struct hb_strv problems = {0}, notes = {0};
    int found = hb_integrity_scan(argv[1], 0, &problems, &notes);
    for (size_t i = 0; i < problems.n; i++)
        printf("%s: %s\n", argv[1], problems.v[i]);
    for (size_t i = 0; i < notes.n; i++)
        printf("%s: note: %s\n", argv[1], notes.v[i]);
    if (found == 0)
        printf("%s: whole\n", argv[1]);
    else if (found > 0)
        printf("%s: %d defects; heapbench run --resume %s repairs them\n", argv[1], found, argv[1]);
    hb_strv_free(&problems), hb_strv_free(&notes);
    return found == 0 ? 0 : 1;
}
