/* wl_record.h - the transport of the phase protocol (docs/DATA.md): one record, one write(2).
 * Always holds: records go to the fd named by HEAPBENCH_PHASE_FD, or to stdout when it is unset;
 * each record is one line of TAB-separated fields written with a single write(2) of at most
 * WL_RECORD_MAX bytes (atomic on a pipe); a longer record is cut and still ends in '\n'; no malloc
 * (the statistics library, which must not allocate, writes its records with wl_record_to). */
#ifndef WL_RECORD_H
#define WL_RECORD_H

#define WL_RECORD_MAX 512

/* Formats one record (printf-style; the format supplies the trailing newline) and writes it. */
void wl_record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same record to the given fd (the statistics library writes to the fd the workload hands it). */
void wl_record_to(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The fd records go to: HEAPBENCH_PHASE_FD when set to a number, else stdout (1). */
int wl_record_fd(void);

#endif
