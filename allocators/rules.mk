# allocators/rules.mk - builds the four teaching allocators (allocators/teach/) as
# build/lib/lib{bump,freelist,trim,mmap}.so and their test program build/tests/allocators-teach.
# Each library is its own objects plus its own copy of the interposition layer
# (allocators/interpose/interpose.c), compiled -fPIC -fvisibility=hidden so that only the
# malloc API is exported. Objects live in build/obj/allocators/ (refmalloc's are elsewhere).

TEACH_NAMES  := bump freelist trim mmap
TEACH_LIBS   := $(patsubst %,$(B)/lib/lib%.so,$(TEACH_NAMES))
TEACH_OBJDIR := $(B)/obj/allocators/teach
TEACH_CFLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -Iallocators/interpose -Iallocators/teach
TEACH_HDRS   := allocators/teach/teach.h allocators/interpose/interpose.h

ALL        += $(TEACH_LIBS)
TEST_BUILD += $(B)/tests/allocators-teach

$(TEACH_OBJDIR)/%.o: allocators/teach/%.c $(TEACH_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(TEACH_CFLAGS) -c $< -o $@

$(TEACH_OBJDIR)/interpose.o: allocators/interpose/interpose.c $(TEACH_HDRS) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(TEACH_CFLAGS) -c $< -o $@

# freelist, trim and mmap are core.c with the policy of their own file; bump stands alone.
$(B)/lib/libfreelist.so $(B)/lib/libtrim.so $(B)/lib/libmmap.so: $(TEACH_OBJDIR)/core.o

$(TEACH_LIBS): $(B)/lib/lib%.so: $(TEACH_OBJDIR)/%.o $(TEACH_OBJDIR)/sys.o $(TEACH_OBJDIR)/interpose.o
	$(CC) $(TEACH_CFLAGS) -shared -o $@ $^ -lpthread

$(B)/tests/allocators-teach: allocators/tests/teach_check.c scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Iscripts -o $@ $< -lpthread

# The allocator-statistics library (allocators/stats/): build/lib/libhbstats.so, preloaded beside
# an allocator; only heapbench_allocstat is exported (-fvisibility=hidden, HBS_EXPORT). Its records
# go through the floor's allocstat and record writers and it reads AnonHugePages with the floor's
# THP parser (contract/wl_allocstat.c, wl_record.c and thp.c, linked in PIC).
HBSTATS_SRC := $(filter-out allocators/stats/ctlcost.c,$(wildcard allocators/stats/*.c))
HBSTATS_CONTRACT := $(call CONTRACT_PIC,wl_allocstat wl_record thp)
HBSTATS_LIB := $(B)/lib/libhbstats.so
ALL += $(HBSTATS_LIB)

# allocators/stats/bench's probe of what each mallctl step costs jemalloc (not part of the library).
HBSTATS_CTLCOST := $(B)/bench/hbstats-ctlcost
ALL += $(HBSTATS_CTLCOST)

$(HBSTATS_CTLCOST): allocators/stats/ctlcost.c | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -ldl -lpthread

$(HBSTATS_LIB): $(HBSTATS_SRC) allocators/stats/hbstats.h $(HBSTATS_CONTRACT) $(CONTRACT_H) | $(B)/.dir
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -shared -Icontract -o $@ $(HBSTATS_SRC) $(HBSTATS_CONTRACT) -ldl

# The huge-page mode launcher (allocators/thp/): build/hb-thp MODE ... -- CMD, on the floor's
# contract/thp.c (the one table of modes and switches, which the runner's --thp uses too).
HBTHP_BIN := $(B)/hb-thp
ALL += $(HBTHP_BIN)

$(HBTHP_BIN): allocators/thp/hb-thp.c $(call CONTRACT_OBJ,thp) contract/thp.h | $(B)/.dir
	$(CC) $(CFLAGS) -Icontract -o $@ allocators/thp/hb-thp.c $(call CONTRACT_OBJ,thp)

# Unit tests of the huge-page modes and the AnonHugePages parser.
TEST_BUILD += $(B)/tests/allocators-thp

$(B)/tests/allocators-thp: allocators/tests/thp_check.c $(call CONTRACT_OBJ,thp) contract/thp.h scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Icontract -Iscripts -o $@ allocators/tests/thp_check.c $(call CONTRACT_OBJ,thp)
