# runner/rules.mk - builds the heapbench CLI (runner/*.c and runner/<stage>/*.c) and the runner's
# C tests (runner/tests/*.c).
# The stage folders are cli/, plan/, measure/, out/ and base/ (runner/README.md); every one of them
# is on the include path, so a file includes "name.h" whatever folder it lives in.
# The latency histogram and clock are the workloads' own (workloads/common/wl_hist.c, wl_clock.c:
# one definition of the buckets and quantiles in C), linked in and on the include path.
# Every runner/tests/<name>.c is a test program linked with the runner objects except main.o,
# built as build/tests/runner-<name>; runner/tests/run runs them all.
# record and trace (cli/tracecmd.c) use the trace format's one C module, replay/trace.c (-lz).

RUNNER_DIRS  := runner runner/cli runner/plan runner/measure runner/out runner/base
RUNNER_SRC   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.c))
RUNNER_HDR   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.h))
RUNNER_OBJ   := $(patsubst runner/%.c,$(B)/obj/runner/%.o,$(RUNNER_SRC))
RUNNER_WL    := $(B)/obj/workloads/common/wl_hist.o $(B)/obj/workloads/common/wl_clock.o
RUNNER_OBJ   += $(RUNNER_WL)
RUNNER_LIB   := $(filter-out $(B)/obj/runner/cli/main.o,$(RUNNER_OBJ)) $(B)/obj/replay/trace.o
RUNNER_TESTS := $(patsubst runner/tests/%.c,$(B)/tests/runner-%,$(wildcard runner/tests/*.c))
RUNNER_DEFS  :=
RUNNER_INC   := $(addprefix -I,$(RUNNER_DIRS)) -Iworkloads/common -Ireplay
RUNNER_LIBS  := -lcjson -lm -lpthread -lz

ALL        += $(B)/heapbench
TEST_BUILD += $(RUNNER_TESTS)

$(B)/obj/runner/%.o: runner/%.c $(RUNNER_HDR) workloads/common/wl_hist.h workloads/common/wl_clock.h workloads/common/wl_latency.h replay/trace.h | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RUNNER_DEFS) $(RUNNER_INC) -c $< -o $@

$(B)/heapbench: $(RUNNER_OBJ) $(B)/obj/replay/trace.o
	$(CC) $(CFLAGS) -o $@ $^ $(RUNNER_LIBS)

$(B)/tests/runner-%: runner/tests/%.c $(RUNNER_LIB) $(RUNNER_HDR) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) $(RUNNER_INC) -Iscripts -o $@ $< $(RUNNER_LIB) $(RUNNER_LIBS)

# The runner's benchmark programs: runner/bench/markgap.c -> build/bench/runner-markgap (linked with
# the runner objects, like a test) and the clock hook it preloads, build/bench/libmarkclock.so.
RUNNER_BENCH := $(B)/bench/runner-markgap $(B)/bench/libmarkclock.so
ALL += $(RUNNER_BENCH)

$(B)/bench/runner-markgap: runner/bench/markgap.c $(RUNNER_LIB) $(RUNNER_HDR) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RUNNER_INC) -o $@ $< $(RUNNER_LIB) $(RUNNER_LIBS)

$(B)/bench/libmarkclock.so: runner/bench/markclock.c | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -shared -o $@ $<

# version.c alone gets the version, the commit and the prefix (Makefile), and is rebuilt when one of
# them changes: $(B)/gen/version holds the three and is rewritten only when they differ.
$(B)/gen/version: FORCE | $(B)/.dir
	@mkdir -p $(dir $@)
	@echo '$(HB_VERSION) $(HB_COMMIT) $(PREFIX)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(B)/obj/runner/base/version.o: $(B)/gen/version
$(B)/obj/runner/base/version.o: RUNNER_DEFS += -DHB_VERSION='"$(HB_VERSION)"' -DHB_COMMIT='"$(HB_COMMIT)"' \
                                               -DHB_PREFIX='"$(PREFIX)"'

# The libFuzzer target of the runner's parsers (runner/fuzz/runner_fuzz.c; clang from Debian's clang
# package, a test dependency): the runner's sources but main.c, compiled into it with coverage,
# AddressSanitizer and UBSan. runner/tests/fuzz.sh runs it briefly; docs/measurements/fuzz-runner.md has the long runs.
RUNNER_CLANG ?= clang
RUNNER_FUZZ  := $(B)/tests/fuzz-runner
# what the runner links from outside runner/ (the latency buckets, the trace reader)
RUNNER_FUZZ_EXTRA := workloads/common/wl_hist.c workloads/common/wl_clock.c replay/trace.c
TEST_BUILD   += $(RUNNER_FUZZ)

$(RUNNER_FUZZ): runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_HDR) $(RUNNER_FUZZ_EXTRA) replay/trace.h | $(B)/.dir
	$(RUNNER_CLANG) -O1 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE $(RUNNER_DEFS) $(RUNNER_INC) \
	    -DHB_VERSION='"$(HB_VERSION)"' -DHB_COMMIT='"$(HB_COMMIT)"' -DHB_PREFIX='"$(PREFIX)"' \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ \
	    runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_FUZZ_EXTRA) $(RUNNER_LIBS)
