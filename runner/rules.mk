# runner/rules.mk - builds the heapbench CLI (runner/*.c and runner/<stage>/*.c) and the runner's
# C tests (runner/tests/*.c).
# The stage folders are cli/, run/, plan/, measure/, write/, record/ and base/ (runner/README.md);
# runner/ itself is on the include path, so a file includes a header with its stage: "plan/matrix.h".
# Below them is the floor of shared contracts (contract/, on the include path): the runner links
# its latency histogram and clock (wl_hist.c, wl_clock.c: one definition of the buckets and
# quantiles in C), the huge-page modes (thp.c) and the trace format (trace.c).
# Every runner/tests/<name>.c is a test program linked with the runner objects except main.o (and
# the floor's allocstat writer, whose records test_phases reads back), built as
# build/tests/runner-<name>; runner/tests/run runs them all.
# record and trace (cli/tracecmd.c) use the trace format's one C module, contract/trace.c (-lz).

RUNNER_DIRS  := $(addprefix runner/,cli run plan measure write record base)
RUNNER_SRC   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.c))
RUNNER_HDR   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.h))
RUNNER_OBJ   := $(patsubst runner/%.c,$(B)/obj/runner/%.o,$(RUNNER_SRC))
RUNNER_CONTRACT := wl_hist wl_clock wl_latmode thp trace
RUNNER_OBJ   += $(call CONTRACT_OBJ,$(RUNNER_CONTRACT))
RUNNER_LIB   := $(filter-out $(B)/obj/runner/cli/main.o,$(RUNNER_OBJ))
RUNNER_TESTS := $(patsubst runner/tests/%.c,$(B)/tests/runner-%,$(wildcard runner/tests/*.c))
RUNNER_DEFS  :=
RUNNER_INC   := -Irunner -Icontract
RUNNER_LIBS  := -lcjson -lm -lpthread -lz

ALL        += $(B)/heapbench
TEST_BUILD += $(RUNNER_TESTS)

$(B)/obj/runner/%.o: runner/%.c $(RUNNER_HDR) $(CONTRACT_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RUNNER_DEFS) $(RUNNER_INC) -c $< -o $@

$(B)/heapbench: $(RUNNER_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(RUNNER_LIBS)

RUNNER_TEST_CONTRACT := $(call CONTRACT_OBJ,wl_allocstat wl_record)
$(B)/tests/runner-%: runner/tests/%.c $(RUNNER_LIB) $(RUNNER_TEST_CONTRACT) $(RUNNER_HDR) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) $(RUNNER_INC) -Iscripts -o $@ $< $(RUNNER_LIB) $(RUNNER_TEST_CONTRACT) $(RUNNER_LIBS)

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
# what the runner links from the floor (the latency buckets and clock, the huge-page modes, the trace reader)
RUNNER_FUZZ_EXTRA := $(patsubst %,contract/%.c,$(RUNNER_CONTRACT))
TEST_BUILD   += $(RUNNER_FUZZ)

$(RUNNER_FUZZ): runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_HDR) $(RUNNER_FUZZ_EXTRA) $(CONTRACT_H) | $(B)/.dir
	$(RUNNER_CLANG) -O1 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE $(RUNNER_DEFS) $(RUNNER_INC) \
	    -DHB_VERSION='"$(HB_VERSION)"' -DHB_COMMIT='"$(HB_COMMIT)"' -DHB_PREFIX='"$(PREFIX)"' \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ \
	    runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_FUZZ_EXTRA) $(RUNNER_LIBS)
