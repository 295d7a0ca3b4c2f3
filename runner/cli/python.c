/* python.c - starts the Python programs of heapbench (see python.h).
 *
 * Always holds: a target ending in ".py" is a script path relative to the project root; any
 * other target is a module name run as `python3 -m MODULE` (found through PYTHONPATH).
 */
#include "python.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawner.h"
#include "util.h"

#define HB_PYTHON "/usr/bin/python3"

extern char **environ;

/* Every Python program: subcommand (or internal step) name -> script or module. */
static const struct {
    const char *name, *target;
    int subcommand; /* 1: `heapbench NAME` runs it; 0: used by the runner itself */
} hb_python_table[] = {
    {"report", "report/report.py", 1}, {"compare", "compare/compare.py", 1}, {"ci", "compare/ci.py", 1},
    {"merge", "compare/merge.py", 1},  {"tune", "tune/tune.py", 1},          {"hyperfine", "exec/hyperfine.py", 0},
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
    static const char *const ours[] = {"HEAPBENCH_ROOT=", "HEAPBENCH_BIN=", "PYTHONPATH="};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *old = getenv("PYTHONPATH");
    for (char **e = environ; *e; e++) {
        int mine = 0;
        for (size_t i = 0; i < 3; i++)
            mine |= strncmp(*e, ours[i], strlen(ours[i])) == 0;
        if (!mine)
            hb_strv_push(envp, *e);
    }
    hb_strv_pushf(envp, "HEAPBENCH_ROOT=%s", hb_root());
    hb_strv_pushf(envp, "HEAPBENCH_BIN=%s", exe);
    hb_strv_pushf(envp, "PYTHONPATH=%s/pylib%s%s", hb_root(), old && *old ? ":" : "", old && *old ? old : "");
}

/* argv of python3 running name's target with args (exits 2 when something is missing). */
static void hb_python_argv(const char *name, char *const args[], struct hb_strv *argv)
{
    const char *target = hb_python_target(name);
    if (access(HB_PYTHON, X_OK) != 0)
        hb_usage("%s is missing; run make deps (it installs python3 and the report's libraries)", HB_PYTHON);
    size_t len = strlen(target);
    hb_strv_push(argv, HB_PYTHON);
    if (len > 3 && strcmp(target + len - 3, ".py") == 0) {
        char *path = hb_root_path(target);
        if (access(path, R_OK) != 0)
            hb_usage("%s: %s is not there yet; this checkout lacks that part of heapbench", name, path);
        hb_strv_push(argv, path);
        free(path);
    } else {
        hb_strv_push(argv, "-m");
        hb_strv_push(argv, target);
    }
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
