/* rm_stats.c - what the heap looks like from outside: mallinfo2, malloc_stats (glibc's text,
 * written with write(2)) and malloc_info (glibc's XML, one <heap> per arena).
 *
 * Always true: figures of an arena are gathered under its lock into an rm_arena_stats on the
 * caller's stack (about 4 KiB, as glibc's malloc_info) and printed after the lock is released
 * (printing to a FILE may call malloc); no lock is held across a cancellation point, so a
 * thread cancelled while printing leaves nothing locked; malloc_stats runs with cancellation
 * disabled (as glibc), so its output is never cut short; "in use" counts chunk bytes including
 * headers and chunks held in thread caches, as glibc's figures do.
 */
#include "rm_types.h"
#include "interpose.h"

#include <errno.h>
#include <string.h>

/* Fills out with arena a's figures; a must be locked. */
void rm_stats_arena(rm_arena *a, rm_arena_stats *out)
{
    memset(out, 0, sizeof *out);
    out->system = a->system_mem;
    out->max_system = a->max_system_mem;
    out->top = a->top ? rm_csize(a->top) : 0;
    out->free_bytes = out->top;
    out->free_chunks = a->top ? 1 : 0;
    for (unsigned i = RM_UNSORTED; i < RM_NBINS; i++) {
        rm_chunk *b = &a->bins[i];
        for (rm_chunk *c = b->fd; c != b; c = c->fd) {
            size_t size = rm_csize(c);
            if (!out->bin_count[i]++ || size < out->bin_min[i])
                out->bin_min[i] = size;
            if (size > out->bin_max[i])
                out->bin_max[i] = size;
            out->bin_bytes[i] += size;
        }
        out->free_chunks += out->bin_count[i];
        out->free_bytes += out->bin_bytes[i];
    }
    rm_fast_stats(a, out->fbin_count, out->fbin_bytes);
    for (unsigned i = 0; i < RM_NFASTBINS; i++) {
        out->fast_chunks += out->fbin_count[i];
        out->fast_bytes += out->fbin_bytes[i];
    }
    out->free_bytes += out->fast_bytes;
    for (rm_seg *s = a->is_main ? NULL : a->seg; s; s = s->prev) {
        out->aspace += s->size; /* glibc: heap_info's size, newest heap first */
        out->subheaps++;
    }
    out->inuse = out->system > out->free_bytes ? out->system - out->free_bytes : 0;
}

/* Gathers arena a's figures under its lock. */
static void rm_stats_locked(rm_arena *a, rm_arena_stats *out)
{
    int locked = rm_lock(a);
    rm_stats_arena(a, out);
    rm_unlock(a, locked);
}

/* mallinfo2 over all arenas and mapped chunks. */
struct mallinfo2 ip_backend_mallinfo2(void)
{
    struct mallinfo2 mi;
    rm_arena_stats st;
    memset(&mi, 0, sizeof mi);
    rm_ensure_init();
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        rm_stats_locked(a, &st);
        mi.arena += st.system;
        mi.ordblks += st.free_chunks;
        mi.smblks += st.fast_chunks;
        mi.fsmblks += st.fast_bytes;
        mi.fordblks += st.free_bytes;
        mi.uordblks += st.inuse;
        if (a == &rm_main_arena)
            mi.keepcost = st.top;
    }
    mi.hblks = rm_mp.n_mmaps;
    mi.hblkhd = rm_mp.mmapped_mem;
    return mi;
}

/* Writes "label = value" right-aligned as glibc's malloc_stats does. */
static void rm_stats_line(const char *label, size_t value)
{
    char num[32], buf[96];
    char *end = buf + sizeof buf - 2;
    rm_fmt_u(num, num + sizeof num - 1, value);
    char *p = rm_fmt_str(buf, end, label);
    p = rm_fmt_str(p, end, " = ");
    for (size_t pad = strlen(num); pad < 10; pad++)
        p = rm_fmt_str(p, end, " ");
    p = rm_fmt_str(p, end, num);
    rm_fmt_str(p, end, "\n");
    rm_os_write(buf);
}

/* malloc_stats: per-arena system and in-use bytes, then totals, on stderr; not cancellable. */
void ip_backend_stats(void)
{
    rm_arena_stats st;
    size_t system = 0, inuse = 0;
    int cancel_state;
    rm_ensure_init();
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        char head[32];
        char *p = rm_fmt_str(head, head + sizeof head - 2, "Arena ");
        p = rm_fmt_u(p, head + sizeof head - 2, (size_t)a->number);
        rm_fmt_str(p, head + sizeof head - 2, ":\n");
        rm_os_write(head);
        rm_stats_locked(a, &st);
        rm_stats_line("system bytes    ", st.system);
        rm_stats_line("in use bytes    ", st.inuse);
        system += st.system;
        inuse += st.inuse;
    }
    rm_os_write("Total (incl. mmap):\n");
    rm_stats_line("system bytes    ", system + rm_mp.mmapped_mem);
    rm_stats_line("in use bytes    ", inuse + rm_mp.mmapped_mem);
    rm_stats_line("max mmap regions", rm_mp.max_n_mmaps);
    rm_stats_line("max mmap bytes  ", rm_mp.max_mmapped_mem);
    pthread_setcancelstate(cancel_state, NULL);
}

