/* program.c - loads exec/programs/NAME.prog definitions and runs their setup and cleanup steps.
 *
 * Always holds: the measured command is split into argv here and run without a shell;
 * only setup and cleanup go through /bin/sh -c, with HB_WORKDIR, HB_PROGDIR, HB_ROOT and
 * HB_PORT in their environment and their output in WORKDIR/setup.log / cleanup.log.
 */
#include "plan/program.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/layout.h"
#include "base/resolve.h"
#include "base/spawner.h"

/* The member of p that holds key, or NULL for an unknown key. */
static char **hb_program_field(struct hb_program *p, const char *key)
{
    static const char *const keys[] = {"description", "package", "setup", "command",
                                       "ready", "driver", "cleanup", "metric", "matrix"};
    char **fields[] = {&p->description, &p->package, &p->setup, &p->command,
                       &p->ready, &p->driver, &p->cleanup, &p->metric, &p->matrix};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(keys[i], key) == 0)
            return fields[i];
    return NULL;
}

/* 1 when the required program req can be run: a name with a '/' must be an executable regular
 * file (access X_OK), a bare name an executable regular file on PATH. */
static int hb_program_installed(const char *req)
{
    char found[PATH_MAX];
    struct stat st;
    if (strchr(req, '/'))
        return stat(req, &st) == 0 && S_ISREG(st.st_mode) && access(req, X_OK) == 0;
    return hb_resolve_program(req, getenv("PATH"), found, sizeof found) == 0;
}

/* Parses key = value lines into p. */
int hb_program_parse(struct hb_program *p, const char *name, const char *text, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->name = hb_xstrdup(name);
    struct hb_strv lines = {0};
    hb_strv_split(&lines, text, "\n", 1);
    int rc = 0;
    for (size_t ln = 0; ln < lines.n && rc == 0; ln++) {
        char *line = lines.v[ln];
        if (line[0] == '#' || !line[0])
            continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            snprintf(err, errlen, "line %zu: want 'key = value'", ln + 1);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = hb_trim_dup(line);
        char **field = hb_program_field(p, key);
        if (strcmp(key, "requires") == 0) {
            hb_strv_split(&p->requires, eq + 1, " \t", 0);
            if (p->requires.n > HB_PROGRAM_REQUIRES_MAX) { /* each is looked up on PATH: bound that work */
                snprintf(err, errlen, "line %zu: more than %d required programs", ln + 1, HB_PROGRAM_REQUIRES_MAX);
                rc = -1;
            }
        } else if (field) {
            free(*field);
            *field = hb_trim_dup(eq + 1);
        } else {
            snprintf(err, errlen, "line %zu: unknown key '%s'", ln + 1, key);
            rc = -1;
        }
        free(key);
    }
    hb_strv_free(&lines);
    if (rc == 0 && (!p->command || !*p->command)) {
        snprintf(err, errlen, "no 'command = ...' line");
        rc = -1;
    }
    if (rc == 0 && p->matrix && strcmp(p->matrix, "default") != 0 && strcmp(p->matrix, "opt-in") != 0) {
        snprintf(err, errlen, "matrix = '%s': want 'default' or 'opt-in'", p->matrix);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < p->requires.n && !p->missing; i++)
        if (!hb_program_installed(p->requires.v[i]))
            p->missing = hb_xstrdup(p->requires.v[i]);
    return rc;
}

/* Loads every definition in exec/programs. */
void hb_program_load_all(struct hb_program **out, size_t *n)
{
    char *dir = hb_root_path("exec/programs");
    struct dirent **ents;
    int count = scandir(dir, &ents, NULL, alphasort);
    *out = NULL;
    *n = 0;
    for (int i = 0; i < count; i++) {
        const char *fn = ents[i]->d_name;
        size_t len = strlen(fn);
        if (len > 5 && strcmp(fn + len - 5, ".prog") == 0) {
            char *path = hb_xasprintf("%s/%s", dir, fn);
            char *text = hb_read_file(path, NULL);
            char *name = hb_xasprintf("%.*s", (int)(len - 5), fn);
            char err[256];
            *out = hb_xappend(*out, *n, sizeof **out);
            if (!text || hb_program_parse(&(*out)[*n], name, text, err, sizeof err) != 0)
                hb_fatal("%s: %s", path, text ? err : strerror(errno));
            (*n)++;
            free(path), free(text), free(name);
        }
        free(ents[i]);
    }
    if (count > 0)
        free(ents);
    free(dir);
}

