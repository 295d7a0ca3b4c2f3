#!/usr/bin/env bash
# layers.sh - the runner's source structure (runner/tests/check-layers): every file in a stage folder,
# includes written with their stage ("plan/matrix.h") and pointing only down (cli -> run -> plan |
# measure | write -> record -> base), no include cycle, every .c with its own .h; the floor of shared
# contracts below everything (runner/tests/check-floor: contract/ includes only itself, allocators/,
# workloads/ and replay/ never reach into runner/, one file per header name); and both checkers fail
# on a tree that breaks each rule.
source scripts/testlib.sh
T=$(mktemp -d /tmp/hb-layers-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

t_check "runner/: every file in a stage, includes with their stage and only downward, no cycle, a header per .c" runner/tests/check-layers runner

# mkfake DIR FILE=TEXT...: a fake runner tree, well layered, with the given files added or replaced
mkfake() {
    local d=$1; shift
    mkdir -p "$d"/{cli,run,plan,measure,write,record,base,tests}
    printf '#include "run/engine.h"\n#include "plan/matrix.h"\n' > "$d/cli/main.c"
    printf '#include "run/engine.h"\n#include "plan/matrix.h"\n#include "measure/launch.h"\n#include "write/rows.h"\n' > "$d/run/engine.c"
    printf '#include "plan/matrix.h"\n#include "base/util.h"\n' > "$d/plan/matrix.c"
    printf '#include "measure/launch.h"\n#include "record/runresult.h"\n' > "$d/measure/launch.c"
    printf '#include "write/rows.h"\n#include "record/runresult.h"\n' > "$d/write/rows.c"
    printf '#include "record/runresult.h"\n#include "base/util.h"\n#include "wl_allocstat.h"\n' > "$d/record/runresult.c"
    printf '#include "base/util.h"\n' > "$d/base/util.c"
    printf '#include "measure/launch.h"\n#include "tcheck.h"\n' > "$d/tests/test_launch.c"
    for h in run/engine plan/matrix measure/launch write/rows record/runresult base/util; do : > "$d/$h.h"; done
    for spec in "$@"; do printf '%s\n' "${spec#*=}" > "$d/${spec%%=*}"; done
}
mkfake "$T/ok"
t_check "check-layers: a well-layered fake tree passes" runner/tests/check-layers "$T/ok"
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
mktree "$T/f-ok"
t_check "check-floor: a fake tree with the floor below everything passes" runner/tests/check-floor "$T/f-ok"
# each broken tree: the checker (layers: check-layers on a fake runner tree made by mkfake; floor:
# check-floor on a fake source tree made by mktree) | NAME | the kind of line the checker must print
# (it must exit 1) | the files that break it (PATH=TEXT | ...)
n=0
while IFS='|' read -r -a f; do
    n=$((n + 1))
    [ "${f[0]}" = layers ] && mkfake "$T/b-$n" "${f[@]:3}" || mktree "$T/b-$n" "${f[@]:3}"
    name="check-${f[0]}: ${f[1]} fails"
    if out=$(runner/tests/check-"${f[0]}" "$T/b-$n"); then t_fail "$name" "passed"
    elif grep -q "^${f[2]}:" <<<"$out"; then t_pass "$name"
    else t_fail "$name" "$out"; fi
done <<'CASES'
layers|measure/ including write/ (a peer)|direction|measure/launch.h=#include "write/rows.h"
layers|plan/ including measure/ (a peer)|direction|plan/matrix.c=#include "measure/launch.h"
layers|write/ including plan/ (a peer)|direction|write/rows.h=#include "plan/matrix.h"
layers|the record including measure/|direction|record/runresult.h=#include "measure/launch.h"
layers|base/ including the record|direction|base/util.h=#include "record/runresult.h"
layers|run/ including cli/|direction|run/engine.c=#include "cli/progress.h"|cli/progress.h=
layers|an include without its stage|unqualified|plan/matrix.c=#include "util.h"
layers|a test including a header without its stage|unqualified|tests/test_launch.c=#include "launch.h"
layers|an include of a stage file that does not exist|missing|measure/launch.c=#include "measure/lauch.h"
layers|a file outside the stage folders|stage|engine.c=#include "run/engine.h"
layers|a .c without its .h|header|measure/lonely.c=#include "base/util.h"
layers|a cycle plan/a.c -> plan/b.h, plan/b.c -> plan/a.h|cycle|plan/a.c=#include "plan/b.h"|plan/a.h=|plan/b.c=#include "plan/a.h"|plan/b.h=
floor|contract/ including a runner header|floor|contract/thp.c=#include "util.h"
floor|contract/rules.mk building from runner/|floor|contract/rules.mk=	$(CC) -Irunner/base -c contract/thp.c
floor|allocators/ including a header only runner/ has|reach|allocators/stats/hbstats.c=#include "util.h"
floor|replay/ including a runner/ path|reach|replay/r.c=#include "../runner/base/util.h"
floor|allocators/rules.mk compiling a runner/ source|reach|allocators/rules.mk=L: runner/base/thp.c
floor|one header name in runner/ and contract/|name|runner/write/thp.h=
CASES

t_summary