/* Writes the free-chunk totals (fastbins, then the rest) of a <heap> or of the document. */
static void rm_info_totals(FILE *fp, size_t fast_chunks, size_t fast_bytes, size_t chunks, size_t bytes)
{
    fprintf(fp, "<total type=\"fast\" count=\"%zu\" size=\"%zu\"/>\n", fast_chunks, fast_bytes);
    fprintf(fp, "<total type=\"rest\" count=\"%zu\" size=\"%zu\"/>\n", chunks, bytes);
}

/* Writes the <system> and <aspace> lines of a <heap> or of the whole document, as glibc's
 * __malloc_info: a thread arena (subheaps > 0) gives the bytes of its heaps and their number,
 * the main arena and the document give total and mprotect only. refmalloc never changes the
 * protection of a heap (it is reserved read-write whole), so "mprotect" is the bytes in use,
 * the same figure as "total". */
static void rm_info_system(FILE *fp, size_t system, size_t max, size_t aspace, size_t subheaps)
{
    fprintf(fp, "<system type=\"current\" size=\"%zu\"/>\n<system type=\"max\" size=\"%zu\"/>\n"
                "<aspace type=\"total\" size=\"%zu\"/>\n<aspace type=\"mprotect\" size=\"%zu\"/>\n",
            system, max, aspace, aspace);
    if (subheaps)
        fprintf(fp, "<aspace type=\"subheaps\" size=\"%zu\"/>\n", subheaps);
}

/* Writes the <size> and <unsorted> lines of one <heap>, in glibc's order: the fastbins, the
 * small and large bins, then the unsorted bin. */
static void rm_info_sizes(FILE *fp, const rm_arena_stats *st)
{
    for (unsigned i = 0; i < RM_NFASTBINS; i++)
        if (st->fbin_count[i]) {
            size_t size = st->fbin_bytes[i] / st->fbin_count[i];
            fprintf(fp, "  <size from=\"%zu\" to=\"%zu\" total=\"%zu\" count=\"%zu\"/>\n",
                    size - (RM_ALIGN - 1), size, st->fbin_bytes[i], st->fbin_count[i]);
        }
    for (unsigned i = RM_UNSORTED + 1; i < RM_NBINS; i++)
        if (st->bin_count[i])
            fprintf(fp, "  <size from=\"%zu\" to=\"%zu\" total=\"%zu\" count=\"%zu\"/>\n",
                    st->bin_min[i], st->bin_max[i], st->bin_bytes[i], st->bin_count[i]);
    if (st->bin_count[RM_UNSORTED])
        fprintf(fp, "  <unsorted from=\"%zu\" to=\"%zu\" total=\"%zu\" count=\"%zu\"/>\n",
                st->bin_min[RM_UNSORTED], st->bin_max[RM_UNSORTED], st->bin_bytes[RM_UNSORTED],
                st->bin_count[RM_UNSORTED]);
}

/* malloc_info: glibc's XML document, one <heap nr="N"> per arena with its free chunks by bin. */
int ip_backend_info(int options, FILE *fp)
{
    if (options != 0) {
        errno = EINVAL;
        return -1;
    }
    rm_ensure_init();
    rm_arena_stats st;
    size_t chunks = 0, bytes = 0, fchunks = 0, fbytes = 0, system = 0, max = 0, aspace = 0;
    fprintf(fp, "<malloc version=\"1\">\n");
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        rm_stats_locked(a, &st);
        fprintf(fp, "<heap nr=\"%d\">\n<sizes>\n", a->number);
        rm_info_sizes(fp, &st);
        fprintf(fp, "</sizes>\n");
        rm_info_totals(fp, st.fast_chunks, st.fast_bytes, st.free_chunks, st.free_bytes - st.fast_bytes);
        size_t heap_aspace = st.subheaps ? st.aspace : st.system;
        rm_info_system(fp, st.system, st.max_system, heap_aspace, st.subheaps);
        fprintf(fp, "</heap>\n");
        chunks += st.free_chunks;
        bytes += st.free_bytes - st.fast_bytes;
        fchunks += st.fast_chunks;
        fbytes += st.fast_bytes;
        system += st.system;
        max += st.max_system;
        aspace += heap_aspace;
    }
    rm_info_totals(fp, fchunks, fbytes, chunks, bytes);
    fprintf(fp, "<total type=\"mmap\" count=\"%zu\" size=\"%zu\"/>\n", rm_mp.n_mmaps, rm_mp.mmapped_mem);
    rm_info_system(fp, system, max, aspace, 0);
    fprintf(fp, "</malloc>\n");
    return 0;
}
