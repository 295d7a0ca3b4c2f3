# Makefile - builds heapbench into build/, installs its Debian dependencies, runs the tests and the default benchmark.
#
#   make          build everything (-O2 -Wall -Wextra -Werror) into build/; the CLI is build/heapbench
#   make deps     install the missing Debian packages (apt-get, as root; otherwise print the apt-get line)
#   make test     deps + build + every component's tests; ends with "N passed, N failed"
#   make bench    deps + build + the default matrix, then its report
#
# Each component adds its own targets in <component>/rules.mk, included below; it appends
# what `make` builds to ALL and what the tests need to TEST_BUILD.

CC      ?= gcc
CFLAGS  := -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
LDLIBS  :=
B       := build
ROOT    := $(CURDIR)
PYTHON  := /usr/bin/python3

# Debian packages the project needs: the allocators and tools of the runner issue, then what the tests use.
DEB_PKGS  := libjemalloc2 libgoogle-perftools4 libtcmalloc-minimal4 libmimalloc2.0 libtbbmalloc2 \
             hyperfine python3-matplotlib python3-scipy linux-perf libcjson1
# What building the runner needs beyond gcc and libc6-dev (cJSON reads meta.json back on --resume).
BUILD_PKGS := libcjson-dev
TEST_PKGS := python3-numpy valgrind chromium sqlite3 redis-server redis-tools git gcc clang libclang-rt-14-dev libc6-dev time \
             slurm-wlm munge yamllint python3-yaml python3-hypothesis bc

ALL        :=
TEST_BUILD :=

.PHONY: all deps test bench clean
all:

include $(sort $(wildcard */rules.mk))

all: $(ALL)

deps:
	@scripts/deps.sh $(DEB_PKGS) $(BUILD_PKGS) $(TEST_PKGS)

test: deps
	@$(MAKE) --no-print-directory all $(TEST_BUILD)
	@scripts/run-tests

bench: deps
	@$(MAKE) --no-print-directory all
	@$(B)/heapbench run
	@$(B)/heapbench report results/latest

clean:
	rm -rf $(B)

$(B)/.dir:
	@mkdir -p $(B)/lib $(B)/workloads $(B)/tests
	@touch $@
