# replay/rules.mk - builds the three programs of replay/: the recorder build/lib/libhbrecord.so
# (replay/record/, preloaded, + the raw format of replay/common/ and the trace writer), the replayer
# build/replay/hbreplay (replay/replayer/, a workload of the phase protocol, linked with the floor's
# phase writer and workloads/common/wl_args.c), the trace tools build/replay/hbtrace and
# build/replay/hbconvert (replay/trace/), plus the programs replay/tests/ records.
# Always holds: every part that reads or writes a trace links the one codec, the floor's
# contract/trace.c; sources are compiled with -Ireplay, so an include names its folder
# (common/objring.h) unless it is in the same folder.

RP_OBJDIR  := $(B)/obj/replay
RP_HDRS    := $(wildcard replay/*/*.h) $(CONTRACT_H)
RP_WLCOMMON := $(B)/obj/workloads/common/wl_args.o $(call CONTRACT_OBJ,$(CONTRACT_PHASE))
RP_TRACE   := $(call CONTRACT_OBJ,trace)
RP_TESTPROGS := $(patsubst replay/tests/%.c,$(B)/tests/replay-%,$(wildcard replay/tests/*.c))

ALL        += $(B)/lib/libhbrecord.so $(B)/replay/hbreplay $(B)/replay/hbtrace $(B)/replay/hbconvert
TEST_BUILD += $(RP_TESTPROGS)

$(RP_OBJDIR)/%.o: replay/%.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ireplay -Icontract -Iworkloads/common -c $< -o $@

# The recorder is built with link-time optimisation, so that its hot path (record.c's wrappers, the
# address map, the chunk writer of trace.c) is inlined across files (docs/measurements/recorder.md).
RP_LTO     := -flto=auto
$(RP_OBJDIR)/pic/%.o: replay/%.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RP_LTO) -fPIC -fvisibility=hidden -Ireplay -Icontract -c $< -o $@

# The floor's codec compiled again for the recorder alone, with the same link-time optimisation.
$(RP_OBJDIR)/pic/lto-trace.o: contract/trace.c $(CONTRACT_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RP_LTO) -fPIC -fvisibility=hidden -Icontract -c $< -o $@

$(B)/lib/libhbrecord.so: $(patsubst %,$(RP_OBJDIR)/pic/%.o,record/record record/record_map record/map_table record/obj_map common/rawtrace record/record_touch record/record_site lto-trace)
	$(CC) $(CFLAGS) $(RP_LTO) -shared -o $@ $^ -lz -ldl -lpthread

$(B)/replay/hbreplay: $(patsubst %,$(RP_OBJDIR)/%.o,replayer/hbreplay replayer/replay_run replayer/peak_rss replayer/touch_table replayer/check_cache common/trace_stats common/objring replayer/explain_snap common/site_map) $(RP_TRACE) $(RP_WLCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lz -lnettle -lpthread -ldl -lm

$(B)/replay/hbtrace: $(patsubst %,$(RP_OBJDIR)/%.o,trace/hbtrace common/trace_stats common/objring common/site_map trace/symbolize) $(RP_TRACE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lz

# The recorder's post-pass: raw recordings (common/rawtrace.h) into format-4 traces.
$(B)/replay/hbconvert: $(patsubst %,$(RP_OBJDIR)/%.o,trace/hbconvert common/rawtrace trace/addr_table trace/conv_sites) $(RP_TRACE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lz

$(B)/tests/replay-%: replay/tests/%.c | $(B)/.dir
	$(CC) $(CFLAGS) -o $@ $< -lpthread

.SECONDARY: $(B)/obj/workloads/common/wl_args.o

# The tests' pauser (replay/tests/lib/pauser.c), preloaded into a replayer: a thread stopped for long.
TEST_BUILD += $(B)/lib/replay-pauser.so
$(B)/lib/replay-pauser.so: replay/tests/lib/pauser.c | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -lpthread

# The tests' slow allocator (replay/tests/lib/slowmalloc.c), preloaded after the recorder: one call stuck at exit.
TEST_BUILD += $(B)/lib/replay-slowmalloc.so
$(B)/lib/replay-slowmalloc.so: replay/tests/lib/slowmalloc.c | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# The benchmark's null allocator (replay/bench/nullalloc.c + the shared interposition layer).
ALL += $(B)/lib/libhbnull.so
$(B)/lib/libhbnull.so: replay/bench/nullalloc.c allocators/interpose/interpose.c allocators/interpose/interpose.h | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -Iallocators/interpose -shared -o $@ replay/bench/nullalloc.c allocators/interpose/interpose.c

# The codec's unit test links the codec itself (not one of the programs the tests record).
$(B)/tests/replay-codec_check: replay/tests/codec_check.c contract/trace.c replay/common/trace_stats.c replay/common/objring.c replay/replayer/touch_table.c $(RP_HDRS) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Icontract -Iscripts -o $@ replay/tests/codec_check.c contract/trace.c replay/common/trace_stats.c replay/common/objring.c replay/replayer/touch_table.c -lz

# The order check of recorded traces reads them through the codec.
$(B)/tests/replay-orders: replay/tests/orders.c contract/trace.c $(RP_HDRS) | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Icontract -o $@ replay/tests/orders.c contract/trace.c -lz

# The stream benchmark's synthetic trace writer (replay/bench/gentrace.c + the codec).
$(B)/bench/replay-gentrace: replay/bench/gentrace.c contract/trace.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icontract -o $@ replay/bench/gentrace.c contract/trace.c -lz

# The post-pass's check: two traces' events compared through the codec.
$(B)/tests/replay-tracediff: replay/tests/tracediff.c contract/trace.c $(RP_HDRS) | $(B)/.dir
	$(CC) $(CFLAGS) -Icontract -o $@ replay/tests/tracediff.c contract/trace.c -lz

# A raw recording written by hand (an order a real run makes only by chance), for hbconvert's test.
$(B)/tests/replay-rawgen: replay/tests/rawgen.c replay/common/rawtrace.c contract/trace.c $(RP_HDRS) | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Icontract -o $@ replay/tests/rawgen.c replay/common/rawtrace.c contract/trace.c -lz

# A raw recording's numbers read back (stamped or counted, rising per thread), for the order's test.
$(B)/tests/replay-rawstamps: replay/tests/rawstamps.c replay/common/rawtrace.c contract/trace.c $(RP_HDRS) | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Icontract -o $@ replay/tests/rawstamps.c replay/common/rawtrace.c contract/trace.c -lz

# The open-addressing core's unit test links the post-pass's table on it.
$(B)/tests/replay-oa_check: replay/tests/oa_check.c replay/trace/addr_table.c $(RP_HDRS) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Icontract -Iscripts -o $@ replay/tests/oa_check.c replay/trace/addr_table.c
