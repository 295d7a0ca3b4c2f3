#!/usr/bin/env bash
# validate.sh - bad input is refused before anything runs:
# exit 2, one line on stderr, no results directory created.
source runner/tests/rtlib.bash

# rt_refused NAME WANT ARGS...: heapbench ARGS exits 2 with one line holding WANT, and -o's
# directory ($RT_TMP/never) is not created.
rt_refused() {
    local name=$1 want=$2; shift 2
    local err rc
    err=$("$HB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && grep -qF -- "$want" <<<"$err" &&
       [ ! -e "$RT_TMP/never" ]; then
        t_pass "$name"
    else
        t_fail "$name" "exit $rc, stderr: $err"
    fi
}
o=(-o "$RT_TMP/never")
rt_refused "--pin to a CPU that is not online lists the online ones" "the CPUs heapbench may use are 0" \
    run -w thread-churn -a glibc --pin 1000 "${o[@]}"
rt_refused "-t 1,1 (a repeated value)" "'1' is given twice" run -w thread-churn -t 1,1 "${o[@]}"
rt_refused "-a glibc,glibc" "'glibc' is given twice" run -w thread-churn -a glibc,glibc "${o[@]}"
rt_refused "--env '' --env ''" "is given twice" run -w thread-churn --env '' --env '' "${o[@]}"
rt_refused "-t 1,,2 (an empty item)" "has an empty item" run -w thread-churn -t 1,,2 "${o[@]}"
rt_refused "-w sizes, (an empty item)" "has an empty item" run -w sizes, "${o[@]}"
rt_refused "-n 2147483648 says the maximum" "to 2147483647" run -w sizes -n 2147483648 "${o[@]}"
rt_refused "--env with a quoted blank" "cannot hold blanks or quotes" run -w sizes --env 'FOO="a b"' "${o[@]}"
rt_refused "--wrap nosuchwrapper" "--wrap: nosuchwrapper: not found" run -w sizes --wrap nosuchwrapper "${o[@]}"
rt_refused "exec -- /nonexistent" "not found" exec "${o[@]}" -- /nonexistent
rt_refused "exec -- a directory" "is a directory" exec "${o[@]}" -- /tmp
printf 'echo hi\n' > "$RT_TMP/noshebang"
rt_refused "exec -- a non-executable file" "is not executable" exec "${o[@]}" -- "$RT_TMP/noshebang"
chmod +x "$RT_TMP/noshebang"
rt_refused "exec -- a script without #!" "add '#!/bin/sh'" exec "${o[@]}" -- "$RT_TMP/noshebang"
rt_refused "--allocator shadowing a registry name" "'glibc' is already a registry allocator" \
    run -w sizes --allocator glibc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 "${o[@]}"
rt_refused "--allocator name with a comma" "no commas or blanks" \
    run -w sizes --allocator 'a,b=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' "${o[@]}"
rt_refused "-p '--nosuch=1' (a parameter the workload does not have)" "thread-churn has no parameter --nosuch" \
    run -w thread-churn -p '--nosuch=1' "${o[@]}"
rt_refused "-t above the workload's --threads range names the workload and its range" \
    "thread-churn takes 1 to 1024 threads" run -w thread-churn -t 1,100000 "${o[@]}"
rt_refused "-p with an integer out of the parameter's range names the range" "--ops accepts 1..1000000000000" \
    run -w thread-churn -p '--ops=0' "${o[@]}"
rt_refused "-p with a word not among the parameter's choices names them" "--mode accepts loop|batch" \
    run -w thread-churn -p '--mode=nosuch' "${o[@]}"
rt_refused "--resume DIR with other options" "takes no other option" run --resume "$RT_TMP" -n 3
# Wording: each refusal names the option's own form.
rt_refused "--metric '=foo' suggests a --metric, not a path" "is not NAME=REGEX; e.g. --metric 'ops=" \
    run -w sizes --metric '=foo' "${o[@]}"
rt_refused "--env HEAPBENCH_THP=bogus names the modes" "HEAPBENCH_THP= without one of the modes" \
    run -w sizes --env HEAPBENCH_THP=bogus "${o[@]}"
rt_refused "-p '--pin' (a parameter that needs a value) is refused before anything runs" "--pin needs a value" \
    run -w frag -p '--pin' "${o[@]}"
rt_refused "-p '--long=1' (a flag) is refused: it takes no value" "--long takes no value" \
    run -w server -p '--long=1' "${o[@]}"
out=$("$HB" run -w server -p '--long' -a glibc --list-shard 1/1 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q -- "--long" <<<"$out" &&
    t_pass "-p '--long' is accepted for server, which declares a long form (README's long-run example)" ||
    t_fail "-p '--long' is accepted for server" "exit $rc: $out"
rt_refused "-p '--long' for a workload without a long form" "sizes has no parameter --long" run -w sizes -p '--long' "${o[@]}"
rt_refused "-o with a name that is not UTF-8 (it would be run_id in every file)" "is not UTF-8 text" \
    run -w sizes --quick -o "$RT_TMP/run"$'\xfe'

# One axis value in two spellings would make two equal cells (check reports the repeats, --resume
# drops and measures them again every time): refused, whatever the spelling.
for t in 1,01 1,+1 2,02; do
    rt_refused "-t $t: one thread count spelled twice" "spelled differently" run -w thread-churn -t "$t" "${o[@]}"
done
rt_refused "-p: one param set with its words in another order and a value 0-padded" "spelled differently" \
    run -w thread-churn -p '--ops=100 --mode=loop' -p '--mode=loop  --ops=0100' "${o[@]}"
rt_refused "--env: one env set with its words in another order" "spelled differently" \
    run -w thread-churn --env 'A=1 B=2' --env 'B=2 A=01' "${o[@]}"
(cd /usr/lib/x86_64-linux-gnu && "$HB" run -w thread-churn -t 1 -p '--ops=1000' -a mine -n 1 --warmup 0 \
    --allocator mine=libjemalloc.so.2 -o "$RT_TMP/rel" >/dev/null 2>&1); rc=$?
t_check "a relative --allocator path is taken from the current directory (exit 0)" test "$rc" -eq 0
rt_check "... and served by that library" "$RT_TMP/rel" '
assert runs[0]["status"] == "ok" and "libjemalloc" in runs[0]["served_by"], runs'
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/err" -- sh -c 'echo working; echo "bad --size: 7" >&2; exit 2' \
    >/dev/null 2>&1
rt_check "a failed row's reason carries the last line the process wrote" "$RT_TMP/err" '
assert runs[0]["reason"] == "exit code 2: bad --size: 7", runs[0]["reason"]'
t_summary
