/* symbolize.c - call-site frames named from the recorded mappings with addr2line (symbolize.h).
 * Always holds: see symbolize.h; addr2line is run without a shell (its arguments are the file and
 * the addresses), with -a so that each answer names its address and a missing line cannot shift
 * the rest. */
#include "symbolize.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BATCH 512

struct mapping {
    uint64_t lo, hi, off;
    char path[512];
    int deleted;
};

/* The file-backed mappings of the text. *n: how many. NULL when out of memory (or none). */
static struct mapping *parse_maps(const char *maps, size_t *n)
{
    size_t cap = 0;
    struct mapping *v = NULL;
    *n = 0;
    for (const char *line = maps; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        line = eol ? eol + 1 : NULL;
        unsigned long long lo, hi, off;
        char perms[8];
        int path_at = 0;
        if (sscanf(buf, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &path_at) < 4 || !path_at || buf[path_at] != '/')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            struct mapping *more = realloc(v, cap * sizeof *v);
            if (!more)
                return v;
            v = more;
        }
        struct mapping *m = &v[(*n)++];
        m->lo = lo, m->hi = hi, m->off = off;
        snprintf(m->path, sizeof m->path, "%s", buf + path_at);
        char *del = strstr(m->path, " (deleted)");
        m->deleted = del != NULL;
        if (del)
            *del = '\0';
    }
    return v;
}

/* The ELF address of file offset off in path (its PT_LOAD segment); 0 with *why set when it cannot be read. */
static uint64_t elf_addr(const char *path, uint64_t off, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf64_Ehdr eh;
    uint64_t addr = 0;
    *why = "not readable";
    if (fd < 0)
        return 0;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64) {
        *why = "no loadable segment holds it";
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * (uint64_t)eh.e_phentsize)) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type == PT_LOAD && off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
                addr = off - ph.p_offset + ph.p_vaddr;
                *why = NULL;
                break;
            }
        }
    } else {
        *why = "not an ELF file";
    }
    close(fd);
    return addr;
}

/* Runs addr2line -a -f -C -e path on addrs[0..n) and fills names[idx[i]]. 0, or -1 when it cannot run. */
static int run_addr2line(const char *path, const uint64_t *addrs, const size_t *idx, size_t n, char **names)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return -1;
    char **argv = calloc(n + 7, sizeof *argv);
    char *abuf = malloc(n * 20);
    if (!argv || !abuf) {
        free(argv), free(abuf), close(pfd[0]), close(pfd[1]);
        return -1;
    }
    int a = 0;
    argv[a++] = "addr2line", argv[a++] = "-a", argv[a++] = "-f", argv[a++] = "-C", argv[a++] = "-e", argv[a++] = (char *)path;
    for (size_t i = 0; i < n; i++) {
        argv[a++] = abuf + i * 20;
        snprintf(abuf + i * 20, 20, "0x%" PRIx64, addrs[i]);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]), close(pfd[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 2);
        execvp("addr2line", argv);
        _exit(127);
    }
    close(pfd[1]);
    FILE *in = pid > 0 ? fdopen(pfd[0], "r") : NULL;
    char addr[64], fn[4096], where[4096];
    size_t got = 0;
    while (in && got < n && fgets(addr, sizeof addr, in) && fgets(fn, sizeof fn, in) && fgets(where, sizeof where, in)) {
        fn[strcspn(fn, "\n")] = '\0', where[strcspn(where, "\n")] = '\0';
        if (strcmp(fn, "??") != 0) {
            char *name = malloc(strlen(fn) + strlen(where) + 4);
            if (name) {
                if (strncmp(where, "??", 2) == 0)
                    strcpy(name, fn);
                else
                    sprintf(name, "%s (%s)", fn, where);
                free(names[idx[got]]);
                names[idx[got]] = name;
            }
        }
        got++;
    }
    if (in)
        fclose(in);
    else
        close(pfd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    free(argv), free(abuf);
    return pid > 0 ? 0 : -1;
}

int symbolize(const char *maps, const uint64_t *pcs, size_t n, char **names)
{
    size_t nm = 0;
    struct mapping *ms = maps ? parse_maps(maps, &nm) : NULL;
    int *of = calloc(n ? n : 1, sizeof *of);
    uint64_t *addrs = calloc(n ? n : 1, sizeof *addrs);
    size_t *idx = calloc(n ? n : 1, sizeof *idx);
    if (!of || !addrs || !idx) {
        free(ms), free(of), free(addrs), free(idx);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char buf[700];
        const char *why = NULL;
        of[i] = -1;
        for (size_t k = 0; k < nm; k++)
            if (pcs[i] >= ms[k].lo && pcs[i] < ms[k].hi) {
                of[i] = (int)k;
                break;
            }
        if (of[i] < 0) {
            snprintf(buf, sizeof buf, "0x%" PRIx64 " [%s]", pcs[i], maps ? "in no recorded file mapping" : "no mappings recorded");
        } else {
            struct mapping *m = &ms[of[i]];
            uint64_t off = pcs[i] - 1 - m->lo + m->off;
            const char *base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
            addrs[i] = m->deleted ? 0 : elf_addr(m->path, off, &why);
            snprintf(buf, sizeof buf, "%s+0x%" PRIx64 " [%s]", base, off,
                     m->deleted ? "the file was deleted after the run" : why ? why : "no symbols");
            if (m->deleted || why)
                of[i] = -1;
        }
        names[i] = strdup(buf);
    }
    /* one addr2line per file, its addresses in batches */
    for (size_t k = 0; k < nm; k++) {
        size_t cnt = 0;
        uint64_t *batch = malloc(BATCH * sizeof *batch);
        for (size_t i = 0; batch && i <= n; i++) {
            if (i < n && of[i] == (int)k) {
                batch[cnt] = addrs[i];
                idx[cnt++] = i;
            }
            if (cnt == BATCH || (i == n && cnt)) {
                run_addr2line(ms[k].path, batch, idx, cnt, names);
                cnt = 0;
            }
        }
        free(batch);
    }
    free(ms), free(of), free(addrs), free(idx);
    return 0;
}
