/* progress.h - progress of a run on stderr: on a terminal a bar "cell i/N, current cell,
 * elapsed, ETA" redrawn in place; otherwise one plain line per finished run.
 *
 * Always holds: nothing is written to stdout (the summary and "results: DIR" own it).
 */
#ifndef HEAPBENCH_PROGRESS_H
#define HEAPBENCH_PROGRESS_H

#include <stddef.h>

struct hb_progress {
    size_t total, done;
    double t0;
    int tty;
};

/* Starts counting total process runs (warm-ups included). */
void hb_progress_start(struct hb_progress *p, size_t total);
/* Shows that the run described by label is starting (redraws the bar on a terminal). */
void hb_progress_begin(struct hb_progress *p, const char *label);
/* Records a finished run: its status word and wall time (plain line when not a terminal). */
void hb_progress_end(struct hb_progress *p, const char *label, const char *status, double wall_s);
/* Prints a message on its own line (clears the bar first). */
void hb_progress_note(struct hb_progress *p, const char *msg);
/* Clears the bar. */
void hb_progress_finish(struct hb_progress *p);

#endif
