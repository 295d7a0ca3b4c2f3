# testlib.sh - the shell side of heapbench's test convention (source it from a tests/run script).
# t_pass NAME / t_fail NAME WHY record one result; t_check NAME CMD... runs CMD and records it;
# t_summary prints the closing line "N passed, N failed" and returns non-zero on any failure.
T_PASSED=0
T_FAILED=0
t_pass() { T_PASSED=$((T_PASSED + 1)); echo "PASS $1"; }
t_fail() { T_FAILED=$((T_FAILED + 1)); echo "FAIL $1: $2"; }
t_check() {
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then t_pass "$name"; else t_fail "$name" "$(printf '%s' "$out" | tail -n 5)"; fi
}
t_summary() { echo "$T_PASSED passed, $T_FAILED failed"; [ "$T_FAILED" -eq 0 ]; }
