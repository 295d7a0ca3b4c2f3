/* registry.c - parses allocators/registry.txt, resolves libraries, reads versions and hashes.
 *
 * Always holds: a non-system allocator is found only when its library path exists; the
 * path stored is the realpath, so served_by (also realpath'd) can be compared with strcmp; a
 * candidate with glob characters stands for its matches, the highest version first (strverscmp:
 * llvm-15 before llvm-14), which report/heapbench/registry.py's version_key orders alike.
 */
#include "plan/registry.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/elfcheck.h"
#include "base/sysinfo.h"
#include "base/layout.h"
#include "base/util.h"
#include "base/version.h"

/* Newest version first: strverscmp reversed, for qsort over glob's matches. */
static int hb_registry_newest_first(const void *x, const void *y)
{
    return strverscmp(*(char *const *)y, *(char *const *)x);
}

/* Sets a->lib to the realpath of full, or of its newest existing match when it is a glob
 * pattern; returns 1 when found. */
static int hb_registry_try(struct hb_alloc *a, const char *full)
{
    char real[PATH_MAX];
    if (!strpbrk(full, "*?[")) {
        if (!realpath(full, real))
            return 0;
        a->lib = hb_xstrdup(real);
        return 1;
    }
    glob_t g;
    int found = 0;
    if (glob(full, GLOB_NOSORT, NULL, &g) == 0) {
        qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, hb_registry_newest_first);
        for (size_t i = 0; i < g.gl_pathc && !found; i++)
            if (realpath(g.gl_pathv[i], real)) {
                a->lib = hb_xstrdup(real);
                found = 1;
            }
    }
    globfree(&g);
    return found;
}

/* Picks the first existing candidate of a (':'-separated, root-relative, glob patterns allowed)
 * and sets found/lib. */
static void hb_registry_resolve(struct hb_alloc *a)
{
    a->system = strcmp(a->candidates, "-") == 0;
    a->found = a->system;
    if (a->system)
        return;
    struct hb_strv paths = {0};
    hb_strv_split(&paths, a->candidates, ":", 0);
    for (size_t i = 0; i < paths.n && !a->found; i++) {
        char *full = hb_root_path(paths.v[i]);
        a->found = hb_registry_try(a, full);
        free(full);
    }
    hb_strv_free(&paths);
}

/* Parses the registry text into reg. */
int hb_registry_parse(struct hb_registry *reg, const char *text, char *err, size_t errlen)
{
    struct hb_strv f = {0};
    size_t pos = 0, ln = 0;
    int rc = 0;
    while (rc == 0 && hb_table_next(text, &pos, &ln, &f) == 0) {
        if (f.n != 6 || !*f.v[0] || !*f.v[1] ||
            (strcmp(f.v[5], "default") != 0 && strcmp(f.v[5], "opt-in") != 0)) {
            snprintf(err, errlen, "line %zu: want 'name | libraries | package | version | tunables | "
                     "default|opt-in', got %zu fields", ln, f.n);
            rc = -1;
        } else {
            reg->a = hb_xappend(reg->a, reg->n, sizeof *reg->a);
            struct hb_alloc *a = memset(&reg->a[reg->n++], 0, sizeof *reg->a);
            a->name = hb_xstrdup(f.v[0]);
            a->candidates = hb_xstrdup(f.v[1]);
            a->package = hb_xstrdup(f.v[2]);
            a->version_how = hb_xstrdup(f.v[3]);
            a->tunables = hb_xstrdup(f.v[4]);
            a->is_default = strcmp(f.v[5], "default") == 0;
            hb_registry_resolve(a);
        }
    }
    hb_strv_free(&f);
    return rc;
}

/* Loads the project's registry file or exits 1. */
void hb_registry_load(struct hb_registry *reg)
{
    char *path = hb_root_path("allocators/registry.txt");
    char *text = hb_read_file(path, NULL);
    char err[256];
    if (!text)
        hb_fatal("cannot read %s; run heapbench from its build/ directory of a full checkout", path);
    if (hb_registry_parse(reg, text, err, sizeof err) != 0)
        hb_fatal("%s: %s", path, err);
    free(text);
    free(path);
}

/* The allocator named name, or NULL. */
struct hb_alloc *hb_registry_find(const struct hb_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->n; i++)
        if (strcmp(reg->a[i].name, name) == 0)
            return &reg->a[i];
    return NULL;
}

