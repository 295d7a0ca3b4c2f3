#!/usr/bin/env bash
# doccmds.sh - every heapbench command the READMEs and docs/ show is one the CLI accepts: each
# `heapbench run` line of a code block is run with --list-shard 1/1 (every option, workload, -p
# parameter, -t thread count and allocator checked, nothing measured), each `exec` line once per
# cell (-n 1, no warm-up), and each must exit 0;
# every other subcommand's line is listed as not run here, with the reason (it reads results or a
# history this test does not have; its own suite runs it), so a new kind of line is seen.
# Always holds: placeholders the docs use (a library, a script, a trace of your own) are replaced
# by real files named below; the commands run from a private root (rtlib.bash).
source runner/tests/rtlib.bash

# doc_commands: "FILE:LINE<TAB>command" for every code-block line starting with heapbench or build/heapbench.
doc_commands() {
    /usr/bin/python3 - README.md docs/*.md */README.md report/heapbench/*/README.md <<'PY'
import re, sys
for path in sys.argv[1:]:
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            continue
        text = line.strip()
        if re.match(r"(build/)?heapbench [a-z]", text):
            print(f"{path}:{n}\t{text}")
PY
}

cp /bin/true "$RT_TMP/myprog"
lib=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
ran=0
while IFS=$'\t' read -r where cmd; do
    # the words, as a shell reads them, without a trailing '# comment'
    mapfile -t words < <(/usr/bin/python3 -c 'import shlex, sys; print("\n".join(shlex.split(sys.argv[1], comments=True)))' "$cmd")
    sub=${words[1]}
    case $sub in
        run|exec) ;;
        *) echo "     not run here: $where: heapbench $sub (reads results or a history; its own suite runs it)"; continue ;;
    esac
    args=()
    for w in "${words[@]:2}"; do
        case $w in
            /path/to/libmine.so) w=$lib ;;                 # a library of your own
            mine=/path/to/libmine.so) w=mine=$lib ;;
            myscript.py) w=-c; args+=("$w"); w=pass ;;     # a script of your own
            ./myprog) w=$RT_TMP/myprog ;;                  # a program of your own
            trace:my.hbt) w=sizes ;;                       # a trace of your own (replay/tests record one)
        esac
        args+=("$w")
    done
    # --list-shard goes before a '--' that starts exec's command
    opts=() tail=()
    for i in "${!args[@]}"; do
        if [ "${args[$i]}" = "--" ]; then tail=("${args[@]:$i}"); break; fi
        opts+=("${args[$i]}")
    done
    if [ "$sub" = exec ]; then # exec has no --list-shard: run it, once per cell ('-n N' becomes -n 1)
        for i in "${!opts[@]}"; do [ "${opts[$i]}" = -n ] && opts[$((i + 1))]=1; done
        opts+=(--warmup 0 -o "$RT_TMP/exec$ran")
    else
        opts+=(--list-shard 1/1)
    fi
    out=$("$HB" "$sub" "${opts[@]}" "${tail[@]}" 2>&1); rc=$?
    ran=$((ran + 1))
    [ "$rc" -eq 0 ] && t_pass "$where: heapbench $sub ${args[*]:0:8} is accepted" ||
        t_fail "$where: $cmd is accepted" "exit $rc: $(tail -n 2 <<<"$out")"
done < <(doc_commands)
t_check "the docs hold heapbench run/exec commands to check ($ran)" test "$ran" -ge 10
t_summary
