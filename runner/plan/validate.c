/* validate.c - command-line checks against the machine (see validate.h).
 *
 * Always holds: nothing here starts a process or writes a file.
 */
#include "plan/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/describe.h"
#include "base/resolve.h"
#include "base/sysinfo.h"

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

/* The --describe of w, with the parameters every workload takes (threads, seed, quick) added when
 * it lists any: a workload that lists nothing is not checked. */
static void hb_validate_describe(const struct hb_workload *w, struct hb_describe *d)
{
    hb_describe_load(d, w->bin);
    static const char *const common[] = {"threads", "seed", "quick"};
    for (size_t i = 0; d->n && i < 3; i++)
        if (!hb_describe_find(d, common[i])) {
            d->p = hb_xrealloc(d->p, (d->n + 1) * sizeof *d->p);
            d->p[d->n++] = (struct hb_param_info){hb_xstrdup(common[i]), hb_xstrdup(""), hb_xstrdup(""), hb_xstrdup("")};
        }
}

/* Refuses a --key of params that w does not list, or a --key=value that its --describe says it does not accept. */
static void hb_validate_group_params(const struct hb_workload *w, const char *params, const struct hb_describe *d)
{
    struct hb_strv words = {0};
    hb_strv_split(&words, params, " \t", 0);
    for (size_t i = 0; i < words.n; i++) {
        const char *k = words.v[i], *eq = strchr(k, '=');
        if (strncmp(k, "--", 2) != 0)
            continue;
        char *key = hb_xasprintf("%.*s", (int)strcspn(k + 2, "="), k + 2);
        const struct hb_param_info *p = hb_describe_find(d, key);
        if (!p) {
            struct hb_strv names = {0};
            for (size_t n = 0; n < d->n; n++)
                hb_strv_push(&names, d->p[n].name);
            hb_usage("-p '%s': %s has no parameter --%s; its parameters are --%s (heapbench list)", params, w->name,
                     key, hb_strv_join(&names, ", --"));
        }
        int flag = p->accepts && strcmp(p->accepts, "flag") == 0; /* --long: stands alone (docs/DATA.md) */
        if (eq && flag)
            hb_usage("-p '%s': %s's --%s takes no value: give --%s alone", params, w->name, key, key);
        if (!eq && !flag && p->accepts && p->accepts[0]) /* --quick, and flags, stand alone */
            hb_usage("-p '%s': %s's --%s needs a value: give --%s=VALUE (it accepts %s; heapbench list)", params,
                     w->name, key, key, p->accepts);
        if (eq && !hb_describe_accepts(p, eq + 1))
            hb_usage("-p '%s': %s's --%s accepts %s, got '%s'; give a value in that range (heapbench list)", params,
                     w->name, key, p->accepts, eq + 1);
        free(key);
    }
    hb_strv_free(&words);
}

/* Refuses a thread count of group g that its workload's --threads does not accept. */
static void hb_validate_group_threads(const struct hb_group *g, const struct hb_describe *d)
{
    const struct hb_param_info *p = hb_describe_find(d, "threads");
    long long min, max;
    char t[24];
    snprintf(t, sizeof t, "%d", g->threads);
    if (!g->pass_threads || !p || hb_describe_accepts(p, t) || hb_describe_range(p, &min, &max) != 0)
        return;
    hb_usage("-t %d: %s takes %lld to %lld threads (its --threads accepts %s); give -t values from %lld to %lld, "
             "or leave %s out of this run", g->threads, g->wl->name, min, max, p->accepts, min, max, g->wl->name);
}

/* 1 when a group of w from group g on has something to check: a thread count it is given, or a
 * --key in its params (a --workload-bin of another origin is asked --describe only then). */
static int hb_validate_needed(const struct hb_matrix *m, size_t g, const struct hb_workload *w)
{
    for (size_t h = g; h < m->ng; h++)
        if (m->g[h].wl == w && (m->g[h].pass_threads || (m->g[h].params && strstr(m->g[h].params, "--"))))
            return 1;
    return 0;
}

/* The workload checks (validate.h): one --describe per workload. */
void hb_validate_params(const struct hb_matrix *m)
{
    for (size_t g = 0; g < m->ng; g++) {
        const struct hb_workload *w = m->g[g].wl;
        int seen = 0;
        for (size_t h = 0; h < g && !seen; h++)
            seen = m->g[h].wl == w;
        if (seen || w->kind != HB_WL_BINARY || access(w->bin, X_OK) != 0 || !hb_validate_needed(m, g, w))
            continue;
        struct hb_describe d = {0};
        hb_validate_describe(w, &d);
        for (size_t h = g; h < m->ng && d.n; h++)
            if (m->g[h].wl == w) {
                hb_validate_group_threads(&m->g[h], &d);
                hb_validate_group_params(w, m->g[h].params, &d);
            }
        hb_describe_free(&d);
    }
}
