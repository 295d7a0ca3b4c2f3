/* support/xsignal.h - glibc's test-support header of this name, mapped onto heapbench's shim.
 * Always holds: declares nothing itself; everything is in ../shim.h. */
#include "../shim.h"
