#!/usr/bin/env bash
# commands.sh - are the commands of heapbench's top-level --help, of its manual page and of its bash
# completion the same? Usage: install/tests/commands.sh BIN PAGE.scd COMPLETION
# Always holds: each list is read from the real thing: the command lines of `BIN --help` (a line
# "  NAME  what it does"), the page's one-word "## NAME" headings, the completion's
# _HEAPBENCH_SUBCOMMANDS after sourcing it. Prints one line per command that one of the three lacks
# and exits 1, or prints the common list and exits 0; exits 2 when one of them cannot be read.
set -u
[ $# -eq 3 ] || { echo "usage: install/tests/commands.sh BIN PAGE.scd COMPLETION" >&2; exit 2; }
bin=$1 page=$2 completion=$3

help=$("$bin" --help | awk '/^  [a-z][a-z-]* / { print $1 }' | LC_ALL=C sort -u) || exit 2
man=$(awk '/^## [a-z][a-z-]*$/ { print $2 }' "$page" | LC_ALL=C sort -u) || exit 2
comp=$(bash -c '. "$1" && printf "%s\n" $_HEAPBENCH_SUBCOMMANDS' commands "$completion" | LC_ALL=C sort -u) || exit 2
for list in help man comp; do
    [ -n "${!list}" ] || { echo "commands.sh: no command read from the $list source" >&2; exit 2; }
done

all=$(printf '%s\n' "$help" "$man" "$comp" | LC_ALL=C sort -u)
missing=0
for cmd in $all; do
    for pair in "top-level --help:$help" "manual page:$man" "completion:$comp"; do
        grep -qx -- "$cmd" <<<"${pair#*:}" || { echo "$cmd is not in the ${pair%%:*}"; missing=1; }
    done
done
[ "$missing" -eq 0 ] && echo $all
exit "$missing"
