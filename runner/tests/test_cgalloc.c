/* test_cgalloc.c - unit tests of the allocator's share of a callgrind file (runner/measure/cgalloc.c):
 * the outermost malloc-API calls' inclusive costs (a realloc that calls free counted once), name
 * compression, two position fields, recursion suffixes, parts that add up, and a file that is not one.
 * Always holds: every expected count is the sum of the cost lines written here.
 */
#include <stdio.h>
#include <string.h>

#include "measure/cgalloc.h"
#include "tcheck.h"

/* Reads text as a callgrind file; returns hb_cgalloc_read's result. */
static int read_text(const char *text, double *alloc, double *total)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = hb_cgalloc_read(f, alloc, total);
    fclose(f);
    return rc;
}

static const char nested[] =
    "version: 1\ncreator: callgrind-3.19.0\npositions: line\nevents: Ir\nsummary: 1000\n\n"
    "ob=(1) /lib/libc.so.6\nfl=(1) malloc.c\nfn=(1) free\n10 40\n"
    "fn=(2) realloc\n20 30\ncfn=(1)\ncalls=1 10\n20 40\n"          /* realloc -> free: inside realloc's 70 */
    "fn=(3) main\nfl=(2) main.c\n5 100\n"
    "cfn=(2)\ncalls=2 20\n6 140\n"                                  /* main -> realloc twice: 140 */
    "cfn=(4) malloc\ncalls=3 30\n7 90\n"                            /* main -> malloc: 90 */
    "cfn=(5) printf\ncalls=1 40\n8 200\n"                           /* not the allocator */
    "fn=(5)\ncfn=(4)\ncalls=1 30\n9 25\n"                           /* printf -> malloc: 25 */
    "fn=(4)\n30 115\n"
    "totals: 1000\n";

static void test_counts(void)
{
    double a = -1, t = -1;
    TCHECK("nested: outermost calls only (140 + 90 + 25)", read_text(nested, &a, &t) == 0 && a == 255 && t == 1000);
    static const char two_pos[] =
        "positions: instr line\nevents: Ir\nfn=(1) main\n0x10 5 3\ncfn=(2) _Znwm\ncalls=1 0x20 7\n0x11 6 50\n"
        "fn=(2)\ncfn=(3) malloc\ncalls=1 0x30 8\n0x21 7 30\n"   /* operator new -> malloc: inside new's 50 */
        "fn=(4) main'2\ncfn=(5) free'2\ncalls=1 0x40 9\n0x12 6 12\n" /* recursion suffixes */
        "totals: 80\n";
    TCHECK("two position fields, C++ new, recursion suffixes", read_text(two_pos, &a, &t) == 0 && a == 62 && t == 80);
    static const char parts[] =
        "events: Ir\npart: 1\nfn=main\ncfn=malloc\ncalls=1 3\n4 10\ntotals: 100\n"
        "part: 2\nfn=main\ncfn=calloc\ncalls=1 3\n4 20\ntotals: 50\n";
    TCHECK("uncompressed names; the parts' totals add up", read_text(parts, &a, &t) == 0 && a == 30 && t == 150);
    static const char cachegrind[] = "desc: I1 cache:\ncmd: ./loop\nevents: Ir\nfl=???\nfn=main\n0 5\nsummary: 4242\n";
    TCHECK("a cachegrind file: the summary is the total", read_text(cachegrind, &a, &t) == 0 && t == 4242 && a == 0);
    TCHECK("a file without totals or summary is refused", read_text("hello\nworld\n", &a, &t) != 0);
    TCHECK("an empty file is refused", read_text("", &a, &t) != 0);
}

static void test_names(void)
{
    TCHECK("the C API", hb_cgalloc_entry("malloc") && hb_cgalloc_entry("posix_memalign") && hb_cgalloc_entry("free'3"));
    TCHECK("allocators' aliases", hb_cgalloc_entry("mi_free") && hb_cgalloc_entry("tc_malloc") &&
                                      hb_cgalloc_entry("__libc_calloc"));
    TCHECK("not the allocator", !hb_cgalloc_entry("_int_malloc") && !hb_cgalloc_entry("mallocx") &&
                                    !hb_cgalloc_entry("memcpy") && !hb_cgalloc_entry("freeze"));
}

int main(void)
{
    test_counts();
    test_names();
    return tcheck_summary();
}
