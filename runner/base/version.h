/* version.h - what this heapbench binary is: its version, the commit it was built from, its install prefix.
 *
 * Always holds: the three are compiled in (runner/rules.mk passes them to version.c alone, which
 * is rebuilt when one changes), so they describe the binary, never the directory it runs in;
 * none is NULL or empty ("unknown" when the build had no git and no .hb-commit).
 */
#ifndef HEAPBENCH_VERSION_H
#define HEAPBENCH_VERSION_H

/* The version of debian/changelog's first entry, e.g. "0.1.0". */
const char *hb_version(void);

/* The commit heapbench was built from (40 hex digits, "-dirty" appended when the tree had
 * changes), or "unknown". */
const char *hb_commit(void);

/* The PREFIX it was built for (make PREFIX=...; /usr/local by default, /usr in the package). */
const char *hb_build_prefix(void);

#endif
