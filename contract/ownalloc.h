/* ownalloc.h - the entry points by which a program calls an allocator of its own, bypassing the
 * malloc that LD_PRELOAD replaces, and the probe's records about them (docs/DATA.md).
 *
 * Always holds: one table, read by the exec probe (exec/probe.c: the objects loaded at start-up)
 * and the runner (runner/measure/ownscan.c: the program file's static symbol table); each entry
 * is a symbol only that allocator defines and the allocator's name as runs.csv's own_allocator
 * column spells it. Header-only (the probe links nothing of the floor).
 */
#ifndef HB_OWNALLOC_H
#define HB_OWNALLOC_H

/* The probe's records: `own_allocator<TAB>NAME<TAB>OBJECT` at start-up, one per allocator
 * found, and `own_share<TAB>FRACTION` at exit (the share of the process's anonymous memory
 * that the own allocator does not hold, when it has a statistics API the probe reads). */
#define HB_TAG_OWN_ALLOCATOR "own_allocator"
#define HB_TAG_OWN_SHARE "own_share"

struct hb_own_entry {
    const char *symbol, *allocator;
};

/* mimalloc (mi_), jemalloc built with a prefix (je_; _rjem_ is Rust's jemallocator crate),
 * gperftools (tc_), rpmalloc, Intel TBB's scalable allocator. */
static const struct hb_own_entry hb_own_entries[] = {
    {"mi_malloc", "mimalloc"},     {"je_malloc", "jemalloc"}, {"_rjem_malloc", "jemalloc"},
    {"tc_malloc", "tcmalloc"},     {"rpmalloc", "rpmalloc"},  {"scalable_malloc", "tbbmalloc"},
};
#define HB_OWN_NENTRIES (sizeof hb_own_entries / sizeof hb_own_entries[0])

#endif
