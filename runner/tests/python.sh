#!/usr/bin/env bash
# python.sh - the hand-over to Python (runner/cli/python.c): a Python subcommand runs under
# /usr/bin/python3 with its arguments, HEAPBENCH_ROOT, HEAPBENCH_BIN and PYTHONPATH=<root>/report
# (before an inherited PYTHONPATH); a missing Python program is a one-line usage error.
source runner/tests/rtlib.bash

root=$RT_TMP/py
mkdir -p "$root/build" "$root/report/heapbench/report"
cp build/heapbench "$root/build/heapbench"
cat > "$root/report/heapbench/report/__main__.py" <<'PY'
import os, sys
print("args", sys.argv[1:])
print("root", os.environ["HEAPBENCH_ROOT"])
print("bin", os.environ["HEAPBENCH_BIN"])
print("path", os.environ["PYTHONPATH"])
print("sys.path has report", os.path.join(os.environ["HEAPBENCH_ROOT"], "report") in sys.path)
PY
out=$(PYTHONPATH=/elsewhere "$root/build/heapbench" report a -o b 2>&1)
want="args ['a', '-o', 'b']
root $root
bin $root/build/heapbench
path $root/report:/elsewhere
sys.path has report True"
if [ "$out" = "$want" ]; then t_pass "report runs -m heapbench.report with its args, root, bin and PYTHONPATH"
else t_fail "report runs -m heapbench.report with its args, root, bin and PYTHONPATH" "$out"; fi

out=$(env -u PYTHONPATH "$root/build/heapbench" report x 2>&1 | grep '^path')
[ "$out" = "path $root/report" ] && t_pass "without an inherited PYTHONPATH it is <root>/report alone" ||
    t_fail "without an inherited PYTHONPATH it is <root>/report alone" "$out"

out=$("$root/build/heapbench" compare a b 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"module heapbench.compare is not under"* ]]; then
    t_pass "a missing Python program: exit 2, one line naming it"
else t_fail "a missing Python program: exit 2, one line naming it" "rc=$rc $out"; fi
t_summary
