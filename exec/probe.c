/* probe.c - libhbprobe.so, the LD_PRELOAD probe of `heapbench exec`: tells the runner which
 * shared object serves malloc in a program that is not ours.
 *
 * The runner puts it AFTER the allocator in LD_PRELOAD (alone for glibc). Its constructor
 * writes one record, `served_by<TAB>path\n` (docs/DATA.md), with a single write(2) to the fd
 * named by HEAPBENCH_PHASE_FD, and only when all of these hold:
 *   - HEAPBENCH_PHASE_FD is set and that fd is a pipe (a program that closed it and opened a
 *     file under the same number, then exec'd, never gets a line written into its file);
 *   - HEAPBENCH_PROBE_PPID, if set, is the pid of this process's parent: the runner sets it to
 *     its own pid, so the processes the program starts (which inherit LD_PRELOAD, the
 *     environment and often the fd) stay silent;
 *   - HEAPBENCH_PROBE_PID, if set, is this process's pid (for a runner that can fill it in
 *     after fork).
 * Invariants: it exports nothing but its constructor's effect; it changes no environment
 * variable, opens no file, keeps errno, allocates nothing and calls nothing that allocates.
 * When malloc comes from the main program, path is /proc/self/exe resolved; a relative
 * library path (a relative LD_PRELOAD entry) is made absolute with the working directory.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HBPROBE_LINE 512 /* a phase record is at most 512 bytes (atomic on a pipe) */

/* The non-negative integer value of environment variable name; -1 when unset or not a number. */
static long hbprobe_env_long(const char *name)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return -1;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n >= 0 ? n : -1;
}

/* 1 when this process is the one the runner asked to report from (see the banner). */
static int hbprobe_is_measured(void)
{
    long ppid = hbprobe_env_long("HEAPBENCH_PROBE_PPID"), pid = hbprobe_env_long("HEAPBENCH_PROBE_PID");
    if (getenv("HEAPBENCH_PROBE_PPID") && ppid != (long)getppid())
        return 0;
    if (getenv("HEAPBENCH_PROBE_PID") && pid != (long)getpid())
        return 0;
    return 1;
}

/* An address from object m's dynamic section: relocated by ld.so, except in the vDSO. */
static const void *hbprobe_dyn_ptr(const struct link_map *m, ElfW(Addr) ptr)
{
    return (const void *)(ptr < m->l_addr ? ptr + m->l_addr : ptr);
}

/* 1 when object m defines (not merely references) the function `name`, found through its
 * GNU hash table, or its SysV hash table when it has no GNU one. */
static int hbprobe_defines(const struct link_map *m, const char *name)
{
    const ElfW(Sym) *syms = NULL;
    const char *strs = NULL;
    const uint32_t *gnu = NULL, *sysv = NULL;
    for (const ElfW(Dyn) *d = m->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            syms = hbprobe_dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strs = hbprobe_dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_GNU_HASH)
            gnu = hbprobe_dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_HASH)
            sysv = hbprobe_dyn_ptr(m, d->d_un.d_ptr);
    }
    if (!syms || !strs || (!gnu && !sysv))
        return 0;
    uint32_t first = 0, count = 0; /* the symbol indexes to look at: [first, first + count) */
    if (gnu) { /* GNU hash: nbuckets, symoffset, bloom words, shift; then buckets and chains */
        uint32_t h = 5381;
        for (const unsigned char *c = (const unsigned char *)name; *c; c++)
            h = h * 33 + *c;
        const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(gnu + 4) + gnu[2]);
        const uint32_t *chain = buckets + gnu[0] - gnu[1];
        first = buckets[h % gnu[0]];
        while (first && !(chain[first + count] & 1)) /* the chain ends at an odd value */
            count++;
        count += first != 0;
    } else { /* SysV hash: nbucket, nchain (= number of symbols) */
        count = sysv[1];
    }
    for (uint32_t i = first; i < first + count; i++)
        if (syms[i].st_shndx != SHN_UNDEF && ELF64_ST_TYPE(syms[i].st_info) != STT_NOTYPE &&
            strcmp(strs + syms[i].st_name, name) == 0)
            return 1;
    return 0;
}

/* Writes into out (size cap) the absolute path of the object that serves malloc: the first
 * object in the lookup order (main program, LD_PRELOAD entries, their dependencies) that
 * defines it. Not dlsym(RTLD_DEFAULT): for a non-PIE program that takes malloc's address it
 * answers the program's own PLT stub. Returns 0 on success. */
static int hbprobe_malloc_path(char *out, size_t cap)
{
    const struct link_map *m = _r_debug.r_map;
    while (m && !hbprobe_defines(m, "malloc"))
        m = m->l_next;
    if (!m)
        return -1;
    if (m == _r_debug.r_map || m->l_name[0] == '\0') { /* the main program itself */
        ssize_t n = readlink("/proc/self/exe", out, cap - 1);
        if (n <= 0)
            return -1;
        out[n] = '\0';
        return 0;
    }
    size_t used = 0;
    if (m->l_name[0] != '/') {
        if (!getcwd(out, cap - 1))
            return -1;
        used = strlen(out);
        out[used++] = '/';
    }
    size_t len = strlen(m->l_name);
    if (used + len >= cap)
        return -1;
    memcpy(out + used, m->l_name, len + 1);
    return 0;
}

/* Runs when the program is loaded: writes the served_by record when asked to (see the banner). */
__attribute__((constructor)) static void hbprobe_report(void)
{
    int saved = errno;
    long fd = hbprobe_env_long("HEAPBENCH_PHASE_FD");
    struct stat st;
    static const char tag[] = "served_by\t";
    char line[HBPROBE_LINE];
    if (fd >= 0 && fd <= INT_MAX && hbprobe_is_measured() && fstat((int)fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
        hbprobe_malloc_path(line + sizeof tag - 1, sizeof line - sizeof tag) == 0) {
        memcpy(line, tag, sizeof tag - 1);
        size_t len = strlen(line);
        line[len++] = '\n';
        ssize_t w = write((int)fd, line, len);
        (void)w; /* nothing to do about a failed report: the runner sees no served_by line */
    }
    errno = saved;
}
