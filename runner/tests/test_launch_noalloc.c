/* test_launch_noalloc.c - proves hb_launch()'s contract that the child allocates nothing between
 * fork() and execve(): this program interposes malloc/calloc/realloc/free (forwarding to glibc's
 * __libc_* entry points) and counts, in memory shared with the parent, every call made in a
 * forked child before its exec replaces the image.
 * Always holds: the counting is armed by a pthread_atfork child handler, so only fork()ed
 * children count (posix_spawn helpers and the exec'd program never run this code). */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "tcheck.h"
#include "test_launch_util.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static int tn_in_forked_child;    /* set in the child by the atfork handler */
static atomic_int *tn_child_calls; /* shared with the children (MAP_SHARED) */

/* Counts one allocator call when made by a forked child before its exec. */
static void tn_count(void)
{
    if (tn_in_forked_child && tn_child_calls)
        atomic_fetch_add(tn_child_calls, 1);
}

/* The interposed allocator (malloc, calloc, realloc, free): count, then forward to glibc. */
void *malloc(size_t n)
{
    tn_count();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    tn_count();
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    tn_count();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    tn_count();
    __libc_free(p);
}

/* pthread_atfork child handler: from here on this process is a forked child. */
static void tn_on_fork_child(void)
{
    tn_in_forked_child = 1;
}

/* With an argument: the exec'd child (prints it). Else: self-check, then the launch checks. */
int main(int argc, char **argv)
{
    if (argc > 1) /* the exec'd child: print something and exit */
        return puts(argv[1]) < 0;
    tn_child_calls = mmap(NULL, sizeof *tn_child_calls, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    TCHECK("shared counter mapped", tn_child_calls != MAP_FAILED);
    if (tn_child_calls == MAP_FAILED)
        return tcheck_summary();
    pthread_atfork(NULL, NULL, tn_on_fork_child);

    /* Self-check: an allocation in a forked child is seen, so a 0 below means something. */
    pid_t pid = fork();
    if (pid == 0) {
        void *volatile block = malloc(16); /* volatile: the compiler may not elide the pair */
        free(block);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    TCHECK("self-check: a forked child's malloc+free counted", atomic_load(tn_child_calls) == 2);
    atomic_store(tn_child_calls, 0);

    /* Every option that makes the child do work before exec: output file, cwd, pin, phases. */
    char out[256];
    cpu_set_t one;
    struct hb_result r;
    snprintf(out, sizeof out, "%s/out", tl_tmpdir());
    char *args[] = {(char *)tl_self(), "hello", NULL};
    struct hb_launch_spec s = tl_spec(args, 10);
    s.stdout_path = out;
    s.cwd = "/";
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    s.pin = &one;
    int rc = hb_launch(&s, &r);
    TCHECK("launch with every option ok", rc == 0 && r.status == HB_OK);
    TCHECK("no allocation in the child between fork and exec", atomic_load(tn_child_calls) == 0);
    hb_result_free(&r);

    char *missing[] = {"/tmp", NULL}; /* exec fails: the error path must not allocate either */
    s.argv = missing;
    rc = hb_launch(&s, &r);
    TCHECK("exec failure path: no allocation in the child", rc == -1 && atomic_load(tn_child_calls) == 0);
    unlink(out);
    rmdir(tl_tmpdir());
    return tcheck_summary();
}
