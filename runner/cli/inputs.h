/* inputs.h - the files a run's cells read (each trace, each --workload-bin program, each allocator
 * library) with the sha256 of their content: recorded in meta.json "inputs", checked by --resume.
 *
 * Always holds: an input is named by its real path (one entry per file, whatever number of cells
 * read it), and its digest is taken once, when the run starts; a resumed run whose input's digest
 * differs from the recorded one (or that cannot read it) stops before measuring anything, naming it.
 */
#ifndef HEAPBENCH_INPUTS_H
#define HEAPBENCH_INPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "plan/matrix.h"
#include "plan/options.h"

struct hb_input {
    char *path;   /* the file */
    char *kind;   /* "trace", "workload-bin" or "allocator" */
    char *user;   /* the workload or allocator that reads it (the first one) */
    char *sha256; /* 64 hex digits, "" when unreadable */
};

struct hb_inputs {
    struct hb_input *v;
    size_t n;
};

/* The inputs of matrix m built from options o, with their digests. */
void hb_inputs_collect(struct hb_inputs *in, const struct hb_options *o, const struct hb_matrix *m);

/* Writes the "inputs" member of meta.json: "inputs": {PATH: {"kind", "for", "sha256"}}, */
void hb_inputs_write(FILE *f, const struct hb_inputs *in);

/* --resume DIR: exits 2 naming the first input whose digest differs from DIR/meta.json's (or is
 * unreadable now, or was not recorded); a meta.json written before inputs were recorded is only warned about. */
void hb_inputs_check(const struct hb_inputs *in, const char *dir);

void hb_inputs_free(struct hb_inputs *in);

#endif
