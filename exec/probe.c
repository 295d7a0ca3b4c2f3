/* probe.c - libhbprobe.so, the LD_PRELOAD probe of `heapbench exec`: tells the runner which
 * shared object serves malloc in a program that is not ours, and which allocator of its own
 * the program may call besides (contract/ownalloc.h).
 *
 * The runner puts it AFTER the allocator in LD_PRELOAD (alone for glibc). Its constructor
 * writes one record, `served_by<TAB>path\n` (docs/DATA.md), with a single write(2) to the fd
 * named by HEAPBENCH_PHASE_FD, then one `own_allocator<TAB>NAME<TAB>path` record per allocator
 * entry point of contract/ownalloc.h that binds to an object other than malloc's (and than the
 * objects malloc's object needs: tbbmalloc's proxy calls scalable_malloc in libtbbmalloc); when
 * there is one, an exit handler writes `own_share<TAB>FRACTION`: 1 - the bytes that allocator
 * holds (mimalloc's current commit, a prefixed jemalloc's stats.resident) / the process's
 * anonymous memory (/proc/self/smaps_rollup), the share left to the preloaded allocator and the
 * rest of the process. Records are written only when all of these hold:
 *   - HEAPBENCH_PHASE_FD is set and that fd is a pipe (a program that closed it and opened a
 *     file under the same number, then exec'd, never gets a line written into its file);
 *   - HEAPBENCH_PROBE_PPID, if set, is the pid of this process's parent: the runner sets it to
 *     its own pid, so the processes the program starts (which inherit LD_PRELOAD, the
 *     environment and often the fd) stay silent;
 *   - HEAPBENCH_PROBE_PID, if set, is this process's pid (for a runner that can fill it in
 *     after fork).
 * Invariants: it exports nothing but its constructor's effect; it changes no environment
 * variable, keeps errno, allocates nothing and calls nothing that allocates; the only file it
 * opens is /proc/self/smaps_rollup, at exit, and only for a program found with an own allocator.
 * When malloc comes from the main program, path is /proc/self/exe resolved; a relative
 * library path (a relative LD_PRELOAD entry) is made absolute with the working directory.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ownalloc.h"

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

/* The address of the function `name` when object m defines it (not merely references it),
 * found through its GNU hash table, or its SysV hash table when it has no GNU one; else NULL. */
static void *hbprobe_lookup(const struct link_map *m, const char *name)
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
        return NULL;
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
            return (void *)(m->l_addr + syms[i].st_value);
    return NULL;
}

/* The first object in the lookup order (main program, LD_PRELOAD entries, their dependencies)
 * that defines name: where a call to it binds. Not dlsym(RTLD_DEFAULT): for a non-PIE program
 * that takes the function's address it answers the program's own PLT stub. */
static const struct link_map *hbprobe_binder(const char *name)
{
    const struct link_map *m = _r_debug.r_map;
    while (m && !hbprobe_lookup(m, name))
        m = m->l_next;
    return m;
}