/* The value of variable name (without $) for p, or NULL when it is not one of ours. */
static char *hb_program_var(const struct hb_program *p, const char *name, size_t len)
{
    if (len == 10 && strncmp(name, "HB_WORKDIR", len) == 0)
        return hb_xstrdup(p->workdir ? p->workdir : ".");
    if (len == 10 && strncmp(name, "HB_PROGDIR", len) == 0)
        return hb_root_path("exec/programs");
    if (len == 7 && strncmp(name, "HB_ROOT", len) == 0)
        return hb_xstrdup(hb_root());
    if (len == 7 && strncmp(name, "HB_PORT", len) == 0)
        return hb_xasprintf("%d", p->port);
    return NULL;
}

/* Expands our variables and splits into argv. */
void hb_program_argv(const struct hb_program *p, const char *line, struct hb_strv *out)
{
    if (!line)
        return;
    struct hb_strv words = {0};
    hb_strv_split(&words, line, " \t", 0);
    for (size_t i = 0; i < words.n; i++) {
        struct hb_strv parts = {0};
        for (const char *s = words.v[i]; *s;) {
            size_t lit = strcspn(s, "$");
            hb_strv_pushf(&parts, "%.*s", (int)lit, s);
            s += lit;
            if (!*s)
                break;
            size_t vlen = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
            char *val = hb_program_var(p, s + 1, vlen);
            hb_strv_pushf(&parts, "%s", val ? val : "$");
            s += val ? vlen + 1 : 1;
            free(val);
        }
        char *joined = hb_strv_join(&parts, "");
        hb_strv_push(out, joined);
        free(joined);
        hb_strv_free(&parts);
    }
    hb_strv_free(&words);
}

/* Appends the HB_* variables. */
void hb_program_env(const struct hb_program *p, struct hb_strv *env)
{
    static const char *const names[] = {"HB_WORKDIR", "HB_PROGDIR", "HB_ROOT", "HB_PORT"};
    for (size_t i = 0; i < 4; i++) {
        char *v = hb_program_var(p, names[i], strlen(names[i]));
        hb_strv_pushf(env, "%s=%s", names[i], v);
        free(v);
    }
}

/* A free TCP port on 127.0.0.1 (bound to 0, read back, closed); 0 when none. */
static int hb_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* Runs script with /bin/sh -c in p's workdir (not preloaded, with p's HB_* variables), output
 * to workdir/logname; returns the exit status (-1 when it could not run, 128+N when signal N
 * killed it). */
static int hb_program_sh(const struct hb_program *p, const char *script, const char *logname)
{
    struct hb_strv words = {0}, env = {0};
    hb_program_env(p, &words);
    hb_spawn_clean_env(&words, &env);
    hb_strv_extend(&env, &words);
    char *log = hb_xasprintf("%s/%s", p->workdir, logname);
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    struct hb_spawn sp = {.argv = argv, .envp = env.v, .cwd = p->workdir, .out_path = log, .err_to_out = 1};
    fflush(NULL);
    int rc = hb_spawn_run(&sp);
    free(log);
    hb_strv_free(&words), hb_strv_free(&env);
    return rc;
}

/* Prepares the work dir and runs setup. */
int hb_program_setup(struct hb_program *p, const char *workdir, char *err, size_t errlen)
{
    free(p->workdir);
    p->workdir = NULL;
    p->port = hb_free_port();
    if (hb_mkdir_p(workdir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", workdir, strerror(errno));
        return -1;
    }
    /* absolute: the program runs in it, so a relative $HB_WORKDIR (from -o DIR) would name DIR/DIR */
    p->workdir = realpath(workdir, NULL);
    if (!p->workdir)
        p->workdir = hb_xstrdup(workdir);
    p->setup_done = 1;
    int rc = p->setup && *p->setup ? hb_program_sh(p, p->setup, "setup.log") : 0;
    if (rc != 0)
        snprintf(err, errlen, "setup of prog:%s failed (exit %d), see %s/setup.log", p->name, rc, workdir);
    return rc ? -1 : 0;
}

/* Runs cleanup once after a setup. */
void hb_program_cleanup(struct hb_program *p)
{
    if (!p->setup_done)
        return;
    p->setup_done = 0;
    if (p->cleanup && *p->cleanup && hb_program_sh(p, p->cleanup, "cleanup.log") != 0)
        fprintf(stderr, "heapbench: cleanup of prog:%s failed, see %s/cleanup.log\n", p->name, p->workdir);
}

/* Frees p's members. */
void hb_program_free(struct hb_program *p)
{
    free(p->name), free(p->description), free(p->package), free(p->setup), free(p->command);
    free(p->ready), free(p->driver), free(p->cleanup), free(p->metric), free(p->matrix), free(p->missing);
    free(p->workdir);
    hb_strv_free(&p->requires);
}