/* Adds NAME=PATH, after checking that PATH is a shared object. */
struct hb_alloc *hb_registry_add_user(struct hb_registry *reg, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        hb_usage("--allocator wants NAME=/path/lib.so, got '%s'", spec);
    char why[256] = "";
    char *name = hb_xasprintf("%.*s", (int)(eq - spec), spec);
    if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-") != strlen(name))
        hb_usage("--allocator %s: the name '%s' may hold only letters, digits and _.+- (no commas or blanks)",
                 spec, name);
    struct hb_alloc *old = hb_registry_find(reg, name);
    if (old)
        hb_usage("--allocator %s: '%s' is already %s; choose another name", spec, name,
                 strcmp(old->version_how, "path") == 0 ? "given by another --allocator" : "a registry allocator");
    char cwd[PATH_MAX];
    char *path = eq[1] == '/' || !getcwd(cwd, sizeof cwd) ? hb_xstrdup(eq + 1) : hb_xasprintf("%s/%s", cwd, eq + 1);
    if (!hb_is_shared_object(path, why, sizeof why))
        hb_usage("--allocator %s: %s is not a shared object (%s); give the path of a .so library",
                 spec, path, why);
    reg->a = hb_xappend(reg->a, reg->n, sizeof *reg->a);
    struct hb_alloc *a = &reg->a[reg->n++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->candidates = path;
    a->package = hb_xstrdup("-");
    a->version_how = hb_xstrdup("path");
    a->tunables = hb_xstrdup("none");
    hb_registry_resolve(a);
    return a;
}

/* Comma-separated names. */
char *hb_registry_names(const struct hb_registry *reg)
{
    struct hb_strv names = {0};
    for (size_t i = 0; i < reg->n; i++)
        hb_strv_push(&names, reg->a[i].name);
    char *s = hb_strv_join(&names, ", ");
    hb_strv_free(&names);
    return s;
}

/* The version of the Debian package that ships path ("" when dpkg knows no owner). dpkg
 * records the path as the package installed it, which may differ from the realpath by a
 * merged /usr, so both spellings are asked. */
static char *hb_registry_owner_version(const char *path)
{
    char *usr = strncmp(path, "/usr/", 5) == 0 ? hb_xstrdup(path + 4) : hb_xasprintf("/usr%s", path);
    char *owners = hb_xstrdup("");
    for (const char *p = path; p && !*owners; p = p == path ? usr : NULL) {
        char *argv[] = {"dpkg-query", "-S", (char *)p, NULL};
        free(owners);
        owners = hb_capture(argv);
    }
    char *colon = strstr(owners, ": ");
    char *version = NULL;
    if (colon) {
        *colon = '\0';
        owners[strcspn(owners, ",")] = '\0';
        char *argv[] = {"dpkg-query", "-W", "-f=${Version}", owners, NULL};
        version = hb_capture(argv);
    }
    free(owners);
    free(usr);
    return version ? version : hb_xstrdup("");
}

/* Reads the version the registry says how to read, and the library's sha256. */
void hb_registry_identify(struct hb_alloc *a)
{
    if (a->version)
        return;
    if (strncmp(a->version_how, "dpkg:", 5) == 0) {
        char *argv[] = {"dpkg-query", "-W", "-f=${Version}", a->version_how + 5, NULL};
        a->version = hb_capture(argv);
    } else if (strcmp(a->version_how, "dpkg") == 0) {
        a->version = a->found ? hb_registry_owner_version(a->lib) : hb_xstrdup("");
    } else if (strcmp(a->version_how, "glibc") == 0) {
        a->version = hb_sys_glibc();
    } else if (strcmp(a->version_how, "git") == 0) {
        a->version = hb_xstrdup(hb_commit());
    } else {
        a->version = hb_xstrdup("");
    }
    const char *lib = a->system ? NULL : a->lib;
    char *libc = a->system ? hb_sys_libc_path() : NULL;
    a->sha256 = a->found ? hb_sha256_file(lib ? lib : libc) : hb_xstrdup("");
    free(libc);
}

/* What served_by must be for this allocator. */
const char *hb_registry_expected(const struct hb_alloc *a)
{
    static char *libc;
    if (!a->system)
        return a->lib;
    if (!libc)
        libc = hb_sys_libc_path();
    return libc;
}

/* Frees every allocator. */
void hb_registry_free(struct hb_registry *reg)
{
    for (size_t i = 0; i < reg->n; i++) {
        struct hb_alloc *a = &reg->a[i];
        free(a->name), free(a->candidates), free(a->package), free(a->version_how);
        free(a->tunables), free(a->lib), free(a->version), free(a->sha256);
    }
    free(reg->a);
    reg->a = NULL;
    reg->n = 0;
}
