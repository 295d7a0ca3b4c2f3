# progs.sh - sourced by the replay benchmarks: prepares program definitions of exec/programs/ (python3-alloc,
# sqlite3, gcc, the multithreaded ones) in a work directory, as the runner does (setup run once with
# HB_WORKDIR and HB_PROGDIR set), and gives their commands.
# bp_setup WORKDIR NAME: runs NAME's setup in WORKDIR; bp_command WORKDIR NAME: its command, expanded.
# bp_tmp NAME: makes $TMP (removed on exit) and prints the load average; bp_load: the load line.
# bp_median: the median of the numbers on stdin, one per line.
# bp_library NAME: allocator NAME's library ("" for the system malloc) by the Python side's registry
# reader; exits 2 when NAME is not in the registry or its library is not here.
# Sourcing it moves to the project root and sets ROOT.
# Always holds: reads only the `setup` and `command` keys of a .prog file ("key = value" lines).
# shellcheck shell=bash
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2 # the project root: every path below is relative to it
ROOT=$PWD
BP_PROGDIR=$ROOT/exec/programs
bp_key() { sed -nE "s/^$2[[:space:]]*=[[:space:]]*//p" "$BP_PROGDIR/$1.prog" | head -n 1; }
bp_setup() {
    local setup
    setup=$(bp_key "$2" setup)
    [ -z "$setup" ] && return 0
    (cd "$1" && HB_WORKDIR=$1 HB_PROGDIR=$BP_PROGDIR sh -c "$setup" >/dev/null 2>&1)
}
bp_command() {
    local c
    c=$(bp_key "$2" command)
    c=${c//\$HB_WORKDIR/$1}
    echo "${c//\$HB_PROGDIR/$BP_PROGDIR}"
}
bp_median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bp_library() {
    PYTHONPATH=$ROOT/report /usr/bin/python3 -c 'import sys
from heapbench.registry import read_registry
a = read_registry().get(sys.argv[1])
if a is None or a.library is None:
    sys.exit(f"{sys.argv[2]}: allocator {sys.argv[1]} is not in allocators/registry.txt or its library is not installed: see heapbench list")
print(a.library)' "$1" "$(basename "$0")"
}
bp_load() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }
# bp_cpu CMD...: CMD's CPU seconds (user + system, GNU time), whatever its exit (needs bp_tmp's $TMP).
bp_cpu() { /usr/bin/time -f '%U %S' -o "$TMP/time" "$@" >/dev/null 2>&1 || true; awk '{ print $1 + $2 }' "$TMP/time"; }
# bp_instructions CMD...: callgrind's instruction count of CMD and of what it execs (needs $TMP).
bp_instructions() {
    rm -f "$TMP"/cg.*
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$TMP/cg.%p" "$@" >/dev/null 2>&1 || true
    cat "$TMP"/cg.* | sed -nE 's/^summary: ([0-9]+).*/\1/p' | awk '{ s += $1 } END { print s }'
}
bp_tmp() {
    TMP=$(mktemp -d "/tmp/hb-$1.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    bp_load before
}
# bp_base DIR: builds the replayer, the recorder and the null allocator of commit $BASE (default
# b804b1e, the replayer before trace format 3 and streaming: it decoded every event at load and
# read formats 1-2 only) in DIR, for a comparison with this tree's in one interleaved run.
bp_base() {
    local base=${BASE:-b804b1e}
    mkdir -p "$1"
    git -C "$ROOT" archive "$base" | tar -x -C "$1" &&
        make -C "$1" -s build/replay/hbreplay build/lib/libhbrecord.so build/lib/libhbnull.so >/dev/null 2>&1 ||
        { echo "$(basename "$0"): cannot build commit $base's replayer in $1" >&2; exit 1; }
}
