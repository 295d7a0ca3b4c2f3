#!/usr/bin/env bash
# judge.sh - `heapbench check` is the one judge of a results directory: one corpus of damaged
# directories goes through check and through every Python reader (report, compare, merge), and
# each must refuse every one of them (check: exit 1 naming the defect; the readers: exit 2, one
# line on stderr, no traceback), while the undamaged directory passes all four.
# Always holds: the C and Python rule sets are spelled once each and compared here (text and
# physical ranges); every directory is a copy under $RT_TMP.
source runner/tests/rtlib.bash

good=$RT_TMP/good
"$HB" run -w sizes --quick -a glibc -n 1 --warmup 0 --latency sampled --interval 1 -o "$good" >/dev/null 2>&1 ||
    t_fail "judge: a quick sizes run to damage" "exit $?"

# damage NAME SHELL: a copy of the good directory as $RT_TMP/c/NAME, then SHELL run inside it.
damage() {
    mkdir -p "$RT_TMP/c"
    cp -r "$good" "$RT_TMP/c/$1"
    (cd "$RT_TMP/c/$1" && eval "$2") || t_fail "judge: damage $1" "the damage command failed"
}
# set_field FILE COLUMN VALUE: sets COLUMN of every data row of FILE to VALUE (fails on a file
# without data rows: a damage that changes nothing would let the judge look wrong or right by luck).
set_field() {
    /usr/bin/python3 - "$@" <<'EOF'
import csv, sys
path, column, value = sys.argv[1:]
rows = list(csv.reader(open(path, newline="")))
if len(rows) < 2:
    sys.exit(f"set_field: {path} has no data row to damage")
for row in rows[1:]:
    row[rows[0].index(column)] = value
csv.writer(open(path, "w", newline=""), lineterminator="\n").writerows(rows)
EOF
}
# lat_field COLUMN VALUE: sets COLUMN of latency.csv's rows to VALUE.
lat_field() { set_field latency.csv "$@"; }

damage no-meta 'rm meta.json'
damage meta-list 'echo "[1, 2]" > meta.json'
damage meta-nan "sed -i 's/\"reps\": 1/\"reps\": NaN/' meta.json"
damage meta-huge "sed -i 's/\"reps\": 1/\"reps\": 1e999/' meta.json"
damage meta-schema99 "sed -i 's/\"schema\": 1/\"schema\": 99/' meta.json"
damage meta-not-utf8 "sed -i 's/\"host\": \"/\"host\": \"\\xfe/' meta.json"
damage meta-reps-bool "sed -i 's/\"reps\": 1/\"reps\": true/' meta.json"
damage meta-own-list "sed -i 's/\"own_allocator\": {}/\"own_allocator\": [\"mimalloc\"]/' meta.json"
damage meta-commit-not-hash "/usr/bin/python3 -c 'import json; m = json.load(open(\"meta.json\")); m[\"tested_commit\"] = \"HEAD\"; json.dump(m, open(\"meta.json\", \"w\"))'"
damage own-share-text "/usr/bin/python3 -c 'import csv; r = list(csv.reader(open(\"runs.csv\"))); r[1][r[0].index(\"preloaded_share\")] = \"most\"; csv.writer(open(\"runs.csv\", \"w\", newline=\"\"), lineterminator=\"\\n\").writerows(r)'"
damage csv-nan "sed -i '2s/,glibc,1,/,glibc,nan,/' runs.csv"
damage csv-inf "sed -i '2s/,glibc,1,/,glibc,inf,/' phases.csv"
damage csv-negative "sed -i '2s/,glibc,1,/,glibc,-1,/' phases.csv"
damage csv-hex "sed -i '2s/,glibc,1,/,glibc,0x1,/' phases.csv"
damage csv-not-utf8 "sed -i '2s/glibc/gl\\xffibc/' runs.csv"
damage csv-schema99 "sed -i '2s/^1,/99,/' phases.csv"
damage lat-ab 'lat_field buckets "a:b"'
damage lat-negative 'lat_field buckets "16:-5"'
damage lat-big-index 'lat_field buckets "99999999999999999999:302"'
damage lat-5000-digits "lat_field buckets \"16:$(printf '9%.0s' $(seq 5000))\""
damage lat-sum 'lat_field buckets "16:1"'
damage lat-step-nan 'lat_field clock_step_ns nan'
damage lat-samples-5000 "lat_field samples $(printf '9%.0s' $(seq 5000))"
damage runs-cut 'truncate -s -40 runs.csv'
damage header-twice "sed -i '1s/,majflt,/,minflt,/' runs.csv"
damage wall-1e308 'set_field runs.csv wall_s 1.7e308'
damage maxrss-1e308 'set_field runs.csv maxrss_kb 1.7e308'
damage maxrss-2e16 'set_field runs.csv maxrss_kb 20000000000000000'
damage exit-300 'set_field runs.csv exit_code 300'
damage minflt-2e19 'set_field runs.csv minflt 2e19'
damage rss-t-1e11 'set_field rss.csv t 1e11'

