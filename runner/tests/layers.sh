#!/usr/bin/env bash
# layers.sh - the runner's source structure (runner/tests/check-layers): no include cycle, every
# .c with its own .h, includes only downwards (cli/engine -> plan -> measure -> out -> base); and
# the checker itself fails on a tree that breaks each rule.
source scripts/testlib.sh
T=$(mktemp -d /tmp/hb-layers-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

t_check "runner/ has no include cycle, a header per .c and only downward includes" runner/tests/check-layers runner

# mkfake DIR FILE=TEXT...: a fake runner tree
mkfake() {
    local d=$1; shift
    mkdir -p "$d"/{cli,plan,measure,out,base}
    for spec in "$@"; do printf '%s\n' "${spec#*=}" > "$d/${spec%%=*}"; done
}
mkfake "$T/ok" cli/main.c='#include "a.h"' plan/a.c='#include "a.h"
#include "b.h"' plan/a.h='' out/b.c='#include "b.h"' out/b.h=''
t_check "checker: a well-layered fake tree passes" runner/tests/check-layers "$T/ok"

mkfake "$T/cycle" plan/a.c='#include "b.h"' plan/a.h='' plan/b.c='#include "a.h"' plan/b.h=''
out=$(runner/tests/check-layers "$T/cycle") && t_fail "checker: a cycle a.c -> b.h, b.c -> a.h fails" "passed" ||
    { echo "$out" | grep -q '^cycle:' && t_pass "checker: a cycle a.c -> b.h, b.c -> a.h fails" ||
      t_fail "checker: a cycle a.c -> b.h, b.c -> a.h fails" "$out"; }

mkfake "$T/nohdr" measure/lonely.c=''
out=$(runner/tests/check-layers "$T/nohdr") && t_fail "checker: a .c without its .h fails" "passed" ||
    { echo "$out" | grep -q '^header:' && t_pass "checker: a .c without its .h fails" ||
      t_fail "checker: a .c without its .h fails" "$out"; }

mkfake "$T/up" out/w.c='#include "w.h"
#include "p.h"' out/w.h='' plan/p.c='#include "p.h"' plan/p.h=''
out=$(runner/tests/check-layers "$T/up") && t_fail "checker: out/ including plan/ fails" "passed" ||
    { echo "$out" | grep -q '^direction:' && t_pass "checker: out/ including plan/ fails" ||
      t_fail "checker: out/ including plan/ fails" "$out"; }

mkfake "$T/shadow" base/spawn.c='#include "spawn.h"' base/spawn.h=''
out=$(runner/tests/check-layers "$T/shadow") && t_fail "checker: a header named like <spawn.h> fails" "passed" ||
    { echo "$out" | grep -q '^shadow:' && t_pass "checker: a header named like <spawn.h> fails" ||
      t_fail "checker: a header named like <spawn.h> fails" "$out"; }

t_summary
