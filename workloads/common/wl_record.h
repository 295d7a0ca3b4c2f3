/* wl_record.h - the transport of the phase protocol (docs/DATA.md): one record, one write(2).
 * Always holds: records go to the fd named by HEAPBENCH_PHASE_FD, or to stdout when it is unset;
 * each record is one line of TAB-separated fields written with a single write(2) of at most
 * WL_RECORD_MAX bytes (atomic on a pipe); a longer record is cut and still ends in '\n'. */
#ifndef WL_RECORD_H
#define WL_RECORD_H

#define WL_RECORD_MAX 512

/* Formats one record (printf-style; the format supplies the trailing newline) and writes it. */
void wl_record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The fd records go to (for writers of whole records of their own, such as the statistics library). */
int wl_record_fd(void);

#endif
