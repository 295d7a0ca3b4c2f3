/* check.c - `heapbench check DIR` (see check.h).
 *
 * Always holds: the defects are the ones --resume would repair (integrity.h), then those it
 * cannot (content.h: meta.json, field values), each said apart; rows of a run stopped before
 * its runs.csv row are a note, not a defect (--resume drops and re-runs them); a run whose
 * meta.json says "complete": false is not whole (runs are missing).
 */
#include "cli/check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/content.h"
#include "write/integrity.h"
#include "write/json.h"
#include "base/util.h"

static const char hb_check_usage[] =
    "usage: heapbench check [--readable] DIR\n"
    "Verifies a results directory: no CSV ends in a partial line, no (cell, rep) or run number has two\n"
    "runs.csv rows, every run has all the rows its runs.csv 'records' column counts in each file; meta.json\n"
    "is heapbench's and says the run is complete; every field is valid (UTF-8 text, finite numbers, >= 0\n"
    "where a count, latency buckets that add up). report, compare and merge accept exactly these directories.\n"
    "      --readable           every defect but the run's incompleteness (what the readers ask before reading)\n"
    "Exit status: 0 whole, 1 a defect was found (each named, with what repairs it), 2 usage.\n";

/* 1 when DIR/meta.json says "complete": false. */
static int hb_check_incomplete(const char *dir)
{
    char *path = hb_xasprintf("%s/meta.json", dir);
    char *text = hb_read_file(path, NULL);
    int v = hb_json_get_bool(text, "complete");
    free(path), free(text);
    return v == 0;
}

/* The subcommand. */
int hb_cmd_check(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(hb_check_usage, stdout);
        return 0;
    }
    int readable = argc > 1 && strcmp(argv[1], "--readable") == 0;
    argv += readable, argc -= readable;
    if (argc > 1 && strcmp(argv[1], "--") == 0)
        argv++, argc--;
    else if (argc == 2 && argv[1][0] == '-')
        argc = 0;
    if (argc != 2)
        hb_usage("check takes one results directory: heapbench check [--readable] DIR");
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode))
        hb_usage("check %s: %s; give a results directory (results/<run-id>)", argv[1],
                 errno == ENOENT ? "no such directory" : stat(argv[1], &st) == 0 ? "not a directory" : strerror(errno));
    struct hb_strv problems = {0}, notes = {0}, fatal = {0};
    int content = hb_content_scan(argv[1], &fatal);
    int found = hb_integrity_scan(argv[1], 0, &problems, &notes);
    int incomplete = !readable && !content && found >= 0 && hb_check_incomplete(argv[1]);
    for (size_t i = 0; i < fatal.n; i++)
        printf("%s: %s\n", argv[1], fatal.v[i]);
    for (size_t i = 0; i < problems.n; i++)
        printf("%s: %s\n", argv[1], problems.v[i]);
    for (size_t i = 0; i < notes.n; i++)
        printf("%s: note: %s\n", argv[1], notes.v[i]);
    if (incomplete)
        printf("%s: not whole: meta.json says \"complete\": false (runs are missing: the run was interrupted "
               "or some runs could not be written); heapbench run --resume %s measures them\n", argv[1], argv[1]);
    if (found == 0 && !content && !incomplete)
        printf("%s: whole\n", argv[1]);
    else if (found > 0)
        printf("%s: %d defects; heapbench run --resume %s repairs them\n", argv[1], found, argv[1]);
    if (content)
        printf("%s: %d defects that --resume cannot repair (above)\n", argv[1], content);
    hb_strv_free(&problems), hb_strv_free(&notes), hb_strv_free(&fatal);
    return found == 0 && !content && !incomplete ? 0 : 1;
}