"$HB" check "$good" >/dev/null 2>&1 && t_pass "judge: check accepts the undamaged directory" ||
    t_fail "judge: check accepts the undamaged directory" "$("$HB" check "$good" 2>&1)"

# reader NAME ARGS...: heapbench ARGS on a damaged directory: exit 2, one line, no traceback.
reader() {
    local name=$1 err rc; shift
    err=$("$HB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && ! grep -q Traceback <<<"$err"; then
        return 0
    fi
    echo "$name: heapbench $* exited $rc: $(printf '%s' "$err" | tail -n 2)"
    return 1
}

pyload='import sys
from heapbench import results
try:
    results.load(sys.argv[1])
except results.ResultsError as err:
    print(err)
    sys.exit(2)'
for dir in "$RT_TMP"/c/*; do
    case=$(basename "$dir")
    out=$("$HB" check "$dir" 2>&1); rc=$?
    if [ "$rc" -eq 1 ] && ! grep -q ': whole$' <<<"$out"; then
        t_pass "judge: check refuses $case ($(head -n 1 <<<"$out" | cut -c1-100))"
    else
        t_fail "judge: check refuses $case" "exit $rc: $out"
    fi
    bad=""
    bad+=$(reader "$case" report "$dir" -o "$RT_TMP/rep-$case")
    bad+=$(reader "$case" compare "$good" "$dir" --out "$RT_TMP/cmp-$case" --metrics wall_s)
    bad+=$(reader "$case" compare "$dir" "$good" --out "$RT_TMP/cmp2-$case" --metrics wall_s)
    bad+=$(reader "$case" merge -o "$RT_TMP/mg-$case" "$dir")
    [ -z "$bad" ] && t_pass "judge: report, compare and merge refuse $case (exit 2, one line)" ||
        t_fail "judge: report, compare and merge refuse $case" "$bad"
    [ ! -e "$RT_TMP/mg-$case/runs.csv" ] || t_fail "judge: merge wrote nothing from $case" "$RT_TMP/mg-$case"
    # The Python reader on its own (imported without the CLI, so without asking check): the same rules.
    out=$(env -u HEAPBENCH_BIN PYTHONPATH=report /usr/bin/python3 -c "$pyload" "$dir" 2>&1); rc=$?
    [ "$rc" -eq 2 ] && t_pass "judge: results.load() alone refuses $case" ||
        t_fail "judge: results.load() alone refuses $case" "exit $rc: $(tail -n 2 <<<"$out")"
done

# The undamaged directory passes every reader too (the other half of "accept exactly what check accepts").
ok=""
"$HB" report "$good" -o "$RT_TMP/rep-good" >/dev/null 2>&1 || ok+="report exited $?; "
"$HB" compare "$good" "$good" --out "$RT_TMP/cmp-good" --metrics wall_s >/dev/null 2>&1 || ok+="compare exited $?; "
"$HB" merge -o "$RT_TMP/mg-good" "$good" >/dev/null 2>&1 || ok+="merge exited $?; "
[ -z "$ok" ] && t_pass "judge: report, compare and merge accept the directory check accepts" ||
    t_fail "judge: report, compare and merge accept the directory check accepts" "$ok"

# One rule set, two spellings: the text columns and the physical ranges of check (cli/content.c)
# and of results.py.
c_list() { awk -v s="hb_content_$1" 'index($0, s "[] = {") { on = 1 } on { print } on && /NULL/ { exit }' \
    runner/cli/content.c | grep -o "$2" | tr -d '"{} ' | sort | tr '\n' ' '; }
py_text() { PYTHONPATH=report /usr/bin/python3 -c "from heapbench import results; print(' '.join(sorted(results.TEXT_COLUMNS)) + ' ')"; }
c_ranges=$(c_list ranges '{"[^"]*", [^}]*}' | /usr/bin/python3 -c '
import sys
print(sorted((w.split(",")[0], float(w.split(",")[1]), float(w.split(",")[2])) for w in sys.stdin.read().split()))' 2>&1)
py_ranges=$(PYTHONPATH=report /usr/bin/python3 -c '
from heapbench import results
print(sorted((k, float(lo), float(hi)) for k, (lo, hi) in results.RANGES.items()))')
[ "$(c_list text_columns '"[^"]*"')" = "$(py_text)" ] && [ "$c_ranges" = "$py_ranges" ] && [ "${#c_ranges}" -gt 200 ] &&
    t_pass "judge: check and results.py name the same text columns and physical ranges" ||
    t_fail "judge: check and results.py name the same text columns and physical ranges" \
        "C: $(c_list text_columns '"[^"]*"') / $c_ranges; Python: $(py_text) / $py_ranges"
t_summary
