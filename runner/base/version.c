/* version.c - the compiled-in version, commit and prefix of this heapbench binary (see version.h).
 *
 * Always holds: HB_VERSION, HB_COMMIT and HB_PREFIX come from the Makefile (-D); a build without
 * them (a test compiling this file alone) reports "unknown" and /usr/local.
 */
#include "base/version.h"

#ifndef HB_VERSION
#define HB_VERSION "unknown"
#endif
#ifndef HB_COMMIT
#define HB_COMMIT "unknown"
#endif
#ifndef HB_PREFIX
#define HB_PREFIX "/usr/local"
#endif

const char *hb_version(void)
{
    return *HB_VERSION ? HB_VERSION : "unknown";
}

const char *hb_commit(void)
{
    return *HB_COMMIT ? HB_COMMIT : "unknown";
}

const char *hb_build_prefix(void)
{
    return HB_PREFIX;
}
