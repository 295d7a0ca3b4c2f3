/* ownscan.c - finds the allocator entry points a program file defines (see ownscan.h).
 *
 * Always holds: reads the section headers and symbol tables of a read-only mapping, checking
 * every offset against the file's size before use.
 */
#include "measure/ownscan.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ownalloc.h"

/* 1 when [off, off + len) lies within a file of size size. */
static int hb_own_fits(size_t size, size_t off, size_t len)
{
    return off <= size && len <= size - off;
}

/* Adds to out the allocators whose entry points the symbol table sh (of the mapped file) defines. */
static void hb_own_table(const unsigned char *file, size_t size, const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh,
                         char *out, size_t n)
{
    if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(ElfW(Sym)) ||
        !hb_own_fits(size, sh->sh_offset, sh->sh_size))
        return;
    const ElfW(Shdr) *strsh = (const ElfW(Shdr) *)(file + eh->e_shoff) + sh->sh_link;
    if (!hb_own_fits(size, strsh->sh_offset, strsh->sh_size) || strsh->sh_size == 0)
        return;
    const char *strs = (const char *)file + strsh->sh_offset;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)(file + sh->sh_offset);
    for (size_t i = 0; i < sh->sh_size / sizeof *syms; i++) {
        if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strsh->sh_size ||
            !memchr(strs + syms[i].st_name, '\0', strsh->sh_size - syms[i].st_name))
            continue;
        for (size_t k = 0; k < HB_OWN_NENTRIES; k++)
            if (strcmp(strs + syms[i].st_name, hb_own_entries[k].symbol) == 0)
                hb_own_merge(out, n, hb_own_entries[k].allocator);
    }
}

void hb_own_static(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED)
        return;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
        eh->e_shentsize == sizeof(ElfW(Shdr)) && hb_own_fits(size, eh->e_shoff, (size_t)eh->e_shnum * sizeof(ElfW(Shdr)))) {
        const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff);
        for (size_t i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
                hb_own_table(file, size, eh, &sh[i], out, n);
    }
    munmap((void *)file, size);
}

void hb_own_merge(char *list, size_t n, const char *add)
{
    char word[64];
    for (const char *p = add; *p;) {
        size_t len = strcspn(p, "+");
        if (len > 0 && len < sizeof word) {
            memcpy(word, p, len);
            word[len] = '\0';
            int have = 0;
            for (const char *q = list; *q && !have;) {
                size_t l = strcspn(q, "+");
                have = l == len && memcmp(q, word, len) == 0;
                q += l + (q[l] == '+');
            }
            size_t used = strlen(list);
            if (!have && used + len + 2 <= n) {
                if (used)
                    list[used++] = '+';
                memcpy(list + used, word, len + 1);
            }
        }
        p += len + (p[len] == '+');
    }
}
