# runner/rules.mk - builds the heapbench CLI (runner/*.c) and the runner's C tests (runner/tests/*.c).
# Every runner/tests/<name>.c is a test program linked with the runner objects except main.o,
# built as build/tests/runner-<name>; runner/tests/run runs them all.

RUNNER_SRC   := $(wildcard runner/*.c)
RUNNER_OBJ   := $(patsubst runner/%.c,$(B)/obj/runner/%.o,$(RUNNER_SRC))
RUNNER_LIB   := $(filter-out $(B)/obj/runner/main.o,$(RUNNER_OBJ))
RUNNER_TESTS := $(patsubst runner/tests/%.c,$(B)/tests/runner-%,$(wildcard runner/tests/*.c))
RUNNER_DEFS  := -DHB_VERSION='"0.1.0"'

ALL        += $(B)/heapbench
TEST_BUILD += $(RUNNER_TESTS)

$(B)/obj/runner/%.o: runner/%.c $(wildcard runner/*.h) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RUNNER_DEFS) -c $< -o $@

$(B)/heapbench: $(RUNNER_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lm -lpthread

$(B)/tests/runner-%: runner/tests/%.c $(RUNNER_LIB) $(wildcard runner/*.h) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) -Irunner -Iscripts -o $@ $< $(RUNNER_LIB) -lm -lpthread
