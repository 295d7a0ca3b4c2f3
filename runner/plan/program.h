/* program.h - real-program workloads: exec/programs/<name>.prog definitions (key = value lines).
 *
 * Always holds: a loaded hb_program has a command; missing is NULL exactly when every program
 * named in requires is on PATH, or for a path with a '/' is executable (otherwise its cells
 * are skipped, never run).
 */
#ifndef HEAPBENCH_PROGRAM_H
#define HEAPBENCH_PROGRAM_H

#include <stddef.h>

#include "base/util.h"

#define HB_PROGRAM_REQUIRES_MAX 64 /* programs a definition may require (each is looked up on PATH) */

struct hb_program {
    char *name;
    char *description, *package, *setup, *command, *ready, *driver, *cleanup, *metric;
    char *matrix;      /* "default" (or absent): in the default matrix; "opt-in": only when named (-w prog:NAME) */
    struct hb_strv requires;  /* at most HB_PROGRAM_REQUIRES_MAX */
    char *missing;     /* first required program not on PATH (not executable), or NULL */
    char *workdir;     /* set by hb_program_setup() */
    int port;          /* HB_PORT, set by hb_program_setup() */
    int setup_done;
};

/* Parses a definition's text. Returns 0, or -1 with err "line N: ..." (unknown key,
 * missing '=', no command). */
int hb_program_parse(struct hb_program *p, const char *name, const char *text, char *err, size_t errlen);

/* Loads every $ROOT/exec/programs/NAME.prog, sorted by name; a malformed one exits 1. */
void hb_program_load_all(struct hb_program **out, size_t *n);

/* Expands $HB_WORKDIR $HB_PROGDIR $HB_ROOT $HB_PORT in line and splits it on blanks into argv
 * (appended to out). NULL or empty line appends nothing. */
void hb_program_argv(const struct hb_program *p, const char *line, struct hb_strv *out);

/* Environment entries HB_WORKDIR=... HB_PROGDIR=... HB_ROOT=... HB_PORT=... appended to env. */
void hb_program_env(const struct hb_program *p, struct hb_strv *env);

/* Creates workdir (mkdir -p), picks a free loopback port and runs setup with /bin/sh -c in
 * workdir. Returns 0, or -1 with err set (setup failed: its cells are failed rows). */
int hb_program_setup(struct hb_program *p, const char *workdir, char *err, size_t errlen);

/* Runs cleanup (if any, after a setup) with /bin/sh -c; errors are reported on stderr only. */
void hb_program_cleanup(struct hb_program *p);

void hb_program_free(struct hb_program *p);

#endif
