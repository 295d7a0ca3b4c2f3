/* layout.c - where heapbench's parts are (see layout.h): a source tree, or an install prefix read through its LAYOUT.
 *
 * Always holds: the decision (source tree or installed, and the root) is taken once per process;
 * an installed heapbench maps paths only through the LAYOUT file installed with it (the same
 * table install/stage installed it by), so the two cannot disagree.
 */
#include "base/layout.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "base/version.h"

#define HB_LAYOUT_REL "share/heapbench/LAYOUT"

static struct {
    int done;
    int installed;
    char root[PATH_MAX];
    char *layout_file;        /* installed only */
    struct hb_strv src, dest; /* the LAYOUT lines, installed only */
} hb_layout;

/* 1 when path names an existing file. */
static int hb_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Cuts the last path component off path (keeps "/" for the root). */
static void hb_dirname(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        slash = path + 1;
    *slash = '\0';
}

/* 1 when dir/rel exists. */
static int hb_has(const char *dir, const char *rel)
{
    char *p = hb_xasprintf("%s/%s", dir, rel);
    int yes = hb_exists(p);
    free(p);
    return yes;
}

/* Reads PREFIX/share/heapbench/LAYOUT into the src/dest vectors. */
static void hb_layout_load(void)
{
    hb_layout.layout_file = hb_xasprintf("%s/%s", hb_layout.root, HB_LAYOUT_REL);
    char *text = hb_read_file(hb_layout.layout_file, NULL);
    if (!text)
        hb_fatal("cannot read %s: %s; reinstall heapbench", hb_layout.layout_file, strerror(errno));
    struct hb_strv fields = {0};
    size_t pos = 0, line = 0;
    while (hb_table_next(text, &pos, &line, &fields) == 0) {
        if (fields.n != 2)
            hb_fatal("%s:%zu: want 'source | destination'; reinstall heapbench", hb_layout.layout_file, line);
        hb_strv_push(&hb_layout.src, fields.v[0]);
        hb_strv_push(&hb_layout.dest, fields.v[1]);
    }
    hb_strv_free(&fields);
    free(text);
}

/* Decides, once: installed next to the executable (PREFIX/bin/heapbench), a source tree
 * (ROOT/build/...), installed under the compiled-in prefix, or (as before installs existed) the
 * parent of the executable's directory. */
static void hb_layout_init(void)
{
    if (hb_layout.done)
        return;
    hb_layout.done = 1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        hb_fatal("cannot read /proc/self/exe: %s", strerror(errno));
    exe[n] = '\0';
    strcpy(hb_layout.root, exe);
    hb_dirname(hb_layout.root);
    hb_dirname(hb_layout.root);
    int in_build = strstr(exe, "/build/") != NULL || hb_has(hb_layout.root, "install/LAYOUT");
    if (!hb_has(hb_layout.root, HB_LAYOUT_REL)) {
        if (in_build || !hb_has(hb_build_prefix(), HB_LAYOUT_REL))
            return;
        snprintf(hb_layout.root, sizeof hb_layout.root, "%s", hb_build_prefix());
    }
    hb_layout.installed = 1;
    hb_layout_load();
}

const char *hb_root(void)
{
    hb_layout_init();
    return hb_layout.root;
}

int hb_installed(void)
{
    hb_layout_init();
    return hb_layout.installed;
}

const char *hb_layout_file(void)
{
    hb_layout_init();
    return hb_layout.layout_file;
}

/* Length of the folder a LAYOUT source names (one ending in a slash and one or two stars); 0 for one file. */
static size_t hb_layout_dir_len(const char *src)
{
    size_t n = strlen(src);
    if (n >= 3 && strcmp(src + n - 3, "/**") == 0)
        return n - 3;
    if (n >= 2 && strcmp(src + n - 2, "/*") == 0)
        return n - 2;
    return 0;
}

char *hb_root_path(const char *rel)
{
    if (rel[0] == '/')
        return hb_xstrdup(rel);
    hb_layout_init();
    if (!hb_layout.installed)
        return hb_xasprintf("%s/%s", hb_layout.root, rel);
    for (size_t i = 0; i < hb_layout.src.n; i++) {
        const char *src = hb_layout.src.v[i], *dest = hb_layout.dest.v[i];
        size_t dir = hb_layout_dir_len(src);
        if (!dir && strcmp(rel, src) == 0)
            return hb_xasprintf("%s/%s", hb_layout.root, dest);
        if (dir && strncmp(rel, src, dir) == 0 && (rel[dir] == '\0' || rel[dir] == '/'))
            return hb_xasprintf("%s/%s%s", hb_layout.root, dest, rel + dir);
    }
    return hb_xasprintf("%s/share/heapbench/%s", hb_layout.root, rel);
}

/* path made absolute against the current directory; new string. */
static char *hb_absolute(const char *path)
{
    if (path[0] == '/')
        return hb_xstrdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        hb_fatal("cannot read the current directory: %s", strerror(errno));
    return hb_xasprintf("%s/%s", cwd, path);
}

char *hb_results_dir(void)
{
    const char *env = getenv("HEAPBENCH_RESULTS");
    if (env && *env)
        return hb_absolute(env);
    if (hb_installed())
        return hb_absolute("results");
    return hb_xasprintf("%s/results", hb_root());
}
