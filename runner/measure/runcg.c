/* runcg.c - the run's cgroup and its guard (see runcg.h).
 *
 * Always holds: a cgroup directory is only created here, named heapbench-<runner pid>[-N] under
 * the runner's own cgroup, and only removed here or by the guard; every file write is one
 * write(2) of a short decimal text.
 */
#include "measure/runcg.h"

#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/reaper.h"
#include "base/spawner.h"
#include "base/util.h"

/* Writes text to dir/name; 0 or an errno value. */
static int hb_runcg_write(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t n = write(fd, text, strlen(text));
    int err = n == (ssize_t)strlen(text) ? 0 : n < 0 ? errno : EIO;
    close(fd);
    return err;
}

/* Reads dir/name into buf (NUL-terminated, "" when unreadable). */
static void hb_runcg_read(const char *dir, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hb_read_small(path, buf, len);
}

/* The mount point of the cgroup hierarchy of type ("cgroup2", or "cgroup" with option opt). */
static int hb_runcg_mount(const char *type, const char *opt, char *out, size_t len)
{
    FILE *f = setmntent("/proc/self/mounts", "r");
    int found = 0;
    for (struct mntent *m; f && !found && (m = getmntent(f)) != NULL;)
        if (strcmp(m->mnt_type, type) == 0 && (!opt || hasmntopt(m, opt))) {
            snprintf(out, len, "%s", m->mnt_dir);
            found = 1;
        }
    if (f)
        endmntent(f);
    return found ? 0 : -1;
}

/* The runner's cgroup path in the hierarchy whose /proc/self/cgroup line is "N:ctl,...:/path" (ctl
 * "": the v2 line "0::/path"). */
static int hb_runcg_self(const char *ctl, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[PATH_MAX + 64];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        struct hb_strv ctls = {0};
        hb_strv_split(&ctls, c1 + 1, ",", 0);
        found = *ctl ? hb_strv_find(&ctls, ctl) >= 0 : strncmp(line, "0:", 2) == 0 && c2 == c1 + 1;
        hb_strv_free(&ctls);
        if (found)
            snprintf(out, len, "%s", c2 + 1);
    }
    if (f)
        fclose(f);
    return found ? 0 : -1;
}

/* Creates heapbench-<pid>[-N] under the runner's cgroup of one hierarchy into cg->dir; 0 or -1. */
static int hb_runcg_mkdir(struct hb_runcg *cg, const char *type, const char *opt, const char *ctl)
{
    char mnt[PATH_MAX / 2], self[PATH_MAX / 2];
    if (hb_runcg_mount(type, opt, mnt, sizeof mnt) != 0 || hb_runcg_self(ctl, self, sizeof self) != 0)
        return -1;
    for (int n = 0; n < 100; n++) {
        snprintf(cg->dir, sizeof cg->dir, n ? "%s%s/heapbench-%d-%d" : "%s%s/heapbench-%d", mnt,
                 strcmp(self, "/") == 0 ? "" : self, (int)getpid(), n);
        if (mkdir(cg->dir, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    cg->dir[0] = '\0';
    return -1;
}

/* Writes the memory limit (and no swap) into the new cgroup; 0 or -1 (the cgroup is then removed). */
static int hb_runcg_limit(struct hb_runcg *cg, const char *max_file, const char *swap_file, const char *swap_text)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", cg->limit);
    if (cg->limit && hb_runcg_write(cg->dir, max_file, text) != 0) {
        rmdir(cg->dir);
        cg->dir[0] = '\0';
        return -1;
    }
    hb_runcg_write(cg->dir, swap_file, swap_text); /* absent without swap accounting: nothing to stop */
    cg->limited = cg->limit != 0;
    return 0;
}

/* Tries the mechanisms of runcg.h in order; sets version and how. */
static void hb_runcg_create(struct hb_runcg *cg)
{
    char parent[PATH_MAX], ctls[256] = "";
    if (hb_runcg_mkdir(cg, "cgroup2", NULL, "") == 0) {
        snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(cg->dir, '/') - cg->dir), cg->dir);
        hb_runcg_read(parent, "cgroup.subtree_control", ctls, sizeof ctls);
        struct hb_strv c = {0};
        hb_strv_split(&c, ctls, " \n", 0);
        int memory = hb_strv_find(&c, "memory") >= 0;
        hb_strv_free(&c);
        if (memory && hb_runcg_limit(cg, "memory.max", "memory.swap.max", "0") == 0) {
            cg->version = 2, cg->how = "cgroup v2 (memory.max of the run's cgroup)";
            return;
        }
        if (cg->dir[0]) /* no memory controller here: v1's memory hierarchy may have it */
            rmdir(cg->dir), cg->dir[0] = '\0';
    }
    if (hb_runcg_mkdir(cg, "cgroup", "memory", "memory") == 0 &&
        hb_runcg_limit(cg, "memory.limit_in_bytes", "memory.swappiness", "0") == 0) {
        cg->version = 1, cg->how = "cgroup v1 memory (memory.limit_in_bytes of the run's cgroup)";
        return;
    }
    if (hb_runcg_mkdir(cg, "cgroup2", NULL, "") == 0) {
        cg->version = 2, cg->how = "cgroup v2 without the memory controller (the limit is RLIMIT_DATA)";
        return;
    }
    cg->how = "none: no writable cgroup (process groups, PR_SET_PDEATHSIG and the subreaper; the limit is RLIMIT_DATA)";
}

/* fd moved to a CLOEXEC descriptor above stdio (a runner started with stdin closed gets a pipe
 * end as fd 0, which the guard's stdin would not be). */