/* Writes into out (size cap) the absolute path of object m. Returns 0 on success. */
static int hbprobe_object_path(const struct link_map *m, char *out, size_t cap)
{
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

/* The fd to report on, or -1 when this process must stay silent (see the banner). */
static int hbprobe_fd(void)
{
    long fd = hbprobe_env_long("HEAPBENCH_PHASE_FD");
    struct stat st;
    return fd >= 0 && fd <= INT_MAX && hbprobe_is_measured() && fstat((int)fd, &st) == 0 && S_ISFIFO(st.st_mode)
               ? (int)fd : -1;
}

/* Writes line (without its newline) as one record; nothing to do about a failed write: the
 * runner then sees no such record. */
static void hbprobe_write(int fd, char *line)
{
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t w = write(fd, line, len);
    (void)w;
}

/* 1 when object m is one that object owner names in its DT_NEEDED entries (by file name). */
static int hbprobe_needed_by(const struct link_map *owner, const struct link_map *m)
{
    const char *strs = NULL, *base = strrchr(m->l_name, '/');
    base = base ? base + 1 : m->l_name;
    for (const ElfW(Dyn) *d = owner->l_ld; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strs = hbprobe_dyn_ptr(owner, d->d_un.d_ptr);
    for (const ElfW(Dyn) *d = owner->l_ld; strs && *base && d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && strcmp(strs + d->d_un.d_val, base) == 0)
            return 1;
    return 0;
}

/* The own allocator found at start-up, read again at exit (NULL: none). */
static const struct link_map *hbprobe_own_object;

/* Bytes the own allocator holds now, from its statistics API; 0 when it has none the probe reads. */
static double hbprobe_own_bytes(void)
{
    const struct link_map *m = hbprobe_own_object;
    void *fn = hbprobe_lookup(m, "mi_process_info");
    if (fn) {
        size_t v[8] = {0};
        ((void (*)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *))fn)(
            &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
        return (double)v[5]; /* current_commit */
    }
    static const char *const ctl[] = {"je_mallctl", "_rjem_mallctl"};
    for (size_t i = 0; i < 2; i++) {
        int (*mallctl)(const char *, void *, size_t *, void *, size_t) = (int (*)(const char *, void *, size_t *,
                                                                                  void *, size_t))hbprobe_lookup(m, ctl[i]);
        uint64_t epoch = 1;
        size_t resident = 0, sz = sizeof epoch;
        if (mallctl && mallctl("epoch", &epoch, &sz, &epoch, sizeof epoch) == 0 &&
            (sz = sizeof resident, mallctl("stats.resident", &resident, &sz, NULL, 0)) == 0)
            return (double)resident;
    }
    return 0;
}

/* The process's anonymous memory in bytes (/proc/self/smaps_rollup's Anonymous), 0 if unread. */
static double hbprobe_anon_bytes(void)
{
    char buf[4096];
    int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *at = strstr(buf, "\nAnonymous:");
    return at ? strtod(at + 11, NULL) * 1024 : 0;
}

/* At exit: the own_share record, when the own allocator has statistics the probe reads. */
static void hbprobe_share(void)
{
    int saved = errno, fd = hbprobe_fd();
    double own = hbprobe_own_bytes(), anon = hbprobe_anon_bytes();
    char line[HBPROBE_LINE];
    if (fd >= 0 && own > 0 && anon > 0) {
        double share = own >= anon ? 0 : 1 - own / anon;
        snprintf(line, sizeof line, "%s\t%.4f", HB_TAG_OWN_SHARE, share);
        hbprobe_write(fd, line);
    }
    errno = saved;
}

/* The own_allocator records of the entry points that bind outside malloc's object m. */
static void hbprobe_own(int fd, const struct link_map *malloc_obj)
{
    char line[HBPROBE_LINE];
    for (size_t i = 0; i < HB_OWN_NENTRIES; i++) {
        const struct link_map *m = hbprobe_binder(hb_own_entries[i].symbol);
        int dup = 0;
        for (size_t k = 0; k < i; k++)
            dup |= strcmp(hb_own_entries[k].allocator, hb_own_entries[i].allocator) == 0 &&
                   hbprobe_binder(hb_own_entries[k].symbol) == m;
        if (!m || m == malloc_obj || hbprobe_needed_by(malloc_obj, m) || dup)
            continue;
        int len = snprintf(line, sizeof line, "%s\t%s\t", HB_TAG_OWN_ALLOCATOR, hb_own_entries[i].allocator);
        if (hbprobe_object_path(m, line + len, sizeof line - (size_t)len - 1) != 0)
            continue;
        hbprobe_write(fd, line);
        if (!hbprobe_own_object) {
            hbprobe_own_object = m;
            atexit(hbprobe_share);
        }
    }
}

/* Runs when the program is loaded: writes the served_by and own_allocator records when asked
 * to (see the banner). */
__attribute__((constructor)) static void hbprobe_report(void)
{
    int saved = errno, fd = hbprobe_fd();
    static const char tag[] = "served_by\t";
    char line[HBPROBE_LINE];
    const struct link_map *malloc_obj = hbprobe_binder("malloc");
    if (fd >= 0 && hbprobe_object_path(malloc_obj, line + sizeof tag - 1, sizeof line - sizeof tag - 1) == 0) {
        memcpy(line, tag, sizeof tag - 1);
        hbprobe_write(fd, line);
        hbprobe_own(fd, malloc_obj);
    }
    errno = saved;
}
