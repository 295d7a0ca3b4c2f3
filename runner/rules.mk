# runner/rules.mk - builds the heapbench CLI (runner/*.c and runner/<stage>/*.c) and the runner's
# C tests (runner/tests/*.c).
# The stage folders are cli/, plan/, measure/, out/ and base/ (runner/README.md); every one of them
# is on the include path, so a file includes "name.h" whatever folder it lives in.
# Every runner/tests/<name>.c is a test program linked with the runner objects except main.o,
# built as build/tests/runner-<name>; runner/tests/run runs them all.

RUNNER_DIRS  := runner runner/cli runner/plan runner/measure runner/out runner/base
RUNNER_SRC   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.c))
RUNNER_HDR   := $(foreach d,$(RUNNER_DIRS),$(wildcard $(d)/*.h))
RUNNER_OBJ   := $(patsubst runner/%.c,$(B)/obj/runner/%.o,$(RUNNER_SRC))
RUNNER_LIB   := $(filter-out $(B)/obj/runner/cli/main.o,$(RUNNER_OBJ))
RUNNER_TESTS := $(patsubst runner/tests/%.c,$(B)/tests/runner-%,$(wildcard runner/tests/*.c))
RUNNER_DEFS  := -DHB_VERSION='"0.1.0"'
RUNNER_INC   := $(addprefix -I,$(RUNNER_DIRS))
RUNNER_LIBS  := -lcjson -lm -lpthread

ALL        += $(B)/heapbench
TEST_BUILD += $(RUNNER_TESTS)

$(B)/obj/runner/%.o: runner/%.c $(RUNNER_HDR) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RUNNER_DEFS) $(RUNNER_INC) -c $< -o $@

$(B)/heapbench: $(RUNNER_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(RUNNER_LIBS)

$(B)/tests/runner-%: runner/tests/%.c $(RUNNER_LIB) $(RUNNER_HDR) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) $(RUNNER_INC) -Iscripts -o $@ $< $(RUNNER_LIB) $(RUNNER_LIBS)

# The libFuzzer target of the runner's parsers (runner/fuzz/runner_fuzz.c; clang from Debian's clang
# package, a test dependency): the runner's sources but main.c, compiled into it with coverage,
# AddressSanitizer and UBSan. runner/tests/fuzz.sh runs it briefly; runner/tests/FUZZ.md has the long runs.
RUNNER_CLANG ?= clang
RUNNER_FUZZ  := $(B)/tests/fuzz-runner
TEST_BUILD   += $(RUNNER_FUZZ)

$(RUNNER_FUZZ): runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_HDR) | $(B)/.dir
	$(RUNNER_CLANG) -O1 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE $(RUNNER_DEFS) $(RUNNER_INC) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ \
	    runner/fuzz/runner_fuzz.c $(filter-out runner/cli/main.c,$(RUNNER_SRC)) $(RUNNER_LIBS)
