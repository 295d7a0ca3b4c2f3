/* thp.c - the transparent-huge-page modes and the allocators' switches (see thp.h and allocators/README.md).
 * Always holds: the switch table below is the only place that knows an allocator's huge-page
 * setting; merging keeps every other setting of MALLOC_CONF and GLIBC_TUNABLES. */
#include "thp.h"
#include "wl_readfile.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *const hb_thp_words[] = {"never", "madvise", "always"};

/* One allocator family's switch: variable, value for never and for always, and the separator
 * that joins it to other settings in the same variable (0: the variable is only this switch). */
struct hb_thp_switch {
    const char *family, *var, *never, *always;
    char sep;
};

static const struct hb_thp_switch hb_thp_switches[] = {
    {"glibc", "GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=1", ':'},
    {"jemalloc", "MALLOC_CONF", "thp:never", "thp:always", ','},
    {"mimalloc", "MIMALLOC_LARGE_OS_PAGES", "0", "1", 0},
};
/* tbbmalloc has TBB_MALLOC_USE_HUGE_PAGES, but it acts only when the system mode is `always` or
 * hugetlb pages are reserved (measured: 0 huge pages under `always` on a madvise system), so it
 * is no per-process switch and is left out. */

int hb_thp_parse(const char *word)
{
    for (int i = 0; i < 3; i++)
        if (word && strcmp(word, hb_thp_words[i]) == 0)
            return i;
    return -1;
}

const char *hb_thp_name(int mode)
{
    return mode >= 0 && mode < 3 ? hb_thp_words[mode] : "?";
}

int hb_thp_system(void)
{
    char buf[128];
    if (wl_read_small("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) < 0)
        return -1;
    char *open_b = strchr(buf, '['), *close_b = open_b ? strchr(open_b, ']') : NULL;
    if (!close_b)
        return -1;
    *close_b = '\0';
    return hb_thp_parse(open_b + 1);
}

/* The switch of a family, or NULL (glibc's only counts for the system malloc, nothing preloaded). */
static const struct hb_thp_switch *hb_thp_switch_of(const char *family, int preloaded)
{
    for (size_t i = 0; family && i < sizeof hb_thp_switches / sizeof hb_thp_switches[0]; i++)
        if (strcmp(hb_thp_switches[i].family, family) == 0)
            return strcmp(family, "glibc") == 0 && preloaded ? NULL : &hb_thp_switches[i];
    return NULL;
}

const char *hb_thp_env_name(const char *family, int preloaded)
{
    const struct hb_thp_switch *s = hb_thp_switch_of(family, preloaded);
    return s ? s->var : NULL;
}

const char *hb_thp_env_value(int mode, const char *family, int preloaded, const char *cur, char *buf, size_t n)
{
    const struct hb_thp_switch *s = hb_thp_switch_of(family, preloaded);
    if (!s || mode == HB_THP_MADVISE || n == 0)
        return NULL;
    const char *word = mode == HB_THP_NEVER ? s->never : s->always;
    if (s->sep && cur && *cur)
        snprintf(buf, n, "%s%c%s", cur, s->sep, word);
    else
        snprintf(buf, n, "%s", word);
    return buf;
}

int hb_thp_prctl(int mode)
{
    return prctl(PR_SET_THP_DISABLE, mode == HB_THP_NEVER ? 1 : 0, 0, 0, 0) == 0 ? 0 : -errno;
}

/* never: the kernel's word; otherwise bounded by the system setting, and `always` under a madvise
 * system only through the allocator's switch. */
const char *hb_thp_in_effect(int mode, int sys, const char *family, int preloaded)
{
    if (mode == HB_THP_NEVER || sys == HB_THP_NEVER)
        return "never";
    if (sys == HB_THP_ALWAYS)
        return "always";
    if (sys < 0)
        return "unknown";
    if (mode == HB_THP_ALWAYS && hb_thp_switch_of(family, preloaded))
        return "always";
    return "madvise";
}

long long hb_thp_anon_huge_kb(const char *text)
{
    static const char key[] = "AnonHugePages:";
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, sizeof key - 1) == 0)
            return strtoll(p + sizeof key - 1, NULL, 10);
    return -1;
}

int hb_thp_of_env(const char *env_set, int dflt)
{
    static const char key[] = "HEAPBENCH_THP=";
    int mode = dflt;
    for (const char *p = env_set; p && (p = strstr(p, key)); p += sizeof key - 1) {
        if (p != env_set && p[-1] != ' ' && p[-1] != '\t')
            continue;
        char word[16];
        size_t n = strcspn(p + sizeof key - 1, " \t");
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), p + sizeof key - 1);
        mode = n < sizeof word ? hb_thp_parse(word) : -1;
        if (mode < 0)
            return -2;
    }
    return mode;
}
