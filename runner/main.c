/* main.c - build/heapbench: dispatches the subcommands (run, exec, list in C; report, compare,
 * ci, merge, tune in Python under /usr/bin/python3).
 *
 * Always holds: an unknown subcommand or a missing one exits 2 with one line; the Python
 * subcommands run as `python3 -P -m heapbench.<sub>` with PYTHONPATH=ROOT/pylib (the one place
 * that puts the package on the path), HEAPBENCH_ROOT and HEAPBENCH_BIN in their environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "list.h"
#include "options.h"
#include "runcmd.h"
#include "util.h"

#ifndef HB_VERSION
#define HB_VERSION "dev"
#endif

#define HB_PYTHON "/usr/bin/python3"

/* Replaces the process with PYTHONPATH=ROOT/pylib /usr/bin/python3 -P -m MODULE args...
 * (file: the module's file under ROOT, checked first); exits 2 when impossible. */
static int hb_exec_python(const char *module, const char *file, int argc, char **argv)
{
    if (access(HB_PYTHON, X_OK) != 0)
        hb_usage("%s is missing; run make deps (it installs python3 and the report's libraries)", HB_PYTHON);
    char *path = hb_root_path(file);
    if (access(path, R_OK) != 0)
        hb_usage("%s: %s is not there yet; this checkout lacks that part of heapbench", argv[0], path);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    setenv("HEAPBENCH_ROOT", hb_root(), 1);
    setenv("HEAPBENCH_BIN", exe, 1);
    setenv("PYTHONPATH", hb_root_path("pylib"), 1);
    char **args = hb_xcalloc((size_t)argc + 4, sizeof *args);
    args[0] = HB_PYTHON;
    args[1] = "-P"; /* the package comes from PYTHONPATH only, never from the current directory */
    args[2] = "-m";
    args[3] = (char *)module;
    for (int i = 1; i < argc; i++)
        args[i + 3] = argv[i];
    fflush(NULL);
    execv(HB_PYTHON, args);
    hb_fatal("cannot run %s: %s", HB_PYTHON, strerror(errno));
}

/* Dispatches argv[1]. */
int main(int argc, char **argv)
{
    static const struct { const char *name, *module, *file; } py[] = {
        {"report", "heapbench.report", "pylib/heapbench/report/__main__.py"},
        {"compare", "heapbench.compare", "pylib/heapbench/compare/__main__.py"},
        {"ci", "heapbench.compare.ci", "pylib/heapbench/compare/ci.py"},
        {"merge", "heapbench.compare.merge", "pylib/heapbench/compare/merge.py"},
        {"tune", "heapbench.tune", "pylib/heapbench/tune/__main__.py"}};
    if (argc < 2)
        hb_usage("no command given; try heapbench run --quick, or heapbench --help");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("heapbench %s\n", HB_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        hb_options_usage(HB_CMD_NONE, stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return hb_cmd_run(HB_CMD_RUN, argc - 1, argv + 1);
    if (strcmp(cmd, "exec") == 0)
        return hb_cmd_run(HB_CMD_EXEC, argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return hb_cmd_list(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof py / sizeof *py; i++)
        if (strcmp(cmd, py[i].name) == 0)
            return hb_exec_python(py[i].module, py[i].file, argc - 1, argv + 1);
    hb_usage("unknown command '%s'; valid: run, exec, list, report, compare, ci, merge, tune (see heapbench --help)",
             cmd);
}
