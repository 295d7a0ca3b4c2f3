/* wl_phase.h - the workload side of the phase protocol (docs/DATA.md): served_by, phase, size, verify records.
 * Always holds: records go through wl_record (one write(2) of at most 512 bytes, to the fd named
 * by HEAPBENCH_PHASE_FD or stdout); served_by is the first record a workload writes, followed by
 * latency_clock when latency sampling is on; each phase record is followed by the latency records
 * of the samples taken during that phase (wl_latency.h). */
#ifndef WL_PHASE_H
#define WL_PHASE_H

#include <stddef.h>
#include <stdint.h>

/* The records' tags (docs/DATA.md) and the fields after a phase record's tag; the runner's reader
 * (runner/measure/phases.c) takes them from here, so the two sides spell them once. */
#define WL_TAG_SERVED_BY "served_by"
#define WL_TAG_PHASE "phase"
#define WL_PHASE_FIELDS 5 /* name, seconds, ops, live_bytes, rss_kb */
#define WL_TAG_SIZE "size"
#define WL_TAG_VERIFY "verify"
#define WL_VERIFY_OK "ok"
#define WL_VERIFY_FAIL "fail"

/* Writes the `served_by` record: the shared object that provides malloc (dladdr), then starts the
 * latency sampler (wl_lat_start). Call first. */
void wl_served_by(void);

/* Writes a `phase` record for a phase that started at t0 (wl_now()): its duration, ops done,
 * live requested bytes still held, and RSS now (/proc/self/statm); then the phase's latency
 * records (wl_lat_flush; call it when no other thread allocates). Returns the current time,
 * so the next phase can start there: t0 = wl_phase("build", t0, n, live). */
double wl_phase(const char *name, double t0, uint64_t ops, uint64_t live_bytes);

/* The same record for a phase that is a point in time (an idle mark): returns the moment its
 * duration ended, before the record was written, so that the durations of consecutive marks
 * chained this way add up exactly to the time since the first t0. */
double wl_phase_mark(const char *name, double t0, uint64_t ops, uint64_t live_bytes);

/* Writes a `phase` record with every field given (a figure measured elsewhere, such as the
 * replayer's `original` run read from a trace header). */
void wl_phase_record(const char *name, double seconds, uint64_t ops, uint64_t live_bytes, uint64_t rss_kb);

/* Writes a `size` record: one malloc_usable_size sample. */
void wl_size(size_t request, size_t usable);

/* Writes the `verify` record (ok, or fail with detail) and returns the exit status to use:
 * 0 when ok, 1 on fail. */
int wl_verify(int ok, const char *detail);

/* Resident set size of this process in KiB, from /proc/self/statm (0 if unreadable). */
uint64_t wl_rss_kb(void);

/* Minor page faults of this process so far (getrusage). */
long wl_minflt(void);

#endif
