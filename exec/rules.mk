# exec/rules.mk - builds the LD_PRELOAD probe of `heapbench exec`, build/lib/libhbprobe.so
# (exec/probe.c), position-independent and exporting no symbols.

ALL += $(B)/lib/libhbprobe.so

$(B)/lib/libhbprobe.so: exec/probe.c contract/ownalloc.h | $(B)/.dir
	$(CC) $(CFLAGS) -Icontract -fPIC -fvisibility=hidden -shared -o $@ $<
