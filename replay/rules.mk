# replay/rules.mk - builds the trace tools of issue 12: the recorder build/lib/libhbrecord.so
# (preloaded; record.c + record_map.c + obj_map.c + map_table.c + the trace writer), the
# replayer build/replay/hbreplay (a workload of the phase protocol, linked with
# workloads/common) and build/replay/hbtrace (trace statistics), plus the programs
# replay/tests/ records.
# Always holds: every part that reads or writes a trace compiles the one codec replay/trace.c.

RP_OBJDIR  := $(B)/obj/replay
RP_HDRS    := $(wildcard replay/*.h)
RP_WLCOMMON := $(patsubst workloads/common/%.c,$(B)/obj/workloads/common/%.o,$(wildcard workloads/common/*.c))
RP_TESTPROGS := $(patsubst replay/tests/%.c,$(B)/tests/replay-%,$(wildcard replay/tests/*.c))

ALL        += $(B)/lib/libhbrecord.so $(B)/replay/hbreplay $(B)/replay/hbtrace
TEST_BUILD += $(RP_TESTPROGS)

$(RP_OBJDIR)/%.o: replay/%.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ireplay -Iworkloads/common -c $< -o $@

$(RP_OBJDIR)/pic/%.o: replay/%.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -Ireplay -c $< -o $@

$(B)/lib/libhbrecord.so: $(patsubst %,$(RP_OBJDIR)/pic/%.o,record record_map map_table obj_map trace)
	$(CC) $(CFLAGS) -shared -o $@ $^ -lz -ldl -lpthread

$(B)/replay/hbreplay: $(patsubst %,$(RP_OBJDIR)/%.o,hbreplay replay_run trace_stats objring trace) $(RP_WLCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lz -lpthread -ldl -lm

$(B)/replay/hbtrace: $(patsubst %,$(RP_OBJDIR)/%.o,hbtrace trace_stats objring trace)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lz

$(B)/tests/replay-%: replay/tests/%.c | $(B)/.dir
	$(CC) $(CFLAGS) -o $@ $< -lpthread

.SECONDARY: $(RP_WLCOMMON)

# The tests' pauser (replay/tests/lib/pauser.c), preloaded into a replayer: a thread stopped for long.
TEST_BUILD += $(B)/lib/replay-pauser.so
$(B)/lib/replay-pauser.so: replay/tests/lib/pauser.c | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -lpthread

# The benchmark's null allocator (replay/bench/nullalloc.c + the shared interposition layer).
ALL += $(B)/lib/libhbnull.so
$(B)/lib/libhbnull.so: replay/bench/nullalloc.c allocators/interpose/interpose.c allocators/interpose/interpose.h | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -Iallocators/interpose -shared -o $@ replay/bench/nullalloc.c allocators/interpose/interpose.c

# The codec's unit test links the codec itself (not one of the programs the tests record).
$(B)/tests/replay-codec_check: replay/tests/codec_check.c replay/trace.c replay/trace_stats.c replay/objring.c $(RP_HDRS) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Ireplay -Iscripts -o $@ replay/tests/codec_check.c replay/trace.c replay/trace_stats.c replay/objring.c -lz

# The stream benchmark's synthetic trace writer (replay/bench/gentrace.c + the codec).
$(B)/bench/replay-gentrace: replay/bench/gentrace.c replay/trace.c $(RP_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ireplay -o $@ replay/bench/gentrace.c replay/trace.c -lz
