/* tcheck.h - the C side of heapbench's test convention: PASS/FAIL lines and a closing count.
 * TCHECK(name, cond) records one result; tcheck_summary() prints "N passed, N failed" and
 * returns the exit status (0 only when nothing failed). Header-only, for test programs. */
#ifndef HEAPBENCH_TCHECK_H
#define HEAPBENCH_TCHECK_H
#include <stdio.h>

static int tcheck_passed, tcheck_failed;

/* Records one check: prints PASS name, or FAIL name with the failed condition and location. */
#define TCHECK(name, cond)                                                                    \
    do {                                                                                      \
        if (cond) {                                                                           \
            tcheck_passed++;                                                                  \
            printf("PASS %s\n", (name));                                                      \
        } else {                                                                              \
            tcheck_failed++;                                                                  \
            printf("FAIL %s: %s (%s:%d)\n", (name), #cond, __FILE__, __LINE__);               \
        }                                                                                     \
        fflush(stdout);                                                                       \
    } while (0)

/* Prints the closing line and returns the process exit status. */
static inline int tcheck_summary(void)
{
    printf("%d passed, %d failed\n", tcheck_passed, tcheck_failed);
    return tcheck_failed ? 1 : 0;
}
#endif
