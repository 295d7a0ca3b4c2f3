/* hbstats.c - the allocator-statistics library (build/lib/libhbstats.so), preloaded beside an allocator.
 *
 * A workload's phase writer binds heapbench_allocstat weakly (contract/wl_phase.c) and calls it after each `phase`
 * record; it then writes `allocstat` records (docs/DATA.md) with the figures of the allocator
 * that serves malloc, read through that allocator's own public API, and the kernel's count of
 * anonymous huge pages. Without this library the workload runs as before.
 * Always holds: the API is chosen once, before main, as the first of mallctl (jemalloc),
 * MallocExtension_GetNumericProperty (gperftools), mi_process_info (mimalloc), Scudo's mallinfo2
 * (told by __scudo_print_stats beside it: its fields mean other things) and mallinfo2 (glibc,
 * refmalloc) that is defined in the same object as the malloc the process uses, so a
 * glibc mallinfo2 never stands in for another allocator's; with none, every layer is emitted
 * empty with the reason. Nothing runs between two phase ends; nothing here calls malloc; each
 * record is one write(2) of at most 512 bytes, by the floor's allocstat writer (contract/wl_allocstat.c
 * over wl_record.c, linked into this library). */
#include "hbstats.h"
#include "wl_allocstat.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#define HBS_EXPORT __attribute__((visibility("default")))

/* One API: its name in the records, the function read, and a marker: a symbol the same object
 * must also define (NULL: none), which tells an allocator whose function has another meaning. */
struct hbs_api {
    const char *api, *symbol, *marker;
    void (*read)(const struct hbs_out *, void *);
};

static const struct hbs_api hbs_apis[] = {
    {"mallctl", "mallctl", NULL, hbs_read_mallctl},
    {"MallocExtension", "MallocExtension_GetNumericProperty", NULL, hbs_read_malloc_extension},
    {"mi_process_info", "mi_process_info", NULL, hbs_read_mi_process_info},
    {"mallinfo2-scudo", "mallinfo2", "__scudo_print_stats", hbs_read_scudo_mallinfo2},
    {"mallinfo2", "mallinfo2", NULL, hbs_read_mallinfo2},
};

static const struct hbs_api *hbs_chosen; /* NULL: the allocator has none of the APIs */
static void *hbs_fn;                      /* the chosen API's function */
static char hbs_none_reason[256];

/* The load address of the object that defines addr, or NULL. */
static void *hbs_object_of(void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

/* jemalloc builds its statistics structures (~300 KiB, counted in stats.metadata) on the first
 * mallctl of any name. Reading "version" here, before main, pays that once at start, so every
 * phase's RSS carries the same cost instead of RSS jumping at the first phase end; it is not
 * the epoch refresh, which stays at phase ends. */
static void hbs_prepare_mallctl(void)
{
    if (strcmp(hbs_chosen->api, "mallctl") != 0)
        return;
    const char *version = NULL;
    size_t sz = sizeof version;
    ((int (*)(const char *, void *, size_t *, void *, size_t))hbs_fn)("version", &version, &sz, NULL, 0);
}

/* Before main: picks the first API defined in malloc's own object, or writes why there is none. */
__attribute__((constructor)) static void hbs_choose(void)
{
    void *malloc_fn = dlsym(RTLD_DEFAULT, "malloc");
    void *base = hbs_object_of(malloc_fn);
    for (size_t i = 0; base && i < sizeof hbs_apis / sizeof hbs_apis[0]; i++) {
        void *fn = dlsym(RTLD_DEFAULT, hbs_apis[i].symbol);
        void *marker = hbs_apis[i].marker ? dlsym(RTLD_DEFAULT, hbs_apis[i].marker) : fn;
        if (fn && hbs_object_of(fn) == base && hbs_object_of(marker) == base) {
            hbs_chosen = &hbs_apis[i];
            hbs_fn = fn;
            hbs_prepare_mallctl();
            return;
        }
    }
    Dl_info info;
    const char *path = malloc_fn && dladdr(malloc_fn, &info) && info.dli_fname ? info.dli_fname : "unknown";
    const char *slash = strrchr(path, '/');
    snprintf(hbs_none_reason, sizeof hbs_none_reason,
             "no statistics API in %s (it defines none of mallctl, MallocExtension_GetNumericProperty, "
             "mi_process_info, mallinfo2)", slash ? slash + 1 : path);
}

/* One record, by the floor's allocstat writer (contract/wl_allocstat.c: one write(2), no malloc). */
void hbs_emit(const struct hbs_out *o, const char *stat, const char *layer, uint64_t value, const char *reason)
{
    wl_allocstat(o->fd, o->phase, o->api, stat, layer, value, reason);
}

/* Called by the workload after the `phase` record of phase: writes that phase's allocstat records to fd. */
HBS_EXPORT void heapbench_allocstat(int fd, const char *phase)
{
    struct hbs_out o = {fd, phase, hbs_chosen ? hbs_chosen->api : "none"};
    if (hbs_chosen) {
        hbs_chosen->read(&o, hbs_fn);
    } else {
        static const char *const layers[] = {"allocated", "active", "resident", "mapped"};
        for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
            hbs_emit(&o, layers[i], layers[i], 0, hbs_none_reason);
    }
    hbs_read_smaps(&o);
}
