/* hbstats_apis.c - the readers of the allocator statistics APIs (see hbstats.h).
 * Always holds: every statistic is emitted, with its value or an empty value and the reason;
 * a `layer` column places it in the breakdown live < allocated < active < resident < mapped
 * (plus retained, metadata, free, peak, other), so the report needs no allocator knowledge;
 * a derived figure is named by the formula over the API's own names. */
#include "hbstats.h"

#include <malloc.h>
#include <stddef.h>

/* A statistic of an API: its name there and its layer. */
struct hbs_stat {
    const char *name, *layer;
};

typedef int (*hbs_mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef int (*hbs_property_fn)(const char *, size_t *);
typedef void (*hbs_mi_info_fn)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *);
typedef struct mallinfo2 (*hbs_mallinfo2_fn)(void);

/* jemalloc: advance "epoch" (its statistics are a snapshot refreshed only then), then read. */
void hbs_read_mallctl(const struct hbs_out *o, void *fn)
{
    static const struct hbs_stat stats[] = {
        {"stats.allocated", "allocated"}, {"stats.active", "active"},     {"stats.resident", "resident"},
        {"stats.mapped", "mapped"},       {"stats.retained", "retained"}, {"stats.metadata", "metadata"},
    };
    hbs_mallctl_fn ctl = (hbs_mallctl_fn)fn;
    uint64_t epoch = 1;
    size_t esz = sizeof epoch;
    int fresh = ctl("epoch", &epoch, &esz, &epoch, esz) == 0;
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
        size_t v = 0, sz = sizeof v;
        if (!fresh)
            hbs_emit(o, stats[i].name, stats[i].layer, 0, "mallctl(\"epoch\") failed: the statistics would be stale");
        else if (ctl(stats[i].name, &v, &sz, NULL, 0) != 0)
            hbs_emit(o, stats[i].name, stats[i].layer, 0, "mallctl refused it (jemalloc built without --enable-stats?)");
        else
            hbs_emit(o, stats[i].name, stats[i].layer, v, NULL);
    }
}

/* gperftools: one property; *ok is cleared when the allocator does not know it. */
static size_t hbs_property(hbs_property_fn get, const char *name, int *ok)
{
    size_t v = 0;
    if (!get(name, &v))
        *ok = 0;
    return v;
}

/* gperftools tcmalloc: the numeric properties, and in-use (active) and mapped-and-not-released
 * (resident) spans derived from them. */
void hbs_read_malloc_extension(const struct hbs_out *o, void *fn)
{
    static const struct hbs_stat stats[] = {
        {"generic.current_allocated_bytes", "allocated"}, {"generic.heap_size", "mapped"},
        {"tcmalloc.pageheap_free_bytes", "free"},         {"tcmalloc.pageheap_unmapped_bytes", "retained"},
        {"tcmalloc.central_cache_free_bytes", "free"},    {"tcmalloc.transfer_cache_free_bytes", "free"},
        {"tcmalloc.thread_cache_free_bytes", "free"},
    };
    hbs_property_fn get = (hbs_property_fn)fn;
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
        int ok = 1;
        size_t v = hbs_property(get, stats[i].name, &ok);
        hbs_emit(o, stats[i].name, stats[i].layer, v, ok ? NULL : "MallocExtension does not know this property");
    }
    int ok = 1;
    size_t heap = hbs_property(get, "generic.heap_size", &ok);
    size_t pfree = hbs_property(get, "tcmalloc.pageheap_free_bytes", &ok);
    size_t unmapped = hbs_property(get, "tcmalloc.pageheap_unmapped_bytes", &ok);
    const char *why = ok ? NULL : "MallocExtension lacks heap_size, pageheap_free_bytes or pageheap_unmapped_bytes";
    hbs_emit(o, "heap_size-pageheap_free-pageheap_unmapped", "active", heap - pfree - unmapped, why);
    hbs_emit(o, "heap_size-pageheap_unmapped", "resident", heap - unmapped, why);
}

/* mimalloc: mi_process_info's memory figures (its current_rss is its commit estimate on Linux). */
void hbs_read_mi_process_info(const struct hbs_out *o, void *fn)
{
    size_t elapsed, utime, stime, rss, peak_rss, commit, peak_commit, faults;
    ((hbs_mi_info_fn)fn)(&elapsed, &utime, &stime, &rss, &peak_rss, &commit, &peak_commit, &faults);
    hbs_emit(o, "allocated", "allocated", 0,
             "mimalloc counts allocated bytes only when built with MI_STAT > 1 (Debian's is a release build)");
    hbs_emit(o, "current_commit", "active", commit, NULL);
    hbs_emit(o, "peak_commit", "peak", peak_commit, NULL);
    hbs_emit(o, "current_rss", "other", rss, NULL);
    hbs_emit(o, "peak_rss", "peak", peak_rss, NULL);
    hbs_emit(o, "mapped", "mapped", 0, "mimalloc reports reserved memory only as rounded text (mi_stats_print_out); not read");
}

/* glibc, refmalloc: mallinfo2, with in-use (heap + mmapped chunks) and mapped figures; an
 * allocator whose mallinfo2 is all zeros keeps no statistics. */
void hbs_read_mallinfo2(const struct hbs_out *o, void *fn)
{
    struct mallinfo2 m = ((hbs_mallinfo2_fn)fn)();
    const char *why = (m.arena | m.hblkhd | m.uordblks | m.fordblks) ? NULL
                      : "mallinfo2 returned all zeros: this allocator keeps no statistics";
    hbs_emit(o, "uordblks+hblkhd", "allocated", m.uordblks + m.hblkhd, why);
    hbs_emit(o, "arena+hblkhd", "mapped", m.arena + m.hblkhd, why);
    hbs_emit(o, "fordblks", "free", m.fordblks, why);
    hbs_emit(o, "keepcost", "other", m.keepcost, why);
    hbs_emit(o, "arena", "other", m.arena, why);
    hbs_emit(o, "hblkhd", "other", m.hblkhd, why);
}

/* Scudo: its mallinfo2 fills uordblks with the bytes allocated, hblkhd with all it has mapped
 * (primary and secondary) and fordblks with its free count (LLVM 14 wrappers_c.inc); arena is 0. */
void hbs_read_scudo_mallinfo2(const struct hbs_out *o, void *fn)
{
    struct mallinfo2 m = ((hbs_mallinfo2_fn)fn)();
    hbs_emit(o, "uordblks", "allocated", m.uordblks, NULL);
    hbs_emit(o, "hblkhd", "mapped", m.hblkhd, NULL);
    hbs_emit(o, "fordblks", "free", m.fordblks, NULL);
}
