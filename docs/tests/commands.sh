#!/usr/bin/env bash
# docs/tests/commands.sh - every heapbench command line the READMEs and docs/ show is run, at a small size,
# in a private root (runner/tests/rtlib.bash) holding results of tiny real runs, a SQLite history, a
# recorded trace, two small git repositories and a history of their nightly points.
# A line is run as the docs write it (bash, from the root, `heapbench` on PATH), with these changes only:
#   - `heapbench run` gets --list-shard 1/1: every option, workload, -p parameter, -t thread count and
#     allocator is checked, nothing is measured (the docs' runs take from a minute to 30 minutes);
#   - `heapbench exec` runs once per cell (-n 1, --warmup 0);
#   - the placeholders of PLACEHOLDERS below become real files;
#   - a line of the table RUN_AS (a synopsis, or a run too long for a test) is run as the small command
#     it names, with the exit status it names.
# Every line's exit status is checked (0 unless RUN_AS says otherwise). A new line that is neither in
# RUN_AS nor runnable as written fails (a synopsis' `[--opt]` is a usage error); an entry of RUN_AS
# that no doc line has fails too, so the table follows the docs.
# Scope: every README.md of the tree and docs/*.md. docs/measurements/*.md are dated records of what
# was run (sizes of minutes to hours; each record names the bench script that reproduces it), not guides.
# Always holds: nothing outside the private root is written; the checkout's results/ is never touched.
source runner/tests/rtlib.bash
R=$RT_TMP/root
PY=/usr/bin/python3
LIB=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
MK="$PY $PWD/report/heapbench/bisect/tests/mkrepo.py"
MKH="$PY $PWD/report/heapbench/bisect/tests/mkhistory.py"
export PYTHONPATH=$PWD/report HEAPBENCH_BIN=$HB
unset HEAPBENCH_HISTORY

# doc_commands: "FILE:LINE<TAB>command" for every code-block line (fenced, or indented 4 spaces) that
# runs heapbench SUBCOMMAND (at its start, after `$ `, or after `&&`); output lines ("heapbench tune:
# unknown ...") are not commands.
doc_commands() {
    $PY - $(git ls-files 'README.md' '*/README.md' 'docs/*.md' | grep -v '^docs/measurements/') <<'PY'
import re, sys
COMMAND = re.compile(r"(?:^|&&\s*)(?:build/)?heapbench [a-z][\w-]*(?=\s|$)")
for path in sys.argv[1:]:
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            continue
        text = line.strip()
        text = text[2:] if text.startswith("$ ") else text
        if COMMAND.search(text):
            text = re.sub(r"\s+#\s.*$", "", text)
            print(f"{path}:{n}\t{text}")
PY
}

# PLACEHOLDERS: what the docs leave to the reader, as "DOC TEXT<TAB>REPLACEMENT" (sed, applied to every line).
PLACEHOLDERS="make && 	
/path/to/libmine.so	$LIB"
# ./myprog, myscript.py, big.dat and my.hbt are real files of the root (made below).

