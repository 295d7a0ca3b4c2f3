/* logtail.h - a run's log after the run: the line a failed row's reason quotes, and the cap on
 * its size (its head and tail are kept, the middle replaced by one line saying how much went).
 *
 * Always holds: hb_log_last_line reads only the last 4 KiB and returns no control characters;
 * after hb_log_cap(path, cap) the file holds at most cap bytes plus the one marker line.
 */
#ifndef HEAPBENCH_LOGTAIL_H
#define HEAPBENCH_LOGTAIL_H

#include <stddef.h>

/* The last non-blank line of the file at path (cut to len - 1 bytes, control characters as
 * '?') into out; "" when the file is missing or blank. */
void hb_log_last_line(const char *path, char *out, size_t len);

/* The cap of every run's log (docs/DATA.md): its first and last half are kept. */
#define HB_LOG_CAP (1024 * 1024)

/* When the file at path is larger than cap, keeps its first and last cap/2 bytes with the line
 * "[heapbench: N bytes of this log were cut here; a log keeps its first and last K KiB]"
 * between them. 0, or -1 when the file could not be rewritten (it is then left whole). */
int hb_log_cap(const char *path, size_t cap);

#endif
