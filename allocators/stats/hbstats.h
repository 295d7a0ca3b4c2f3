/* hbstats.h - inside the allocator-statistics library: one reader per allocator API, one record writer.
 * Always holds: a reader only reads (no call that changes the allocator's state, except
 * jemalloc's epoch refresh, which only merges its statistics); nothing here calls malloc;
 * every figure is in bytes; a figure the API cannot give is emitted with an empty value and
 * the reason. The only exported symbol of the library is heapbench_allocstat (hbstats.c). */
#ifndef HBSTATS_H
#define HBSTATS_H

#include <stdint.h>

/* Where one allocstat record goes and which phase it belongs to. */
struct hbs_out {
    int fd;
    const char *phase;
    const char *api;
};

/* Writes one `allocstat` record: value when reason is NULL, an empty value and reason otherwise. */
void hbs_emit(const struct hbs_out *o, const char *stat, const char *layer, uint64_t value, const char *reason);

/* The readers. Each gets the API function found in the object that serves malloc and emits
 * that API's statistics (o->api names the API). */
void hbs_read_mallctl(const struct hbs_out *o, void *fn);
void hbs_read_malloc_extension(const struct hbs_out *o, void *fn);
void hbs_read_mi_process_info(const struct hbs_out *o, void *fn);
void hbs_read_mallinfo2(const struct hbs_out *o, void *fn);
void hbs_read_scudo_mallinfo2(const struct hbs_out *o, void *fn);

/* Emits AnonHugePages of /proc/self/smaps_rollup (api smaps_rollup, layer hugepages). */
void hbs_read_smaps(const struct hbs_out *o);

#endif