# RUN_AS: "doc: LINE" (as doc_commands prints it), "run: COMMAND" (bash, from the root), "exit: CODES" (|-separated).
# A command whose exit status is its verdict on measured data takes each verdict's code: compare
# --fidelity exits 1 when the replay orders a resolved pair otherwise, which the fixture's 2 reps of a
# tiny program under a busy machine's noise sometimes give (its wall times), and that is not a defect.
RUN_AS=$(cat <<'EOF'
doc: build/heapbench tune -a glibc -w cross-thread -t 4 --grid 'arena_max=1,2,4'
run: heapbench tune -a glibc -w cross-thread -t 4 --grid 'arena_max=1,2' --quick -n 5 --warmup 0 -o tune1
exit: 0

doc: heapbench advise [--goal time|memory|latency|balanced] [--budget SECONDS] [--budget-clock wall|cpu] [-o DIR] [-a A1,A2]
run: heapbench advise --goal memory --budget 40 --budget-clock wall -o adv1 -a glibc,jemalloc -- ./myprog
exit: 0

doc: heapbench advise ... -w prog:NAME
run: heapbench advise --goal memory --budget 60 --budget-clock cpu -o adv2 -a glibc,jemalloc -w prog:gcc
exit: 0

doc: heapbench advise --resume DIR [--budget SECONDS]
run: heapbench advise --resume adv1 --budget 50
exit: 0

doc: heapbench bisect --good REV --bad REV [--repo DIR] [--build 'CMD'] [--metric M] [-a ALLOCATOR]
run: heapbench bisect --good "$(cat faults.good)" --bad "$(cat faults.bad)" --repo faults --build make --metric minflt -a glibc -o bis1 -- ./prog
exit: 0

doc: heapbench bisect --good REV --bad REV --build 'CMD' -w W [--params='ARGS'] [-t N] \
run: cd alloc && heapbench bisect --good "$(cat ../alloc.good)" --bad "$(cat ../alloc.bad)" --build make -w pool --params='--alloc=malloc --blocks=20000' -a tiny --allocator tiny=libtiny.so -o ../bis2
exit: 0

doc: heapbench bisect --from-history --cell C --metric M [--db URL] [--testbed T] [--change LABEL] \
run: heapbench bisect --from-history --cell 'nightly/glibc/t1 [./prog]' --metric minflt --db nightly.sqlite --repo nightrepo --build make -o bis3 -- ./prog
exit: 0

doc: heapbench bisect --resume DIR
run: heapbench bisect --resume bis1
exit: 0

doc: heapbench compare BASE NEW [--metrics wall_s,maxrss_kb,p99,p99.9] [--threshold 5% | wall_s=3%,p99=10%]
run: heapbench compare results/base results/new --metrics wall_s,maxrss_kb --threshold 5%
exit: 0|1

doc: heapbench compare --fidelity PROGRAM REPLAY
run: heapbench compare --fidelity results/prog results/replay
exit: 0|1

doc: heapbench ci [--baseline results/baseline] [--update-baseline] [-o DIR] [-n 5] [--absolute]
run: heapbench ci --baseline results/base -o ci1 -n 12 --absolute -w thread-churn -t 1 -a glibc,jemalloc --warmup 0
exit: 0|1|3

doc: heapbench ci --ab --base 'CMD ARGS' [-n 8 | --budget 400|60s] [--round-reps 1] [--duet] [-a ...] [--env ...] [options] -- CMD ARGS
run: heapbench ci --ab --base './myprog' -n 6 --round-reps 1 -a glibc -o ab1 -- ./myprog
exit: 0|3

doc: heapbench ci --ab --base prog:OLD [options] -- prog:NEW
run: heapbench ci --ab --base prog:gcc -n 6 -a glibc -o ab2 -- prog:gcc
exit: 0|3

doc: heapbench ci --history H --update-baseline
run: heapbench ci --history cih.sqlite --update-baseline -w thread-churn -t 1 -a glibc -n 3 --warmup 0 -o cih
exit: 0

doc: heapbench ci --history H --add --allow-unknown
run: for i in 2 3; do heapbench ci --history cih.sqlite --add --allow-unknown --label p$i -w thread-churn -t 1 -a glibc -n 3 --warmup 0 -o cih || exit; done
exit: 0

doc: heapbench ci --history H --add
run: heapbench ci --history cih.sqlite --add --label p4 -w thread-churn -t 1 -a glibc -n 3 --warmup 0 -o cih
exit: 0|1|3

doc: heapbench explain [-a A1,A2] [--at end|peak|N|-N] [-o DIR] [--sites all|sample|one] -- CMD ARGS...
run: heapbench explain -a glibc,jemalloc --at peak -o expl1 --sites sample -- ./myprog
exit: 0

doc: heapbench explain [-a A1,A2] [--at ...] TRACE
run: heapbench explain -a glibc --at end -o expl2 my.hbt
exit: 0

doc: build/heapbench report DIR [-o OUTDIR]
run: heapbench report results/base -o rep1
exit: 0

doc: heapbench tune [-a ALLOCATOR] [-w W1,W2 | -- CMD ARGS...] [--grid 'arena_max=1,2,4;tcache_count=0,7,64']
run: heapbench tune -a glibc --grid 'arena_max=1,2;tcache_count=0,7' -n 5 --warmup 0 -o tune2 -- ./myprog
exit: 0

doc: heapbench tune --grid 'arena=1'
run: heapbench tune --grid 'arena=1' 2>&1 | tee /dev/stderr | grep -q "unknown glibc knob 'arena'; valid: arena_max" && exit "${PIPESTATUS[0]}"
exit: 2
EOF
)

