# workloads/rules.mk - builds every workloads/<name>.c as build/workloads/<name>, linked with workloads/common/*.c
# and the workload side of the phase protocol from the floor (contract/: $(CONTRACT_PHASE)).
# Adding a workload is one .c file here plus one line in workloads/LIST; nothing to change in this file.
# Always holds: every binary is built with the project CFLAGS (-Werror) and links all of workloads/common.

WL_COMMON_SRC := $(wildcard workloads/common/*.c)
WL_COMMON_OBJ := $(patsubst workloads/common/%.c,$(B)/obj/workloads/common/%.o,$(WL_COMMON_SRC)) \
                 $(call CONTRACT_OBJ,$(CONTRACT_PHASE))
WL_COMMON_H   := $(wildcard workloads/common/*.h) $(CONTRACT_H)
WL_INC        := -Iworkloads/common -Icontract
WL_BINS       := $(patsubst workloads/%.c,$(B)/workloads/%,$(wildcard workloads/*.c))

ALL += $(WL_BINS)

$(B)/obj/workloads/common/%.o: workloads/common/%.c $(WL_COMMON_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WL_INC) -c $< -o $@

$(B)/workloads/%: workloads/%.c $(WL_COMMON_OBJ) $(WL_COMMON_H) | $(B)/.dir
	$(CC) $(CFLAGS) $(WL_INC) -o $@ $< $(WL_COMMON_OBJ) -lpthread -ldl -lm

# The common objects are real targets, not intermediates make may delete after linking.
.SECONDARY: $(filter $(B)/obj/workloads/%,$(WL_COMMON_OBJ))

# Unit tests of workloads/common: workloads/tests/<name>.c -> build/tests/workloads-<name>, run by workloads/tests/run.
WL_TESTS := $(patsubst workloads/tests/%.c,$(B)/tests/workloads-%,$(wildcard workloads/tests/*.c))
TEST_BUILD += $(WL_TESTS)
# The quantile program is also the C reference of the Python side's latency test (heapbench suite, after
# a plain `make`): built by `make` itself.
ALL += $(B)/tests/workloads-quantile

$(B)/tests/workloads-%: workloads/tests/%.c $(WL_COMMON_OBJ) $(WL_COMMON_H) scripts/tcheck.h | $(B)/.dir
	$(CC) $(CFLAGS) $(WL_INC) -Iscripts -o $@ $< $(WL_COMMON_OBJ) -lpthread -ldl -lm

# Benchmark programs of workloads/common: workloads/bench/<name>.c -> build/bench/workloads-<name>,
# run by the scripts in workloads/bench (figures in workloads/README.md).
WL_BENCH := $(patsubst workloads/bench/%.c,$(B)/bench/workloads-%,$(wildcard workloads/bench/*.c))
ALL += $(WL_BENCH)

$(B)/bench/workloads-%: workloads/bench/%.c $(WL_COMMON_OBJ) $(WL_COMMON_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WL_INC) -o $@ $< $(WL_COMMON_OBJ) -lpthread -ldl -lm
