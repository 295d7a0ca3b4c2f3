/* logtail.h - what a run's log says last: the line a failed row's reason quotes.
 *
 * Always holds: only the last 4 KiB of the log are read; the line has no control characters.
 */
#ifndef HEAPBENCH_LOGTAIL_H
#define HEAPBENCH_LOGTAIL_H

#include <stddef.h>

/* The last non-blank line of the file at path (cut to len - 1 bytes, control characters as
 * '?') into out; "" when the file is missing or blank. */
void hb_log_last_line(const char *path, char *out, size_t len);

#endif
