/* elfcheck.c - decides from a file's ELF headers whether LD_PRELOAD can act on a program, and
 * whether a file is a shared object the runner may preload (`--allocator NAME=PATH`).
 *
 * Always holds: only headers are read (never the whole file), nothing is executed, and every
 * "no" comes with a one-line reason in why; an unreadable program is never called impossible.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/elfcheck.h"
#include "base/resolve.h"

#if defined(__x86_64__)
#define HB_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HB_ELF_MACHINE EM_AARCH64
#elif defined(__i386__)
#define HB_ELF_MACHINE EM_386
#elif defined(__riscv)
#define HB_ELF_MACHINE EM_RISCV
#else
#define HB_ELF_MACHINE EM_NONE /* unknown build target: the machine check is skipped */
#endif
#define HB_ELF_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

/* What hb_elf_read() learns about a file. */
struct hb_elf_info {
    ElfW(Ehdr) eh;
    int has_interp;  /* PT_INTERP present */
    int has_dynamic; /* PT_DYNAMIC present */
    int is_pie;      /* DT_FLAGS_1 has DF_1_PIE: an executable, not a library */
};

/* Reads the ELF and program headers of the open fd. Returns 0; -1 with why set when it is not
 * a (complete) ELF file; -2 with why set when it is an ELF of another class or machine. */
static int hb_elf_read(int fd, struct hb_elf_info *info, char *why, size_t why_len)
{
    memset(info, 0, sizeof *info);
    ElfW(Ehdr) *eh = &info->eh;
    if (pread(fd, eh, sizeof *eh, 0) != (ssize_t)sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, why_len, "not an ELF file");
        return -1;
    }
    if (eh->e_ident[EI_CLASS] != HB_ELF_CLASS) {
        snprintf(why, why_len, "%d-bit ELF, but the runner and its allocators are %d-bit",
                 eh->e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32, (int)sizeof(void *) * 8);
        return -2;
    }
    if (HB_ELF_MACHINE != EM_NONE && eh->e_machine != HB_ELF_MACHINE) {
        snprintf(why, why_len, "ELF for another machine (e_machine %d)", eh->e_machine);
        return -2;
    }
    for (int i = 0; i < eh->e_phnum; i++) {
        ElfW(Phdr) ph;
        off_t at = (off_t)eh->e_phoff + (off_t)i * eh->e_phentsize;
        if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) {
            snprintf(why, why_len, "truncated ELF program headers");
            return -1;
        }
        info->has_interp |= ph.p_type == PT_INTERP;
        if (ph.p_type != PT_DYNAMIC)
            continue;
        info->has_dynamic = 1;
        for (off_t d = 0; d + (off_t)sizeof(ElfW(Dyn)) <= (off_t)ph.p_filesz; d += sizeof(ElfW(Dyn))) {
            ElfW(Dyn) dyn;
            if (pread(fd, &dyn, sizeof dyn, (off_t)ph.p_offset + d) != (ssize_t)sizeof dyn || dyn.d_tag == DT_NULL)
                break;
            info->is_pie |= dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE);
        }
    }
    return 0;
}

/* For a "#!" script, copies its interpreter path into interp and returns 1; else 0. */
static int hb_elf_script_interp(int fd, char *interp, size_t len)
{
    char line[256];
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return 0;
    line[n] = '\0';
    char *p = line + 2 + strspn(line + 2, " \t");
    p[strcspn(p, " \t\n")] = '\0';
    snprintf(interp, len, "%s", p);
    return *p != '\0';
}

/* The check of hb_preload_impossible() on an absolute or relative path; depth bounds "#!" chains. */
static int hb_elf_impossible_at(const char *path, char *why, size_t why_len, int depth)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* The loader ignores LD_PRELOAD (AT_SECURE) only when the set-id bit changes our ids. */
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
        close(fd);
        snprintf(why, why_len, "setuid/setgid: the loader ignores LD_PRELOAD");
        return 1;
    }
    char interp[256], elfwhy[128];
    struct hb_elf_info info;
    int impossible = 0, rc = 0;
    if (depth < 4 && hb_elf_script_interp(fd, interp, sizeof interp)) {
        impossible = hb_elf_impossible_at(interp, why, why_len, depth + 1);
    } else if ((rc = hb_elf_read(fd, &info, elfwhy, sizeof elfwhy)) == 0 && !info.has_interp) {
        snprintf(why, why_len, "statically linked: LD_PRELOAD has no effect");
        impossible = 1;
    } else if (rc == -2) {
        snprintf(why, why_len, "%s: LD_PRELOAD has no effect", elfwhy);
        impossible = 1;
    }
    close(fd);
    return impossible;
}

/* 1 with why when LD_PRELOAD cannot act on the program path (a name is looked up in PATH). */
int hb_preload_impossible(const char *path, char *why, size_t why_len)
{
    char found[4096];
    if (!strchr(path, '/')) {
        if (hb_resolve_program(path, getenv("PATH"), found, sizeof found) != 0)
            return 0;
        path = found;
    }
    return hb_elf_impossible_at(path, why, why_len, 0);
}

/* 1 when path is a preloadable shared library of our class and machine, else 0 with why. */
int hb_is_shared_object(const char *path, char *why, size_t why_len)
{
    struct hb_elf_info info;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return 0;
    }
    int ok = hb_elf_read(fd, &info, why, why_len) == 0;
    close(fd);
    if (ok && (info.eh.e_type != ET_DYN || !info.has_dynamic))
        snprintf(why, why_len, "not a shared object (ELF type %d without a dynamic section)", info.eh.e_type);
    else if (ok && info.is_pie)
        snprintf(why, why_len, "a position-independent executable, not a shared library");
    else if (ok)
        return 1;
    return 0;
}
