/* interpose.h - the one export table of malloc symbols shared by every in-tree allocator.
 *
 * An in-tree allocator (refmalloc, bump, freelist, trim, mmap) implements only the
 * ip_backend_* contract below; interpose.c exports the whole malloc API (malloc, free,
 * calloc, realloc, reallocarray, memalign, posix_memalign, aligned_alloc, valloc, pvalloc,
 * malloc_usable_size, malloc_trim, mallinfo2, mallinfo, malloc_stats, malloc_info, mallopt,
 * cfree and the __libc_* names glibc's own code calls) on top of it, with glibc's argument
 * rules (overflow, alignment, EINVAL/ENOMEM, realloc(p, 0) frees) decided here once.
 *
 * Invariants the layer guarantees to a backend:
 *   - ip_backend_malloc / ip_backend_calloc never see a size whose rounding could overflow
 *     (sizes above IP_MAX_REQUEST fail with ENOMEM before reaching the backend);
 *   - ip_backend_free and ip_backend_usable_size never see NULL;
 *   - ip_backend_realloc sees p != NULL and n != 0;
 *   - ip_backend_memalign sees a power-of-two alignment greater than 16;
 *   - errno is preserved across free() (saved and restored around ip_backend_free, unless the
 *     backend defines ip_backend_free_keeps_errno: its free leaves errno as it found it).
 * A backend must set errno = ENOMEM when it returns NULL.
 */
#ifndef HEAPBENCH_INTERPOSE_H
#define HEAPBENCH_INTERPOSE_H

#include <malloc.h>
#include <stddef.h>
#include <stdio.h>

/* Largest request the layer passes to a backend (leaves room for headers and rounding). */
#define IP_MAX_REQUEST ((size_t)PTRDIFF_MAX - (size_t)(1u << 20))

/* Required from every backend. */
void *ip_backend_malloc(size_t n);                /* n may be 0: return a unique pointer */
void ip_backend_free(void *p);                    /* p != NULL */
void *ip_backend_realloc(void *p, size_t n);      /* p != NULL, n != 0; on failure p is untouched */
void *ip_backend_memalign(size_t align, size_t n); /* align: power of two > 16 */
size_t ip_backend_usable_size(void *p);           /* p != NULL */

/* Optional: weak defaults in interpose.c are used when a backend does not define them. */
void *ip_backend_calloc(size_t total);            /* default: malloc + memset */
int ip_backend_trim(size_t pad);                  /* default: 0 (nothing released) */
struct mallinfo2 ip_backend_mallinfo2(void);      /* default: all zero */
void ip_backend_stats(void);                      /* default: prints nothing */
int ip_backend_info(int options, FILE *fp);       /* default: an empty <malloc/> document */
int ip_backend_mallopt(int param, int value);     /* default: 0 (not supported) */
/* Optional marker, defined (any value) by a backend whose free never changes errno (it makes
 * no call that sets errno, or restores errno after each such call); without it,
 * free() saves and restores errno around ip_backend_free. A weak reference: its address is 0
 * when no backend defines it, decided when the library is linked. */
extern const char ip_backend_free_keeps_errno __attribute__((weak, visibility("hidden")));

#endif
