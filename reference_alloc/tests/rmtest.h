/* rmtest.h - helpers shared by refmalloc's C tests (header-only, for test programs).
 * Always holds: uses only the public malloc API, so it works against any allocator. */
#ifndef RMTEST_H
#define RMTEST_H
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of arenas: the <heap> elements of malloc_info's document. */
static inline int rmt_arena_count(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    malloc_info(0, f);
    fclose(f);
    int n = 0;
    for (char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++)
        n++;
    free(buf);
    return n;
}
#endif
