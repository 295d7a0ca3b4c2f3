# allocators/tests/scudo.sh - Scudo from Debian's LLVM, sourced by allocators/tests/run.
# shellcheck shell=bash
# Checks that the registry finds Scudo through its glob (the runner's `heapbench list` and the
# Python reader name the same library, the newest LLVM's when several are installed: shown on a
# tree of fake versions), that its version is that of the Debian package shipping the file, and
# that a run of two workloads under it is served by it in every process, with its statistics.
# Always holds: everything it writes is under $TMP (the caller removes it).

# csv_col FILE COL...: those columns of every row, by header name, separated by a space (no field
# of runs.csv before served_by holds a comma here: quick params and empty env).
csv_col() {
    awk -F, -v want="${*:2}" 'NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; next }
        { line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? " " : "") $(c[w[j]]); print line }' "$1" 2>/dev/null
}
# scudo_py_resolve LIBRARIES: what the Python reader resolves a libraries field to.
scudo_py_resolve() { PYTHONPATH=$PWD/report /usr/bin/python3 -c 'import sys
from heapbench import registry
print(registry.resolve(sys.argv[1]))' "$1"; }

# The same pattern over fake LLVM trees: both readers pick llvm-14, not llvm-9 (text order) or llvm-13.
for v in llvm-9 llvm-14 llvm-13; do mkdir -p "$TMP/glob/$v" && : >"$TMP/glob/$v/libx.so"; done
expect_eq "scudo: the Python reader picks the newest of a glob" "$(scudo_py_resolve "$TMP/glob/llvm-*/libx.so")" "$TMP/glob/llvm-14/libx.so"
expect_eq "scudo: a glob matching nothing is not found" "$(scudo_py_resolve "$TMP/glob/llvm-*/liby.so")" None

line=$(grep -E '^scudo +\|' allocators/registry.txt)
pattern=$(awk -F'|' '{ gsub(/ /, "", $2); print $2 }' <<<"$line")
case $pattern in
*'llvm-*'*'/clang/*/'*) t_pass "scudo: registered with a path of any LLVM version" ;;
*) t_fail "scudo: registered with a path of any LLVM version" "registry line: '$line'" ;;
esac
# opt-in: one default cell (realloc-grow --growth=plus) times out under it (allocators/README.md)
[[ $line =~ \|\ *opt-in\ *$ ]] && t_pass "scudo: registered opt-in" || t_fail "scudo: registered opt-in" "$line"
lib=$(scudo_py_resolve "$pattern")
if [ "$lib" = None ]; then
    t_fail "scudo: installed" "no file matches $pattern: run make deps (libclang-rt-dev)"
else
    listed=$(build/heapbench list 2>&1 | awk '$1 == "scudo" { print $2, $5, $6 }')
    owner=$(dpkg-query -S "$lib" 2>/dev/null | cut -d: -f1)
    expect_eq "scudo: heapbench list finds it where the Python reader does, with its package's version" \
        "$listed" "found $(dpkg-query -W -f='${Version}' "$owner") $(realpath "$lib")"
    build/heapbench run -a scudo -w frag,thread-churn --quick -n 1 --warmup 0 --allocstats -o "$TMP/scudo-run" >"$TMP/scudo-run.log" 2>&1
    runs=$(awk -F, 'NR > 1' "$TMP/scudo-run/runs.csv" 2>/dev/null | wc -l)
    served=$(csv_col "$TMP/scudo-run/runs.csv" status served_by | grep -cxF "ok $(realpath "$lib")")
    if [ "$runs" -gt 0 ] && [ "$served" = "$runs" ]; then t_pass "scudo: every run ok and served by Scudo ($runs runs)"
    else t_fail "scudo: every run ok and served by Scudo" "$served of $runs: $(tail -n 3 "$TMP/scudo-run.log")"; fi
    apis=$(csv_col "$TMP/scudo-run/allocstats.csv" api | grep -vx smaps_rollup | sort -u)
    expect_eq "scudo: its statistics read through its mallinfo2" "$apis" mallinfo2-scudo
fi
