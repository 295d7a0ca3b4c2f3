/* symbolize.h - names for a trace's call-site frames, after the run: each return address is found
 * in the recorded process's mappings (its /proc/self/maps text, site_map.h), turned into the ELF
 * file's address (its program headers) and named by binutils' addr2line (function, file:line).
 * Always holds: every frame gets a name: "function (file:line)" when the file has symbols (and
 * debug line info), "function" without line info, else "FILE+0xOFFSET" with why in brackets (no
 * symbols, the file was deleted or is not readable, or the address lies in no recorded mapping:
 * "0xADDR"); addr2line runs once per file with every address of it (in batches), never per frame. */
#ifndef HEAPBENCH_SYMBOLIZE_H
#define HEAPBENCH_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/* Names for pcs[0..n) (a frame is a return address: the call instruction is the byte before it,
 * which is what is named) from the mappings' text maps (NULL: none recorded). names[i] are malloc'd
 * strings the caller frees. 0, or -1 when out of memory. */
int symbolize(const char *maps, const uint64_t *pcs, size_t n, char **names);

#endif