static int hb_runcg_above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return hi;
}

/* Starts the guard of cg->dir on a pipe whose write end the runner keeps; 0 or -1. */
static int hb_runcg_guard(struct hb_runcg *cg)
{
    char exe[PATH_MAX];
    int p[2];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || pipe2(p, O_CLOEXEC) != 0)
        return -1;
    p[0] = hb_runcg_above_stdio(p[0]);
    p[1] = hb_runcg_above_stdio(p[1]);
    if (p[0] < 0 || p[1] < 0) {
        if (p[0] >= 0)
            close(p[0]);
        if (p[1] >= 0)
            close(p[1]);
        return -1;
    }
    exe[n] = '\0';
    char *argv[] = {exe, "cgroup-guard", cg->dir, NULL};
    /* stdout and stderr to /dev/null: a caller reading the runner's output ($(heapbench ...)) must not
     * wait for the guard */
    struct hb_spawn s = {.argv = argv, .in_fd = p[0], .out_path = "/dev/null", .err_to_out = 1, .new_group = 1};
    int err = hb_spawn_start(&s, &cg->guard_pid);
    close(p[0]);
    if (err != 0) {
        close(p[1]);
        return -1;
    }
    cg->guard_fd = p[1];
    hb_reaper_spare(cg->guard_pid);
    return 0;
}

/* Creates the cgroup and its guard (runcg.h). */
void hb_runcg_open(struct hb_runcg *cg, unsigned long long limit)
{
    memset(cg, 0, sizeof *cg);
    cg->guard_fd = -1;
    cg->limit = limit;
    const char *env = getenv("HEAPBENCH_CGROUP");
    if (env && strcmp(env, "off") == 0) {
        cg->how = "none: HEAPBENCH_CGROUP=off (process groups, PR_SET_PDEATHSIG and the subreaper; the limit is RLIMIT_DATA)";
        return;
    }
    hb_runcg_create(cg);
    if (cg->version && hb_runcg_guard(cg) != 0) {
        rmdir(cg->dir);
        memset(cg, 0, sizeof *cg);
        cg->guard_fd = -1;
        cg->how = "none: the cgroup's guard could not be started (process groups, PR_SET_PDEATHSIG and the "
                  "subreaper; the limit is RLIMIT_DATA)";
    }
}

/* Moves pid into the cgroup (runcg.h). */
int hb_runcg_join(const struct hb_runcg *cg, pid_t pid)
{
    char text[24];
    snprintf(text, sizeof text, "%d", (int)pid);
    return cg && cg->version ? hb_runcg_write(cg->dir, "cgroup.procs", text) : 0;
}

/* The OOM-kill counter (runcg.h). */
unsigned long long hb_runcg_oom_kills(const struct hb_runcg *cg)
{
    char buf[1024];
    unsigned long long n = 0;
    if (!cg || !cg->limited)
        return 0;
    hb_runcg_read(cg->dir, cg->version == 2 ? "memory.events" : "memory.oom_control", buf, sizeof buf);
    const char *at = strstr(buf, "oom_kill ");
    if (at)
        sscanf(at + 9, "%llu", &n);
    return n;
}

static double hb_runcg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Kills the processes of dir/cgroup.procs until it lists none (bounded); how many were found. */
static int hb_runcg_empty_dir(const char *dir)
{
    char buf[65536];
    int found = 0;
    double until = hb_runcg_now() + HB_RUNCG_BOUND_S;
    for (;;) {
        hb_runcg_read(dir, "cgroup.procs", buf, sizeof buf);
        if (!buf[0] || hb_runcg_now() >= until)
            return found;
        for (char *s = buf, *end; *s; s = end) {
            long pid = strtol(s, &end, 10);
            if (end == s)
                break;
            if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
                found++;
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) /* the runner reaps its own (it is their subreaper) */
            ;
        usleep(10000);
    }
}

int hb_runcg_empty(const struct hb_runcg *cg)
{
    return cg && cg->version ? hb_runcg_empty_dir(cg->dir) : 0;
}

/* Empties dir and removes it (retrying while its last processes are being torn down). */
static void hb_runcg_remove_dir(const char *dir)
{
    double until = hb_runcg_now() + HB_RUNCG_BOUND_S;
    hb_runcg_empty_dir(dir);
    while (rmdir(dir) != 0 && errno == EBUSY && hb_runcg_now() < until)
        usleep(10000);
}

/* Removes the cgroup, then lets the guard go (runcg.h). */
void hb_runcg_close(struct hb_runcg *cg)
{
    if (!cg->version || cg->guard_fd < 0)
        return;
    hb_runcg_remove_dir(cg->dir);
    close(cg->guard_fd);
    hb_spawn_wait(cg->guard_pid);
    cg->guard_fd = -1;
}

/* The guard (runcg.h): survives the signals a terminal sends to the runner's group; refuses a
 * directory that is not a run's cgroup (it would kill every process in it). */
int hb_runcg_guard_main(const char *dir)
{
    static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    const char *base = dir ? strrchr(dir, '/') : NULL;
    char buf[64];
    if (!base || strncmp(base + 1, "heapbench-", 10) != 0)
        hb_usage("cgroup-guard: '%s' is not a run's cgroup (.../heapbench-PID); the runner starts this itself",
                 dir ? dir : "");
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        signal(ignored[i], SIG_IGN);
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
    }
    if (access(dir, F_OK) == 0)
        hb_runcg_remove_dir(dir);
    return 0;
}
