/* spawner.h - the one way the runner starts a helper process (setup and cleanup scripts, ready
 * checks and drivers, captured commands like git and dpkg-query, exec's hyperfine.py): posix_spawn
 * with a clean signal state. The measured process itself is started by launch.c, not here.
 *
 * Always holds: a helper starts with every signal at its default action and an empty signal
 * mask (the runner ignores SIGPIPE and handles SIGINT/SIGTERM; a helper inherits neither);
 * argv[0] is looked up in envp's PATH (resolve.h) before the spawn; nothing runs in the child
 * between fork and exec but posix_spawn's own file actions.
 */
#ifndef HEAPBENCH_SPAWNER_H
#define HEAPBENCH_SPAWNER_H

#include <sys/types.h>

#include "base/util.h"

/* What to start. Zero-initialised = inherit everything from the runner. */
struct hb_spawn {
    char *const *argv;     /* argv[0]: a path, or a name looked up in envp's PATH */
    char *const *envp;     /* NULL: the runner's environ */
    const char *cwd;       /* NULL: the runner's */
    const char *in_path;   /* NULL: inherit stdin; else opened read-only on fd 0 */
    int in_fd;             /* > 0: dup2'ed onto stdin instead (e.g. a pipe's read end) */
    const char *out_path;  /* NULL: inherit stdout; else opened for appending (created 0644) */
    int out_fd;            /* > 0: dup2'ed onto stdout instead (e.g. a pipe's write end) */
    int err_to_out;        /* 1: stderr goes where stdout goes */
    int err_null;          /* 1: stderr to /dev/null */
    int new_group;         /* 1: the helper leads a new process group (killable as one) */
};

/* Starts the helper. Returns 0 with *pid set, or an errno value (ENOENT, EACCES...) when it
 * could not be started (nothing left running). */
int hb_spawn_start(const struct hb_spawn *s, pid_t *pid);

/* Waits for pid (retrying on EINTR); returns its exit status, 128+signal when a signal killed
 * it, or -1 when it cannot be waited for. */
int hb_spawn_wait(pid_t pid);

/* hb_spawn_start() then hb_spawn_wait(): the exit status, 128+signal, or -1 when it could not
 * be started. */
int hb_spawn_run(const struct hb_spawn *s);

/* Appends to envp the runner's environment without the variables that belong to one measured
 * process (LD_PRELOAD, HEAPBENCH_PHASE_FD, HEAPBENCH_PROBE_PPID) and without every NAME that an
 * entry NAME=... of drop sets (the caller appends drop's own values where it wants them). */
void hb_spawn_clean_env(const struct hb_strv *drop, struct hb_strv *envp);

#endif
