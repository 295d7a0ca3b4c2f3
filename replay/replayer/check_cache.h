/* check_cache.h - the load's check of a trace (hbt_stats: every object's use checked, the counts
 * the replay is verified against) kept beside the trace as FILE.check, keyed by the SHA-256 of the
 * trace's size, header and chunk headers (each chunk's header holds its payload's CRC-32, which
 * hbt_open checks) and of the replayer's own executable, so that a trace replayed again (every rep
 * of every allocator of a matrix) is checked once: what `load` then costs is hbt_open's one read of
 * the trace (framing and CRCs) instead of walking its events in the global order.
 * Always holds: a cached check is used only when its key is the trace's current content (up to a
 * change of a chunk's payload that keeps its CRC-32) and this very executable's (any rebuild, any
 * other change of the trace's bytes makes a new walk); a trace the
 * walk refuses is never cached; the file is written whole or not at all (a temporary file renamed);
 * a directory that cannot be written only means no cache; no memory comes from the allocator (the
 * hash's buffer is mmap'd, nettle's context is on the stack). */
#ifndef HEAPBENCH_CHECK_CACHE_H
#define HEAPBENCH_CHECK_CACHE_H

#include "common/trace_stats.h"

enum check_how { CHECK_CACHED, CHECK_FULL }; /* --check=cached|full */

/* hbt_stats(t) for the trace at path (opened with hbt_open_unchecked) and its threads' first and
 * last orders and exits, from path.check when its key matches (the same bytes passed the walk
 * before), else by walking the trace once, decoding every event checked (hbt_stats_check), and then
 * storing them there (how CHECK_FULL: always walk, still store). 0, or -1 with the walk's one-line
 * reason (a malformed event, an object used as no program can) in err. */
int check_trace(const char *path, struct hbt_trace *t, enum check_how how, struct hbt_stats *s, char *err, size_t errlen);
#endif
