/* thp_check.c - unit tests of contract/thp.c: the huge-page modes, the allocators' switches
 * and the AnonHugePages parser.
 * Always holds: pure functions only (no process state changed, no file read); every check
 * compares against a value a broken mapping would not give. Prints PASS/FAIL lines and
 * "N passed, N failed" (scripts/tcheck.h). */
#include "tcheck.h"
#include "thp.h"

#include <string.h>

/* 1 when s is a and both are non-NULL, or both NULL. */
static int same(const char *s, const char *a)
{
    return (!s && !a) || (s && a && strcmp(s, a) == 0);
}

/* Words and modes round trip; anything else is refused. */
static void test_words(void)
{
    int ok = 1;
    for (int m = HB_THP_NEVER; m <= HB_THP_ALWAYS; m++)
        ok &= hb_thp_parse(hb_thp_name(m)) == m;
    TCHECK("thp: never/madvise/always round trip", ok);
    TCHECK("thp: other words refused", hb_thp_parse("sometimes") == -1 && hb_thp_parse(NULL) == -1);
}

/* The switch per family, merged into the current value. */
static void test_env(void)
{
    char b[256];
    TCHECK("thp: jemalloc always merges into MALLOC_CONF",
           same(hb_thp_env_value(HB_THP_ALWAYS, "jemalloc", 1, "dirty_decay_ms:0", b, sizeof b), "dirty_decay_ms:0,thp:always"));
    TCHECK("thp: jemalloc never alone", same(hb_thp_env_value(HB_THP_NEVER, "jemalloc", 1, NULL, b, sizeof b), "thp:never"));
    TCHECK("thp: glibc always merges into GLIBC_TUNABLES",
           same(hb_thp_env_value(HB_THP_ALWAYS, "glibc", 0, "glibc.malloc.arena_max=1", b, sizeof b),
                "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1"));
    TCHECK("thp: glibc's switch does nothing for a preloaded allocator (refmalloc)",
           !hb_thp_env_name("glibc", 1) && !hb_thp_env_value(HB_THP_ALWAYS, "glibc", 1, NULL, b, sizeof b));
    TCHECK("thp: mimalloc large OS pages", same(hb_thp_env_name("mimalloc", 1), "MIMALLOC_LARGE_OS_PAGES") &&
                                                same(hb_thp_env_value(HB_THP_ALWAYS, "mimalloc", 1, "0", b, sizeof b), "1"));
    TCHECK("thp: tcmalloc has no switch", !hb_thp_env_name("tcmalloc", 1));
    TCHECK("thp: madvise changes no variable", !hb_thp_env_value(HB_THP_MADVISE, "jemalloc", 1, NULL, b, sizeof b));
}

/* The mode in effect is bounded by the system setting and the allocator's switch. */
static void test_in_effect(void)
{
    TCHECK("thp: never is never", same(hb_thp_in_effect(HB_THP_NEVER, HB_THP_ALWAYS, "jemalloc", 1), "never"));
    TCHECK("thp: a never system wins", same(hb_thp_in_effect(HB_THP_ALWAYS, HB_THP_NEVER, "jemalloc", 1), "never"));
    TCHECK("thp: an always system cannot be narrowed to madvise",
           same(hb_thp_in_effect(HB_THP_MADVISE, HB_THP_ALWAYS, "glibc", 0), "always"));
    TCHECK("thp: always under madvise through jemalloc's switch",
           same(hb_thp_in_effect(HB_THP_ALWAYS, HB_THP_MADVISE, "jemalloc", 1), "always"));
    TCHECK("thp: always under madvise without a switch stays madvise (tcmalloc)",
           same(hb_thp_in_effect(HB_THP_ALWAYS, HB_THP_MADVISE, "tcmalloc", 1), "madvise"));
    TCHECK("thp: unknown system", same(hb_thp_in_effect(HB_THP_ALWAYS, -1, "jemalloc", 1), "unknown"));
}

/* An env set's HEAPBENCH_THP word is its mode; a bad one is refused; none keeps the default. */
static void test_env_axis(void)
{
    TCHECK("thp: HEAPBENCH_THP=never in an env set", hb_thp_of_env("MALLOC_CONF=x HEAPBENCH_THP=never", -1) == HB_THP_NEVER);
    TCHECK("thp: no word keeps the --thp default", hb_thp_of_env("MALLOC_CONF=x", HB_THP_ALWAYS) == HB_THP_ALWAYS);
    TCHECK("thp: a bad mode is -2", hb_thp_of_env("HEAPBENCH_THP=sometimes", -1) == -2 && hb_thp_of_env("HEAPBENCH_THP=", -1) == -2);
    TCHECK("thp: only a whole word counts", hb_thp_of_env("XHEAPBENCH_THP=never", -1) == -1);
}

/* AnonHugePages is found at a line start only. */
static void test_smaps(void)
{
    TCHECK("smaps: AnonHugePages read", hb_thp_anon_huge_kb("Rss: 10 kB\nAnonHugePages:    2048 kB\nShmem: 0 kB\n") == 2048);
    TCHECK("smaps: absent gives -1", hb_thp_anon_huge_kb("Rss: 10 kB\nShmemPmdMapped: 0 kB\n") == -1);
    TCHECK("smaps: not inside another line", hb_thp_anon_huge_kb("XAnonHugePages: 5 kB\n") == -1);
}

int main(void)
{
    test_words();
    test_env();
    test_in_effect();
    test_env_axis();
    test_smaps();
    return tcheck_summary();
}
