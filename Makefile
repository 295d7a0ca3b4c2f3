# Makefile - builds heapbench into build/, installs its Debian dependencies, runs the tests and the default benchmark.
#
#   make          build everything (-O2 -Wall -Wextra -Werror) into build/; the CLI is build/heapbench
#   make deps     install the missing Debian packages (apt-get, as root; otherwise print the apt-get line)
#   make test     deps + build + every component's tests; ends with "N passed, N failed"
#   make bench    deps + build + the recorded program traces (once per trace format) + the default matrix, then its report
#
# Each component adds its own targets in <component>/rules.mk, included below; it appends
# what `make` builds to ALL and what the tests need to TEST_BUILD.

CC      ?= gcc
CFLAGS  := -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
LDLIBS  :=
B       := build
ROOT    := $(CURDIR)
PYTHON  := /usr/bin/python3

# Debian packages the project needs: the allocators (Scudo: libclang-rt-dev, the default LLVM's runtime) and tools, then what the tests and benchmark scripts use
# (binutils: addr2line names the call sites of traces, heapbench trace and explain).
DEB_PKGS  := libjemalloc2 libgoogle-perftools4 libtcmalloc-minimal4 libmimalloc2.0 libtbbmalloc2 libclang-rt-dev \
             hyperfine python3-matplotlib python3-scipy linux-perf libcjson1 python3-psycopg2 binutils libnettle8
# What building needs beyond gcc and libc6-dev (cJSON reads meta.json back on --resume; zlib: the traces' CRC-32;
# nettle: the SHA-256 that keys hbreplay's cached check of a trace).
BUILD_PKGS := libcjson-dev zlib1g-dev nettle-dev
TEST_PKGS := python3-numpy valgrind chromium sqlite3 redis-server redis-tools git gcc clang libclang-rt-14-dev libc6-dev time glibc-source \
             libmimalloc-dev libjemalloc-dev \
             slurm-wlm munge yamllint python3-yaml python3-hypothesis bc postgresql strace xz-utils zstd pigz pbzip2 cmark-gfm heaptrack

# What the binary says it is (runner/base/version.h): the version of debian/changelog's first entry;
# the commit it is built from (.hb-commit, which make deb writes into its copy of the tree, else
# git, with "-dirty" when tracked files differ from it); the prefix it is installed under.
HB_VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
HB_COMMIT  := $(shell cat .hb-commit 2>/dev/null || { c=$$(git rev-parse HEAD 2>/dev/null) && \
                { git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; } && echo $$c; } || echo unknown)
PREFIX     ?= /usr/local

ALL        :=
TEST_BUILD :=
# Program definitions make bench records once (results/traces/NAME.hbt, not in git; again when the
# trace is not of the current format, 5: contract/trace.h's HBT_VERSION, or is older than the
# recorder library, which a change to the recorder rebuilds) and replays in the default matrix as
# trace:results/traces/NAME.hbt (replay/README.md).
BENCH_TRACES := python3-alloc sqlite3 gcc
# make bench builds with one job per CPU unless make was given -j itself (its jobserver then rules):
# the serial build took 34 s (23 s user + 10 s sys) of a fresh clone's make bench at load ~5.
BENCH_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

.PHONY: all deps deps-run test bench clean FORCE
all:

# The floor of shared C contracts first (its variables name objects the others link), then the rest.
include contract/rules.mk
include $(sort $(filter-out contract/rules.mk,$(wildcard */rules.mk)))

all: $(ALL)

deps:
	@scripts/deps.sh $(DEB_PKGS) $(BUILD_PKGS) $(TEST_PKGS)

# What building and running need, without the test tools (chromium, redis, PostgreSQL, Slurm...).
deps-run:
	@scripts/deps.sh $(DEB_PKGS) $(BUILD_PKGS)

test: deps
	@$(MAKE) --no-print-directory all $(TEST_BUILD)
	@scripts/run-tests

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_JOBS) all
	@for p in $(BENCH_TRACES); do { [ results/traces/$$p.hbt -nt $(B)/lib/libhbrecord.so ] && $(B)/heapbench trace results/traces/$$p.hbt 2>/dev/null | grep -qx 'format version: 5'; } \
	    || $(B)/heapbench record -w prog:$$p -o results/traces/$$p.hbt \
	    || echo "make bench: prog:$$p not recorded (see above); its replay is left out"; done
	@$(B)/heapbench run
	@$(B)/heapbench report results/latest

clean:
	rm -rf $(B)

$(B)/.dir:
	@mkdir -p $(B)/lib $(B)/workloads $(B)/tests
	@touch $@
