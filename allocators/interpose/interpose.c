/* interpose.c - exports the malloc API once for every in-tree allocator (see interpose.h).
 *
 * Everything here is argument checking and forwarding; no state, no allocation, no stdio
 * except in the weak malloc_info default. glibc 2.36 semantics are the reference:
 *   realloc(NULL, n) == malloc(n); realloc(p, 0) frees p and returns NULL;
 *   calloc/reallocarray/pvalloc overflow -> NULL with ENOMEM;
 *   memalign/aligned_alloc round a non-power-of-two alignment up to the next power of two;
 *   an alignment above 2^63 is EINVAL, a satisfiable one too large for the address space ENOMEM;
 *   posix_memalign rejects alignments that are not a power-of-two multiple of sizeof(void *)
 *   with EINVAL and leaves *pp untouched on any error; when it fails for lack of memory errno
 *   is ENOMEM too (glibc's malloc sets it; programs and glibc's tests read it).
 */
#include "interpose.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define IP_EXPORT __attribute__((visibility("default")))
#define IP_WEAK __attribute__((weak))
#define IP_MIN_ALIGN 16

/* ---- weak defaults for the optional part of the backend contract ---- */

IP_WEAK void *ip_backend_calloc(size_t total)
{
    void *p = ip_backend_malloc(total);
    if (p)
        memset(p, 0, total);
    return p;
}

IP_WEAK int ip_backend_trim(size_t pad)
{
    (void)pad;
    return 0;
}

IP_WEAK struct mallinfo2 ip_backend_mallinfo2(void)
{
    struct mallinfo2 mi;
    memset(&mi, 0, sizeof mi);
    return mi;
}

IP_WEAK void ip_backend_stats(void) {}

IP_WEAK int ip_backend_info(int options, FILE *fp)
{
    if (options != 0) {
        errno = EINVAL;
        return -1;
    }
    fputs("<malloc version=\"1\">\n</malloc>\n", fp);
    return 0;
}

IP_WEAK int ip_backend_mallopt(int param, int value)
{
    (void)param;
    (void)value;
    return 0;
}

/* ---- helpers ---- */

/* Fails with ENOMEM for a request no backend can serve. */
static int ip_too_big(size_t n)
{
    if (n > IP_MAX_REQUEST) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

/* Rounds align up to a power of two; 0 when that is impossible. */
static size_t ip_pow2_ceil(size_t align)
{
    size_t a = 1;
    while (a < align) {
        if (a > SIZE_MAX / 2)
            return 0;
        a <<= 1;
    }
    return a;
}

static size_t ip_page_size(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* ---- the exported API ---- */

IP_EXPORT void *malloc(size_t n)
{
    if (ip_too_big(n))
        return NULL;
    return ip_backend_malloc(n);
}

/* ip_backend_free with errno saved and restored around it (out of line: the backends that need
 * no saving keep a free of a test and a jump). */
static __attribute__((noinline)) void ip_free_keeping_errno(void *p)
{
    int saved = errno;
    ip_backend_free(p);
    errno = saved;
}

IP_EXPORT void free(void *p)
{
    if (!p)
        return;
    if (&ip_backend_free_keeps_errno) /* the backend's free sets no errno */
        ip_backend_free(p);
    else
        ip_free_keeping_errno(p);
}

IP_EXPORT void cfree(void *p) { free(p); }

IP_EXPORT void *calloc(size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total) || ip_too_big(total)) {
        errno = ENOMEM;
        return NULL;
    }
    return ip_backend_calloc(total);
}

IP_EXPORT void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    if (ip_too_big(n))
        return NULL;
    return ip_backend_realloc(p, n);
}

IP_EXPORT void *reallocarray(void *p, size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, total);
}

IP_EXPORT void *memalign(size_t align, size_t n)
{
    if (align <= IP_MIN_ALIGN)
        return malloc(n);
    size_t a = ip_pow2_ceil(align);
    if (a == 0) { /* above 2^63: no power of two can hold it */
        errno = EINVAL;
        return NULL;
    }
    if (a > IP_MAX_REQUEST || n > IP_MAX_REQUEST - a) {
        errno = ENOMEM;
        return NULL;
    }
    return ip_backend_memalign(a, n);
}

IP_EXPORT void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

IP_EXPORT int posix_memalign(void **pp, size_t align, size_t n)
{
    if (align == 0 || align % sizeof(void *) != 0 || (align & (align - 1)) != 0)
        return EINVAL;
    int saved = errno;
    void *p = memalign(align, n);
    if (!p) /* errno stays ENOMEM, as glibc leaves it */
        return errno ? errno : (errno = ENOMEM);
    errno = saved;
    *pp = p;
    return 0;
}

IP_EXPORT void *valloc(size_t n) { return memalign(ip_page_size(), n); }

IP_EXPORT void *pvalloc(size_t n)
{
    size_t page = ip_page_size();
    size_t rounded;
    if (__builtin_add_overflow(n, page - 1, &rounded)) {
        errno = ENOMEM;
        return NULL;
    }
    rounded &= ~(page - 1);
    return memalign(page, rounded ? rounded : page);
}

IP_EXPORT size_t malloc_usable_size(void *p) { return p ? ip_backend_usable_size(p) : 0; }

IP_EXPORT int malloc_trim(size_t pad) { return ip_backend_trim(pad); }

IP_EXPORT struct mallinfo2 mallinfo2(void) { return ip_backend_mallinfo2(); }

/* The deprecated int-sized variant, saturated field by field. */
IP_EXPORT struct mallinfo mallinfo(void)
{
    struct mallinfo2 m = ip_backend_mallinfo2();
    struct mallinfo r;
#define IP_SAT(x) ((x) > (size_t)INT32_MAX ? INT32_MAX : (int)(x))
    r.arena = IP_SAT(m.arena);
    r.ordblks = IP_SAT(m.ordblks);
    r.smblks = IP_SAT(m.smblks);
    r.hblks = IP_SAT(m.hblks);
    r.hblkhd = IP_SAT(m.hblkhd);
    r.usmblks = IP_SAT(m.usmblks);
    r.fsmblks = IP_SAT(m.fsmblks);
    r.uordblks = IP_SAT(m.uordblks);
    r.fordblks = IP_SAT(m.fordblks);
    r.keepcost = IP_SAT(m.keepcost);
#undef IP_SAT
    return r;
}

IP_EXPORT void malloc_stats(void) { ip_backend_stats(); }

IP_EXPORT int malloc_info(int options, FILE *fp) { return ip_backend_info(options, fp); }

IP_EXPORT int mallopt(int param, int value) { return ip_backend_mallopt(param, value); }

/* The names glibc's own code (and some programs) call directly. */
IP_EXPORT void *__libc_malloc(size_t n) { return malloc(n); }
IP_EXPORT void __libc_free(void *p) { free(p); }
IP_EXPORT void *__libc_calloc(size_t c, size_t s) { return calloc(c, s); }
IP_EXPORT void *__libc_realloc(void *p, size_t n) { return realloc(p, n); }
IP_EXPORT void *__libc_memalign(size_t a, size_t n) { return memalign(a, n); }
IP_EXPORT void *__libc_valloc(size_t n) { return valloc(n); }
IP_EXPORT void *__libc_pvalloc(size_t n) { return pvalloc(n); }
