/* progress.c - the progress bar / lines on stderr (see progress.h).
 *
 * Always holds: the bar fits one 100-column line and is cleared before any other message.
 */
#include "run/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Monotonic seconds. */
static double hb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Formats seconds as m:ss into buf. */
static const char *hb_mmss(double s, char *buf, size_t len)
{
    if (s < 0) {
        snprintf(buf, len, "?");
        return buf;
    }
    snprintf(buf, len, "%d:%02d", (int)s / 60, (int)s % 60);
    return buf;
}

/* Starts the clock. */
void hb_progress_start(struct hb_progress *p, size_t total)
{
    p->total = total;
    p->done = 0;
    p->t0 = hb_now();
    p->tty = isatty(2);
}

/* Redraws the bar with the starting run. */
void hb_progress_begin(struct hb_progress *p, const char *label)
{
    if (!p->tty)
        return;
    double el = hb_now() - p->t0;
    double eta = p->done ? el / (double)p->done * (double)(p->total - p->done) : -1;
    char e1[16], e2[16], bar[21];
    size_t fill = p->total ? p->done * 20 / p->total : 0;
    for (size_t i = 0; i < 20; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[20] = '\0';
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %-.50s  %s elapsed, ETA %s", bar, p->done + 1, p->total, label,
            hb_mmss(el, e1, sizeof e1), hb_mmss(eta, e2, sizeof e2));
    fflush(stderr);
}

/* Counts a finished run; plain line off a terminal. */
void hb_progress_end(struct hb_progress *p, const char *label, const char *status, double wall_s)
{
    p->done++;
    if (!p->tty)
        fprintf(stderr, "[%zu/%zu] %s: %s %.3fs\n", p->done, p->total, label, status, wall_s);
}

/* A message on its own line. */
void hb_progress_note(struct hb_progress *p, const char *msg)
{
    fprintf(stderr, "%s%s\n", p->tty ? "\r\033[K" : "", msg);
}

/* Clears the bar. */
void hb_progress_finish(struct hb_progress *p)
{
    if (p->tty)
        fprintf(stderr, "\r\033[K");
}