# run_as_field LINE FIELD: the RUN_AS entry's FIELD (run, exit) for the doc LINE, or nothing.
run_as_field() {
    awk -v line="doc: $1" -v field="$2: " '
        $0 == line { hit = 1; next }
        hit && index($0, field) == 1 { print substr($0, length(field) + 1); exit }
        /^$/ { hit = 0 }' <<<"$RUN_AS"
}

# fixture NAME CMD...: one step of the root's making, from the root; a failure is reported.
fixture() {
    local name=$1 out; shift
    out=$(cd "$R" && "$@" 2>&1) || t_fail "fixture: $name" "$(tail -n 3 <<<"$out")"
}

mkdir -p "$R/bin" && ln -s "$R/build/heapbench" "$R/bin/heapbench"
export PATH=$R/bin:$PATH
fixture "the root is a git work tree with a tag (\$(git describe))" sh -c \
    'git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m t && git -c user.name=t -c user.email=t@t tag -a -m v1.0 v1.0'
head -c 2000000 /dev/urandom | od -An -tx1 | head -n 20000 >"$R/big.dat"
printf '#!/bin/sh\n# myprog - a program of your own: sorts big.dat (whatever its arguments)\nexec sort -o /dev/null "$(dirname "$0")/big.dat"\n' >"$R/myprog"
chmod +x "$R/myprog"
printf 'x = [bytes(100) for _ in range(20000)]\n' >"$R/myscript.py"
for d in base new r42; do
    fixture "a tiny run ($d)" "$HB" run -w thread-churn -t 1 -a glibc,jemalloc --quick -n 2 --warmup 0 -o "results/$d"
done
fixture "a trace (my.hbt)" "$HB" record -o my.hbt -- ./myprog args
fixture "a program's results (compare --fidelity)" "$HB" exec -w myprog -a glibc,jemalloc -n 2 --warmup 0 -o results/prog -- ./myprog
fixture "its trace under its name (compare --fidelity)" "$HB" record -o myprog.hbt -- ./myprog
fixture "its replay (compare --fidelity)" "$HB" run -w trace:myprog.hbt -a glibc,jemalloc -n 2 --warmup 0 -o results/replay
fixture "a repository whose page faults change" sh -c "$MK faults 6 4 faults >faults.hashes && sed -n 1p faults.hashes >faults.good && sed -n 2p faults.hashes >faults.bad"
fixture "a repository of an allocator whose blocks grow" sh -c "$MK alloc 5 3 alloc >alloc.hashes && sed -n 1p alloc.hashes >alloc.good && sed -n 2p alloc.hashes >alloc.bad"
fixture "a history of nightly points of a change" sh -c "$MK nightrepo 24 13 faults >/dev/null && $MKH nightrepo nightly.sqlite 2 >/dev/null"

ran=0 used=""
while IFS=$'\t' read -r where cmd; do
    run=$(run_as_field "$cmd" run) codes=$(run_as_field "$cmd" exit)
    if [ -n "$run" ]; then
        used+="$cmd"$'\n'
    else
        run=$cmd codes=0
        while IFS=$'\t' read -r from to; do run=${run//"$from"/$to}; done <<<"$PLACEHOLDERS"
        run=$(sed -E 's#(^|&& *)(build/)?heapbench run #\1\2heapbench run --list-shard 1/1 #g;
                      s#(^|&& *)(build/)?heapbench exec (.*)-n [0-9]+#\1\2heapbench exec \3-n 1 --warmup 0#' <<<"$run")
    fi
    out=$(cd "$R" && timeout 900 bash -c "$run" 2>&1 </dev/null); rc=$?
    ran=$((ran + 1))
    if [[ "|$codes|" == *"|$rc|"* ]]; then
        t_pass "$where: $cmd (exit $rc)"
    else
        t_fail "$where: $cmd" "ran '$run': exit $rc, not $codes: $(tail -n 3 <<<"$out")"
    fi
done < <(doc_commands)
while read -r doc; do
    [ -n "$doc" ] || continue
    grep -qxF "$doc" <<<"$used" || t_fail "RUN_AS entry '$doc' matches a doc line" "no README or docs/ line reads so; mend the table"
done < <(sed -n 's/^doc: //p' <<<"$RUN_AS")
t_check "the docs hold heapbench commands to run ($ran)" test "$ran" -ge 40
t_summary
