/* os-costs.c - the operating-system costs under an allocator: a syscall, sbrk(16), malloc(16), lazy sbrk'd memory, page faults.
 *
 * Claims checked (article 004, its machine): a syscall costs ~575 ns, sbrk(16) ~610 ns,
 * malloc(16) ~26.9 ns; after sbrk of 1 GiB the process's RSS is only 1308 KiB (memory is lazy:
 * nothing is resident until touched); touching 256 MiB costs 65,536 page faults (one per 4 KiB).
 * Phases, in this order:
 *   `syscall`   --calls raw syscall(SYS_getppid) (no libc caching; ops = calls),
 *   `sbrk-16`   --calls sbrk(16) (each one a brk system call; the break is put back afterwards),
 *   `sbrk-big`  one sbrk(--sbrk-mib MiB), the record written while it is held (rss_kb = RSS then;
 *               compare with the rss_kb of `sbrk-16`, taken just before),
 *   `malloc-16` --calls malloc(16), held (ops = calls; live_bytes = calls x 16),
 *   `free-16`   their frees (live 0),
 *   `touch`     one write per 4 KiB page of a fresh --touch-mib MiB anonymous mapping; ops = the
 *               minor page faults it cost (getrusage), not the pages.
 * Always holds: the break is restored only when nothing else moved it (else the untouched
 * address space is left, harmless); live_bytes counts only malloc'd bytes still held; verify
 * fails when a system call, sbrk or malloc fails. */
#include "wl_args.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct wl_param oc_params[] = {
    WL_INT("calls", "1000000", "20000", 1, 100000000, "calls timed per micro-cost (syscall, sbrk(16), malloc(16))"),
    WL_INT("sbrk-mib", "1024", "64", 1, 1 << 20, "MiB added to the break at once (never touched)"),
    WL_INT("touch-mib", "256", "16", 1, 1 << 20, "MiB of fresh anonymous memory touched page by page"),
};

static struct wl_prog oc_prog =
    WL_PROG("os-costs", "micro-costs: a syscall, sbrk(16), malloc(16), RSS after sbrk of 1 GiB, faults per 256 MiB touched", oc_params);

/* Puts the break back to base when it stands exactly `added` bytes above it (nobody else moved it). */
static void oc_restore_break(char *base, intptr_t added)
{
    if ((char *)sbrk(0) == base + added)
        sbrk(-added);
}

/* `syscall` phase: n raw getppid system calls; returns how many failed. */
static unsigned long long oc_syscalls(long long n)
{
    unsigned long long bad = 0;
    double t0 = wl_now();
    for (long long i = 0; i < n; i++)
        bad += syscall(SYS_getppid) <= 0;
    wl_phase("syscall", t0, (uint64_t)n, 0);
    return bad;
}

/* `sbrk-16` phase: n sbrk(16) calls, then the break put back; returns how many failed. */
static unsigned long long oc_sbrk16(long long n)
{
    unsigned long long bad = 0;
    char *base = sbrk(0);
    double t0 = wl_now();
    for (long long i = 0; i < n; i++)
        bad += sbrk(16) == (void *)-1;
    double t1 = wl_now();
    oc_restore_break(base, (intptr_t)(16 * (n - (long long)bad)));
    wl_phase("sbrk-16", wl_now() - (t1 - t0), (uint64_t)n, 0);
    return bad;
}

/* `malloc-16` and `free-16` phases: n malloc(16) held, then freed; returns how many failed. */
static unsigned long long oc_malloc16(long long n)
{
    void **p = calloc((size_t)n, sizeof *p);
    if (!p)
        return 1;
    unsigned long long bad = 0;
    double t0 = wl_now();
    for (long long i = 0; i < n; i++)
        p[i] = malloc(16);
    t0 = wl_phase("malloc-16", t0, (uint64_t)n, (uint64_t)n * 16);
    for (long long i = 0; i < n; i++) {
        bad += p[i] == NULL;
        free(p[i]);
    }
    wl_phase("free-16", t0, (uint64_t)n, 0);
    free(p);
    return bad;
}

/* `sbrk-big` phase: the break raised by mib MiB at once, its record written while held. */
static unsigned long long oc_sbrk_big(long long mib)
{
    intptr_t bytes = (intptr_t)mib << 20;
    char *base = sbrk(0);
    double t0 = wl_now();
    int bad = sbrk(bytes) == (void *)-1;
    wl_phase("sbrk-big", t0, 1, 0);
    if (!bad)
        oc_restore_break(base, bytes);
    return (unsigned long long)bad;
}

/* `touch` phase: one write per 4 KiB page of a fresh mib-MiB mapping; ops = minor faults taken. */
static unsigned long long oc_touch(long long mib)
{
    size_t bytes = (size_t)mib << 20;
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    long f0 = wl_minflt();
    double t0 = wl_now();
    for (size_t off = 0; off < bytes; off += 4096)
        ((volatile char *)m)[off] = 1;
    long faults = wl_minflt() - f0;
    wl_phase("touch", t0, (uint64_t)faults, 0);
    munmap(m, bytes);
    return 0;
}

/* The six phases in order, then verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&oc_prog, argc, argv);
    wl_served_by();
    long long n = wl_arg("calls");
    unsigned long long bad = oc_syscalls(n);
    bad += oc_sbrk16(n);
    bad += oc_sbrk_big(wl_arg("sbrk-mib"));
    bad += oc_malloc16(n);
    bad += oc_touch(wl_arg("touch-mib"));
    char detail[128];
    snprintf(detail, sizeof detail, "calls=%lld sbrk_mib=%lld touch_mib=%lld bad=%llu", n, wl_arg("sbrk-mib"),
             wl_arg("touch-mib"), bad);
    return wl_verify(bad == 0, detail);
}
