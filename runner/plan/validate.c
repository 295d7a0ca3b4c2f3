/* validate.c - command-line checks against the machine (see validate.h).
 *
 * Always holds: nothing here starts a process or writes a file.
 */
#include "validate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"
#include "sysinfo.h"

/* "0-1,3": the CPUs of set as a list. */
static void hb_validate_cpu_list(const cpu_set_t *set, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        used += (size_t)snprintf(out + used, len - used, hi > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, hi);
    }
}

/* --pin: every CPU must be one this process may run on. */
static void hb_validate_pin(const struct hb_options *o)
{
    cpu_set_t online, extra;
    if (!o->have_pin || sched_getaffinity(0, sizeof online, &online) != 0)
        return;
    CPU_AND(&extra, &o->pin, &online);
    if (CPU_EQUAL(&extra, &o->pin))
        return;
    char list[256];
    hb_validate_cpu_list(&online, list, sizeof list);
    hb_usage("--pin %s: not every CPU is online; the CPUs heapbench may use are %s", o->pin_text, list);
}

/* The program checks (validate.h). */
void hb_validate_program(const char *what, const char *name)
{
    char path[PATH_MAX], head[2] = {0, 0};
    struct stat st;
    if (hb_resolve_program(name, getenv("PATH"), path, sizeof path) != 0) {
        int err = errno;
        hb_usage("%s: %s: %s; give an executable program (a path, or a name found in PATH)", what, name,
                 err == ENOENT ? "not found" : strerror(err));
    }
    if (stat(path, &st) != 0)
        hb_usage("%s: %s: not found; give an executable program (a path, or a name found in PATH)", what, path);
    if (S_ISDIR(st.st_mode))
        hb_usage("%s: %s is a directory; give a program", what, path);
    if (!S_ISREG(st.st_mode))
        hb_usage("%s: %s is not a regular file; give a program", what, path);
    if (access(path, X_OK) != 0)
        hb_usage("%s: %s is not executable; chmod +x it or run it through its interpreter", what, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* execute-only: the exec itself will say */
    ssize_t n = read(fd, head, 2);
    close(fd);
    int elf = n == 2 && head[0] == 0x7f && head[1] == 'E';
    int shebang = n == 2 && head[0] == '#' && head[1] == '!';
    if (!elf && !shebang)
        hb_usage("%s: %s is neither a binary nor a script with a #! line; add '#!/bin/sh' as its first line "
                 "or run it as 'sh %s'", what, path, path);
}

/* --resume DIR takes its options from DIR/meta.json: any other is refused, not ignored. */
static void hb_validate_resume(const struct hb_options *o)
{
    if (!o->resume)
        return;
    size_t words = strchr(o->argv.v[1] ? o->argv.v[1] : "", '=') ? 2 : 3;
    if (o->argv.n > words)
        hb_usage("--resume %s takes no other option (the run's options come from %s/meta.json); "
                 "give only --resume DIR", o->resume, o->resume);
}

/* Every check (validate.h). */
void hb_validate_options(const struct hb_options *o)
{
    hb_validate_resume(o);
    hb_validate_pin(o);
    if (o->wrap) {
        struct hb_strv w = {0};
        hb_strv_split(&w, o->wrap, " \t", 0);
        if (w.n)
            hb_validate_program("--wrap", w.v[0]);
        hb_strv_free(&w);
    }
    if (o->cmd == HB_CMD_EXEC && o->command.n)
        hb_validate_program("exec", o->command.v[0]);
}

/* The parameter names a workload's --describe lists, plus those every workload takes. */
static void hb_validate_names(const struct hb_workload *w, struct hb_strv *names)
{
    char *argv[] = {w->bin, "--describe", NULL};
    char *text = hb_capture_all(argv);
    struct hb_strv lines = {0};
    hb_strv_split(&lines, text ? text : "", "\n", 0);
    for (size_t i = 0; i < lines.n; i++)
        hb_strv_pushf(names, "%.*s", (int)strcspn(lines.v[i], "\t"), lines.v[i]);
    static const char *const common[] = {"threads", "seed", "quick"};
    for (size_t i = 0; names->n && i < 3; i++)
        if (hb_strv_find(names, common[i]) < 0)
            hb_strv_push(names, common[i]);
    hb_strv_free(&lines);
    free(text);
}

/* Refuses a --key of params that w does not list. */
static void hb_validate_group_params(const struct hb_workload *w, const char *params, const struct hb_strv *names)
{
    struct hb_strv words = {0};
    hb_strv_split(&words, params, " \t", 0);
    for (size_t i = 0; i < words.n; i++) {
        const char *k = words.v[i];
        if (strncmp(k, "--", 2) != 0)
            continue;
        char *key = hb_xasprintf("%.*s", (int)strcspn(k + 2, "="), k + 2);
        if (hb_strv_find(names, key) < 0) {
            char *known = hb_strv_join(names, ", --");
            hb_usage("-p '%s': %s has no parameter --%s; its parameters are --%s (heapbench list)", params, w->name,
                     key, known);
        }
        free(key);
    }
    hb_strv_free(&words);
}

/* The param check (validate.h): one --describe per workload. */
void hb_validate_params(const struct hb_matrix *m)
{
    for (size_t g = 0; g < m->ng; g++) {
        const struct hb_workload *w = m->g[g].wl;
        int seen = 0;
        for (size_t h = 0; h < g && !seen; h++)
            seen = m->g[h].wl == w;
        if (seen || w->kind != HB_WL_BINARY || access(w->bin, X_OK) != 0)
            continue;
        struct hb_strv names = {0};
        hb_validate_names(w, &names);
        for (size_t h = g; h < m->ng && names.n; h++)
            if (m->g[h].wl == w)
                hb_validate_group_params(w, m->g[h].params, &names);
        hb_strv_free(&names);
    }
}
