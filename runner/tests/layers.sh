#!/usr/bin/env bash
# layers.sh - the runner's source structure (runner/tests/check-layers): no include cycle, every
# .c with its own .h, includes only downwards (cli/engine -> plan -> measure -> write -> base); the
# floor of shared contracts below everything (runner/tests/check-floor: contract/ includes only
# itself, allocators/, workloads/ and replay/ never reach into runner/, one file per header name);
# and both checkers fail on a tree that breaks each rule.
source scripts/testlib.sh
T=$(mktemp -d /tmp/hb-layers-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

t_check "runner/ has no include cycle, a header per .c and only downward includes" runner/tests/check-layers runner

# mkfake DIR FILE=TEXT...: a fake runner tree
mkfake() {
    local d=$1; shift
    mkdir -p "$d"/{cli,plan,measure,write,base}
    for spec in "$@"; do printf '%s\n' "${spec#*=}" > "$d/${spec%%=*}"; done
}
mkfake "$T/ok" cli/main.c='#include "a.h"' plan/a.c='#include "a.h"
#include "b.h"' plan/a.h='' write/b.c='#include "b.h"' write/b.h=''
t_check "checker: a well-layered fake tree passes" runner/tests/check-layers "$T/ok"

mkfake "$T/cycle" plan/a.c='#include "b.h"' plan/a.h='' plan/b.c='#include "a.h"' plan/b.h=''
out=$(runner/tests/check-layers "$T/cycle") && t_fail "checker: a cycle a.c -> b.h, b.c -> a.h fails" "passed" ||
    { echo "$out" | grep -q '^cycle:' && t_pass "checker: a cycle a.c -> b.h, b.c -> a.h fails" ||
      t_fail "checker: a cycle a.c -> b.h, b.c -> a.h fails" "$out"; }

mkfake "$T/nohdr" measure/lonely.c=''
out=$(runner/tests/check-layers "$T/nohdr") && t_fail "checker: a .c without its .h fails" "passed" ||
    { echo "$out" | grep -q '^header:' && t_pass "checker: a .c without its .h fails" ||
      t_fail "checker: a .c without its .h fails" "$out"; }

mkfake "$T/up" write/w.c='#include "w.h"
#include "p.h"' write/w.h='' plan/p.c='#include "p.h"' plan/p.h=''
out=$(runner/tests/check-layers "$T/up") && t_fail "checker: write/ including plan/ fails" "passed" ||
    { echo "$out" | grep -q '^direction:' && t_pass "checker: write/ including plan/ fails" ||
      t_fail "checker: write/ including plan/ fails" "$out"; }

mkfake "$T/shadow" base/spawn.c='#include "spawn.h"' base/spawn.h=''
out=$(runner/tests/check-layers "$T/shadow") && t_fail "checker: a header named like <spawn.h> fails" "passed" ||
    { echo "$out" | grep -q '^shadow:' && t_pass "checker: a header named like <spawn.h> fails" ||
      t_fail "checker: a header named like <spawn.h> fails" "$out"; }

t_check "the tree: the floor includes only itself, no program folder reaches into runner/, one file per header name" runner/tests/check-floor .

# mktree DIR FILE=TEXT...: a fake source tree, well layered, with the given files added or replaced
mktree() {
    local d=$1; shift
    mkdir -p "$d"/{contract,runner/base,runner/write,allocators/stats,workloads/common,replay}
    printf '#include "thp.h"\n' > "$d/contract/thp.c"; : > "$d/contract/thp.h"
    printf 'X := $(call CONTRACT_OBJ,thp)\n\t$(CC) -Icontract -c contract/thp.c\n' > "$d/contract/rules.mk"
    printf '#include "util.h"\n' > "$d/runner/base/util.c"; : > "$d/runner/base/util.h"
    printf '#include "thp.h"\n#include "hbstats.h"\n' > "$d/allocators/stats/hbstats.c"; : > "$d/allocators/stats/hbstats.h"
    printf '# the runner/base/ of old\nL := $(call CONTRACT_PIC,thp)\n' > "$d/allocators/rules.mk"
    for spec in "$@"; do printf '%s\n' "${spec#*=}" > "$d/${spec%%=*}"; done
}
# fails NAME KIND DIR: check-floor on DIR must exit 1 with a KIND: line
fails() {
    local out
    out=$(runner/tests/check-floor "$3") && { t_fail "$1" "passed"; return; }
    echo "$out" | grep -q "^$2:" && t_pass "$1" || t_fail "$1" "$out"
}
mktree "$T/f-ok"
t_check "check-floor: a fake tree with the floor below everything passes" runner/tests/check-floor "$T/f-ok"
# each broken tree: NAME | the kind of line check-floor must print | the file that breaks it (PATH=TEXT)
n=0
while IFS='|' read -r name kind spec; do
    n=$((n + 1))
    mktree "$T/f-$n" "$spec"
    fails "check-floor: $name fails" "$kind" "$T/f-$n"
done <<'CASES'
contract/ including a runner header|floor|contract/thp.c=#include "util.h"
contract/rules.mk building from runner/|floor|contract/rules.mk=	$(CC) -Irunner/base -c contract/thp.c
allocators/ including a header only runner/ has|reach|allocators/stats/hbstats.c=#include "util.h"
replay/ including a runner/ path|reach|replay/r.c=#include "../runner/base/util.h"
allocators/rules.mk compiling a runner/ source|reach|allocators/rules.mk=L: runner/base/thp.c
one header name in runner/ and contract/|name|runner/write/thp.h=
CASES

t_summary
