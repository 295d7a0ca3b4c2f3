/* inputs.c - the digests of the files a run's cells read, and --resume's check of them (see inputs.h).
 *
 * Always holds: the digest is coreutils' sha256sum of the file (hb_sha256_file), the same as the
 * allocators' "sha256" in meta.json.
 */
#include "cli/inputs.h"

#include <stdlib.h>
#include <string.h>

#include "write/json.h"
#include "plan/registry.h"
#include "base/sysinfo.h"

/* Adds path (once) as an input of kind read by user. */
static void hb_inputs_add(struct hb_inputs *in, const char *path, const char *kind, const char *user)
{
    for (size_t i = 0; i < in->n; i++)
        if (strcmp(in->v[i].path, path) == 0)
            return;
    in->v = hb_xappend(in->v, in->n, sizeof *in->v);
    in->v[in->n++] = (struct hb_input){hb_xstrdup(path), hb_xstrdup(kind), hb_xstrdup(user), hb_sha256_file(path)};
}

/* 1 when the workload's binary was given by --workload-bin NAME=PATH. */
static int hb_inputs_user_bin(const struct hb_options *o, const struct hb_workload *w)
{
    size_t n = strlen(w->name);
    for (size_t i = 0; i < o->user_bins.n; i++)
        if (strncmp(o->user_bins.v[i], w->name, n) == 0 && o->user_bins.v[i][n] == '=')
            return 1;
    return 0;
}

void hb_inputs_collect(struct hb_inputs *in, const struct hb_options *o, const struct hb_matrix *m)
{
    memset(in, 0, sizeof *in);
    for (size_t g = 0; g < m->ng; g++) {
        const struct hb_workload *w = m->g[g].wl;
        if (w->kind != HB_WL_BINARY)
            continue;
        if (strncmp(w->name, "trace:", 6) == 0 && w->args.n && strncmp(w->args.v[0], "--trace=", 8) == 0)
            hb_inputs_add(in, w->args.v[0] + 8, "trace", w->name);
        else if (hb_inputs_user_bin(o, w))
            hb_inputs_add(in, w->bin, "workload-bin", w->name);
    }
    for (size_t a = 0; a < m->nalloc; a++) {
        const struct hb_alloc *al = m->alloc[a];
        if (al->found)
            hb_inputs_add(in, hb_registry_expected(al), "allocator", al->name);
    }
}

void hb_inputs_write(FILE *f, const struct hb_inputs *in)
{
    fprintf(f, "  \"inputs\": {");
    for (size_t i = 0; i < in->n; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        hb_json_str(f, in->v[i].path);
        fprintf(f, ": {\"kind\": ");
        hb_json_str(f, in->v[i].kind);
        fprintf(f, ", \"for\": ");
        hb_json_str(f, in->v[i].user);
        fprintf(f, ", \"sha256\": ");
        hb_json_str(f, in->v[i].sha256);
        fprintf(f, "}");
    }
    fprintf(f, "%s},\n", in->n ? "\n  " : "");
}

void hb_inputs_check(const struct hb_inputs *in, const char *dir)
{
    char *path = hb_xasprintf("%s/meta.json", dir);
    char *text = hb_read_file(path, NULL);
    for (size_t i = 0; i < in->n; i++) {
        const struct hb_input *x = &in->v[i];
        char *then = NULL;
        if (hb_json_get_str_in(text, "inputs", x->path, "sha256", &then) != 0) {
            fprintf(stderr, "heapbench: warning: %s records no digest of its inputs (written by an older heapbench); "
                    "the traces, --workload-bin programs and allocator libraries are not checked to be the ones "
                    "it started with\n", path);
            break;
        }
        if (!then)
            hb_usage("--resume %s: %s %s (%s) is not an input the run recorded; resume from the directory the run "
                     "was started in, or start a new run with another -o", dir, x->kind, x->path, x->user);
        if (!*x->sha256)
            hb_usage("--resume %s: %s %s (%s) cannot be read now; restore it, or start a new run with another -o",
                     dir, x->kind, x->path, x->user);
        if (strcmp(then, x->sha256) != 0)
            hb_usage("--resume %s: %s %s (%s) changed since the run started (sha256 %.12s..., now %.12s...): the "
                     "rows measured so far read the old one; restore it, or start a new run with another -o",
                     dir, x->kind, x->path, x->user, then, x->sha256);
        free(then);
    }
    free(text);
    free(path);
}

void hb_inputs_free(struct hb_inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->v[i].path), free(in->v[i].kind), free(in->v[i].user), free(in->v[i].sha256);
    free(in->v);
    memset(in, 0, sizeof *in);
}
