/* spawner.c - starts helper processes with posix_spawn (see spawner.h).
 *
 * Always holds: every attribute and file action is destroyed on every path; a helper that
 * could not be started leaves no child behind.
 */
#include "base/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

#include "base/resolve.h"

extern char **environ;

/* The helper's fds 0, 1 and 2 as s asks. */
static void hb_spawn_files(const struct hb_spawn *s, posix_spawn_file_actions_t *fa)
{
    if (s->in_fd > 0)
        posix_spawn_file_actions_adddup2(fa, s->in_fd, 0);
    else if (s->in_path)
        posix_spawn_file_actions_addopen(fa, 0, s->in_path, O_RDONLY, 0);
    if (s->out_fd > 0)
        posix_spawn_file_actions_adddup2(fa, s->out_fd, 1);
    else if (s->out_path)
        posix_spawn_file_actions_addopen(fa, 1, s->out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (s->err_null)
        posix_spawn_file_actions_addopen(fa, 2, "/dev/null", O_WRONLY, 0);
    else if (s->err_to_out)
        posix_spawn_file_actions_adddup2(fa, 1, 2);
    if (s->cwd)
        posix_spawn_file_actions_addchdir_np(fa, s->cwd);
}

/* Starts s (spawner.h). */
int hb_spawn_start(const struct hb_spawn *s, pid_t *pid)
{
    char path[PATH_MAX];
    char *const *envp = s->envp ? s->envp : environ;
    if (hb_resolve_program(s->argv[0], hb_env_path(envp), path, sizeof path) != 0)
        return errno;
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(&at);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (s->new_group ? POSIX_SPAWN_SETPGROUP : 0);
    posix_spawnattr_setflags(&at, flags);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawn_file_actions_init(&fa);
    hb_spawn_files(s, &fa);
    int rc = posix_spawn(pid, path, &fa, &at, s->argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

/* Waits for pid (spawner.h). */
int hb_spawn_wait(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Starts and waits (spawner.h). */
int hb_spawn_run(const struct hb_spawn *s)
{
    pid_t pid;
    return hb_spawn_start(s, &pid) == 0 ? hb_spawn_wait(pid) : -1;
}

/* 1 when entry NAME=... names one of the words' NAMEs. */
static int hb_env_named(const char *entry, const struct hb_strv *words)
{
    size_t len = strcspn(entry, "=");
    for (size_t i = 0; words && i < words->n; i++)
        if (strncmp(words->v[i], entry, len) == 0 && words->v[i][len] == '=')
            return 1;
    return 0;
}

/* environ minus the measured-process variables and drop's names (spawner.h). */
void hb_spawn_clean_env(const struct hb_strv *drop, struct hb_strv *envp)
{
    char *names[] = {"LD_PRELOAD=", "HEAPBENCH_PHASE_FD=", "HEAPBENCH_PROBE_PPID=", NULL};
    const struct hb_strv ours = {names, 3, 3};
    for (char **e = environ; *e; e++)
        if (!hb_env_named(*e, &ours) && !hb_env_named(*e, drop))
            hb_strv_push(envp, *e);
}
