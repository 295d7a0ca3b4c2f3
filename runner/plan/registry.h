/* registry.h - the allocators a run can use: allocators/registry.txt plus --allocator NAME=PATH.
 *
 * Always holds: an hb_alloc with system=1 preloads nothing (glibc); otherwise found=1 means
 * lib is an existing path (realpath'd) and found=0 means none of the candidates exists
 * (its rows are skipped with "not installed: apt-get install PKG", never run as glibc).
 */
#ifndef HEAPBENCH_REGISTRY_H
#define HEAPBENCH_REGISTRY_H

#include <stddef.h>

struct hb_alloc {
    char *name;
    char *candidates;   /* registry text: paths separated by ':' or "-" */
    char *package;      /* Debian package or "-" */
    char *version_how;  /* dpkg:PKG, glibc, git, or "path" for --allocator */
    char *tunables;
    int is_default;     /* matrix column: default (1) or opt-in (0) */
    int system;         /* 1: glibc, nothing preloaded */
    int found;
    char *lib;          /* realpath of the library (NULL for system or missing) */
    char *version;      /* filled by hb_registry_identify() */
    char *sha256;       /* of lib, filled by hb_registry_identify() */
};

struct hb_registry {
    struct hb_alloc *a;
    size_t n;
};

/* Parses registry text (format of docs/DATA.md) and resolves each library against the
 * project root. Returns 0, or -1 with err set to "line N: what is wrong". */
int hb_registry_parse(struct hb_registry *reg, const char *text, char *err, size_t errlen);

/* Loads $ROOT/allocators/registry.txt; exits 1 with a message when unreadable or malformed. */
void hb_registry_load(struct hb_registry *reg);

/* Adds an allocator from --allocator NAME=PATH (a relative PATH is taken from the current
 * directory); exits 2 when PATH is not a shared object, NAME is empty, holds a character other
 * than letters, digits and _.+-, or names an allocator already known (registry or --allocator). The new allocator is opt-in only in the sense that it runs
 * because it was asked for. */
struct hb_alloc *hb_registry_add_user(struct hb_registry *reg, const char *spec);

/* The allocator named name, or NULL. */
struct hb_alloc *hb_registry_find(const struct hb_registry *reg, const char *name);

/* "glibc, jemalloc, ..." - every name, for error messages; new string. */
char *hb_registry_names(const struct hb_registry *reg);

/* Fills version and sha256 (runs dpkg-query and sha256sum once). */
void hb_registry_identify(struct hb_alloc *a);

/* The path served_by must resolve to for this allocator (libc.so.6 realpath for system). */
const char *hb_registry_expected(const struct hb_alloc *a);

void hb_registry_free(struct hb_registry *reg);

#endif
