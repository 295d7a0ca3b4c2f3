/* python.c - starts the Python programs of heapbench (see python.h).
 *
 * Always holds: every target is a module of the heapbench package (report/heapbench), run as
 * `python3 -P -m MODULE` with PYTHONPATH=<root>/report first: the one place that puts the package
 * on Python's path (-P: never the current directory). A module whose file is missing under
 * <root>/report is a one-line usage error naming that file. An installed heapbench runs Python
 * with -B as well: nothing is ever written into the prefix (no __pycache__ beside the package,
 * which `make uninstall` and `apt-get remove` would leave behind); the .deb byte-compiles the
 * package at install time instead (dh_python3: py3compile, and py3clean on removal).
 */
#include "cli/python.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spawner.h"
#include "base/layout.h"
#include "base/util.h"

#define HB_PYTHON "/usr/bin/python3"
/* The folder put on Python's path: report/, the analysis side's home, holds the package heapbench/. */
#define HB_PYTHON_HOME "report"

extern char **environ;

/* Every Python program: subcommand (or internal step) name -> script or module. */
static const struct {
    const char *name, *target;
    int subcommand; /* 1: `heapbench NAME` runs it; 0: used by the runner itself */
} hb_python_table[] = {
    {"report", "heapbench.report", 1},       {"compare", "heapbench.compare", 1},
    {"ci", "heapbench.compare.ci", 1},       {"merge", "heapbench.compare.merge", 1},
    {"tune", "heapbench.tune", 1},           {"hyperfine", "heapbench.hyperfine", 0},
    {"history", "heapbench.history", 1},
    {"advise", "heapbench.advise", 1},       {"explain", "heapbench.explain", 1},
    {"bisect", "heapbench.bisect", 1},
};

/* The table's target of name, or NULL. */
static const char *hb_python_target(const char *name)
{
    for (size_t i = 0; i < sizeof hb_python_table / sizeof *hb_python_table; i++)
        if (strcmp(hb_python_table[i].name, name) == 0)
            return hb_python_table[i].target;
    return NULL;
}

/* 1 when name is a Python subcommand (python.h). */
int hb_python_is_subcommand(const char *name)
{
    for (size_t i = 0; i < sizeof hb_python_table / sizeof *hb_python_table; i++)
        if (hb_python_table[i].subcommand && strcmp(hb_python_table[i].name, name) == 0)
            return 1;
    return 0;
}

/* The runner's environment with HEAPBENCH_ROOT, HEAPBENCH_BIN and PYTHONPATH set. */
static void hb_python_envp(struct hb_strv *envp)
{
    static const char *const ours[] = {"HEAPBENCH_ROOT=", "HEAPBENCH_BIN=", "PYTHONPATH=", "HEAPBENCH_LAYOUT=",
                                       "HEAPBENCH_RESULTS="};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *old = getenv("PYTHONPATH");
    for (char **e = environ; *e; e++) {
        int mine = 0;
        for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
            mine |= strncmp(*e, ours[i], strlen(ours[i])) == 0;
        if (!mine)
            hb_strv_push(envp, *e);
    }
    hb_strv_pushf(envp, "HEAPBENCH_ROOT=%s", hb_root());
    hb_strv_pushf(envp, "HEAPBENCH_BIN=%s", exe);
    char *home = hb_root_path(HB_PYTHON_HOME), *results = hb_results_dir();
    hb_strv_pushf(envp, "PYTHONPATH=%s%s%s", home, old && *old ? ":" : "", old && *old ? old : "");
    hb_strv_pushf(envp, "HEAPBENCH_RESULTS=%s", results);
    if (hb_layout_file())
        hb_strv_pushf(envp, "HEAPBENCH_LAYOUT=%s", hb_layout_file());
    free(home), free(results);
}

/* The file under the root that holds module (report/a/b.py, else report/a/b/__main__.py), or NULL. */
static char *hb_python_module_file(const char *module)
{
    char *rel = hb_xasprintf(HB_PYTHON_HOME "/%s", module);
    for (char *p = rel; *p; p++)
        if (*p == '.')
            *p = '/';
    const char *const forms[] = {"%s.py", "%s/__main__.py"};
    for (size_t i = 0; i < 2; i++) {
        char *file = hb_xasprintf(forms[i], rel);
        char *path = hb_root_path(file);
        free(file);
        if (access(path, R_OK) == 0)
            return free(rel), path;
        free(path);
    }
    free(rel);
    return NULL;
}

/* argv of python3 running name's module with args (exits 2 when something is missing). */
static void hb_python_argv(const char *name, char *const args[], struct hb_strv *argv)
{
    const char *module = hb_python_target(name);
    if (access(HB_PYTHON, X_OK) != 0)
        hb_usage("%s is missing; run make deps (it installs python3 and the report's libraries)", HB_PYTHON);
    char *file = hb_python_module_file(module);
    if (!file) {
        char *home = hb_root_path(HB_PYTHON_HOME);
        hb_usage("%s: module %s is not under %s; this heapbench lacks that part", name, module, home);
    }
    free(file);
    hb_strv_push(argv, HB_PYTHON);
    hb_strv_push(argv, "-P");
    if (hb_installed())
        hb_strv_push(argv, "-B");
    hb_strv_push(argv, "-m");
    hb_strv_push(argv, module);
    for (size_t i = 0; args && args[i]; i++)
        hb_strv_push(argv, args[i]);
}

/* Replaces the process with the subcommand's Python program (python.h). */
void hb_python_exec(int argc, char **argv)
{
    struct hb_strv pargv = {0}, envp = {0};
    char **args = hb_xcalloc((size_t)argc, sizeof *args);
    for (int i = 1; i < argc; i++)
        args[i - 1] = argv[i];
    hb_python_argv(argv[0], args, &pargv);
    hb_python_envp(&envp);
    fflush(NULL);
    execve(HB_PYTHON, pargv.v, envp.v);
    hb_fatal("cannot run %s: %s", HB_PYTHON, strerror(errno));
}

/* Runs a Python program and waits (python.h). */
int hb_python_run(const char *name, char *const args[])
{
    struct hb_strv pargv = {0}, envp = {0};
    if (access(HB_PYTHON, X_OK) != 0)
        return -1;
    hb_python_argv(name, args, &pargv);
    hb_python_envp(&envp);
    struct hb_spawn sp = {.argv = pargv.v, .envp = envp.v};
    fflush(NULL);
    int rc = hb_spawn_run(&sp);
    hb_strv_free(&pargv), hb_strv_free(&envp);
    return rc;
}
