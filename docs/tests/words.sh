#!/usr/bin/env bash
# docs/tests/words.sh - the project's words: scripts/check-words passes on the tree, and fails on a
# planted violation of each kind (an issue number in code, a clock time, "before this work", a
# load average in a guide) while a load average in a dated record passes. Ends with "N passed, N failed".
# Always holds: the planted tree is a temporary git repository, removed at the end.
set -u
cd "$(dirname "$0")/../.." || exit 2
. scripts/testlib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t_check "the tree speaks of the project alone (scripts/check-words)" scripts/check-words .

# plant FILE TEXT: a fresh repository holding FILE with TEXT, committed; prints its root.
plant() {
    local r=$tmp/r$RANDOM$RANDOM
    mkdir -p "$r/$(dirname "$1")" && printf '%s\n' "$2" >"$r/$1"
    git -C "$r" init -q && git -C "$r" add -A && git -C "$r" -c user.name=t -c user.email=t@t commit -qm t
    echo "$r"
}
fails() { # NAME FILE TEXT: check-words exits 1 and names FILE
    local r out rc; r=$(plant "$2" "$3"); out=$(scripts/check-words "$r" 2>/dev/null); rc=$?
    if [ "$rc" -eq 1 ] && grep -q "^$2:1:" <<<"$out"; then t_pass "$1"; else t_fail "$1" "exit $rc: $out"; fi
}
passes() { # NAME FILE TEXT: check-words exits 0
    local r out rc; r=$(plant "$2" "$3"); out=$(scripts/check-words "$r" 2>&1); rc=$?
    [ "$rc" -eq 0 ] && t_pass "$1" || t_fail "$1" "exit $rc: $out"
}
fails "an issue number in a C comment fails" runner/x.c "/* x.c - the runner (issue 12) */"
fails "a clock time in UTC fails" README.md "Measured at 04:12 UTC."
fails "'before this work' fails" lib/README.md "Before this work it was slower."
fails "a load average in a guide fails" a/README.md "1.3x at load average 12-15."
passes "a load average in a dated record passes" docs/measurements/x.md "1.3x at load average 12-15, 04:12 UTC (issue 12)."
passes "a load average printed by code passes (only guides are held to it)" a/doctor.c 'printf("load average %.1f", l);'
r=$(plant README.md ok); out=$(scripts/check-words "$r" extra 2>&1); rc=$?
[ "$rc" -eq 2 ] && t_pass "a usage error exits 2" || t_fail "a usage error exits 2" "exit $rc: $out"
t_summary
