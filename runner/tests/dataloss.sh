#!/usr/bin/env bash
# dataloss.sh - nothing is lost or glued: on a full disk (a 200 KB tmpfs)
# every run is in every CSV whole or not at all and the runner exits 1; after space is freed
# --resume measures the missing runs and `heapbench check` finds the directory whole; --resume
# cuts a partial last line before appending; a second writer of a directory is refused (exit 2,
# naming the pid); a meta.json that cannot be written at the end exits 1.
source runner/tests/rtlib.bash

mnt=$RT_TMP/mnt
mkdir -p "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$RT_TMP"' EXIT

args=(-w sizes --quick -a glibc,jemalloc -n 2 --warmup 0)
if mount -t tmpfs -o size=200k tmpfs "$mnt" 2>/dev/null; then
    "$HB" run "${args[@]}" -o "$mnt/r" >/dev/null 2>"$RT_TMP/err"; rc=$?
    t_check "a full disk exits 1" test "$rc" -eq 1
    t_check "the full-disk message says how to finish" grep -q -- "--resume $mnt/r" "$RT_TMP/err"
    check_out=$("$HB" check "$mnt/r"); rc=$?
    t_check "after a full disk with unwritten runs, check says the directory is not whole (exit 1)" \
        test "$rc" -eq 1 -a -n "$(grep 'not whole: meta.json says "complete": false' <<<"$check_out")"
    rt_check "after a full disk with unwritten runs, meta.json says complete false" "$mnt/r" '
assert meta["complete"] is False, meta["complete"]'
    rt_check "after a full disk, every run of runs.csv has all its sizes rows" "$mnt/r" '
import collections
have = collections.Counter(r["run"] for r in d["sizes"])
assert len(runs) < 4, len(runs)
for r in runs:
    want = int(dict(w.split("=") for w in r["records"].split())["sizes.csv"])
    assert have[r["run"]] == want, (r["run"], have[r["run"]], want)'
    mount -o remount,size=50m "$mnt"
    out=$("$HB" run --resume "$mnt/r" 2>&1); rc=$?
    t_check "resume after freeing space exits 0" test "$rc" -eq 0
    t_check "resume after a full disk: check finds it whole" "$HB" check "$mnt/r"
    rt_check "resume after a full disk: 4 ok runs, each with its 2191-odd sizes rows once" "$mnt/r" '
import collections
assert sorted(r["run"] for r in runs) == [1, 2, 3, 4], [r["run"] for r in runs]
assert all(r["status"] == "ok" for r in runs)
have = collections.Counter(r["run"] for r in d["sizes"])
for r in runs:
    want = int(dict(w.split("=") for w in r["records"].split())["sizes.csv"])
    assert want > 1000 and have[r["run"]] == want, (r["run"], have[r["run"]], want)
assert meta["complete"] is True'
    umount "$mnt"
    # A disk that fills while the directory is being created (its CSV headers fit, meta.json does not).
    mount -t tmpfs -o size=28k tmpfs "$mnt"
    "$HB" run "${args[@]}" -o "$mnt/c" >/dev/null 2>"$RT_TMP/err"; rc=$?
    t_check "a disk full before meta.json: exit 1, the message names the disk and the way on" \
        grep -q "No space left on device; free some space, then run the same command again with -o $mnt/c" "$RT_TMP/err"
    check_out=$("$HB" check "$mnt/c"); rc=$?
    t_check "check says a directory without meta.json is not whole, and what to do (exit 1)" \
        test "$rc" -eq 1 -a -n "$(grep "meta.json: missing and runs.csv has no rows.*again with -o $mnt/c" <<<"$check_out")"
    rt_usage "--resume of a directory without meta.json: one line, exit 2" run --resume "$mnt/c"
    mount -o remount,size=50m "$mnt"
    "$HB" run "${args[@]}" -o "$mnt/c" >/dev/null 2>&1; rc=$?
    t_check "the same command with -o again measures into it (exit 0) and check finds it whole" \
        test "$rc" -eq 0 -a -n "$("$HB" check "$mnt/c" | grep ': whole$')"
else
    echo "SKIP full-disk tests: cannot mount a tmpfs here (needs root); the other checks still run"
fi

# A runs.csv cut in the middle of its last row (a crash during the write): resume cuts it off.
"$HB" run "${args[@]}" -o "$RT_TMP/cut" >/dev/null 2>&1
size=$(stat -c %s "$RT_TMP/cut/runs.csv")
truncate -s $((size - 25)) "$RT_TMP/cut/runs.csv"
truncate -s $(($(stat -c %s "$RT_TMP/cut/sizes.csv") - 7)) "$RT_TMP/cut/sizes.csv"
check_out=$("$HB" check "$RT_TMP/cut"); rc=$?
t_check "check exits 1 on a partial last line" test "$rc" -eq 1
t_check "check names the partial line" grep -q "runs.csv: the last line is partial" <<<"$check_out"
"$HB" run --resume "$RT_TMP/cut" >/dev/null 2>&1; rc=$?
t_check "resume over a partial last line exits 0" test "$rc" -eq 0
t_check "resume over a partial last line: check finds it whole" "$HB" check "$RT_TMP/cut"
rt_check "resume over a partial last line: 4 rows of 4 runs, every status a status" "$RT_TMP/cut" '
assert sorted(r["run"] for r in runs) == [1, 2, 3, 4], [r["run"] for r in runs]
assert all(r["status"] == "ok" for r in runs), [r["status"] for r in runs]'

# One writer at a time: a resume during the run is refused, naming the writer's pid.
"$HB" run -w thread-churn -t 1 -p '--ops=400000' -a glibc -n 40 --warmup 0 -o "$RT_TMP/busy" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1200); do [ -s "$RT_TMP/busy/.lock" ] && [ -s "$RT_TMP/busy/meta.json" ] && break; sleep 0.05; done # up to 60 s
err=$("$HB" run --resume "$RT_TMP/busy" 2>&1 >/dev/null); rc=$?
t_check "a second writer exits 2" test "$rc" -eq 2
t_check "a second writer is told the pid ($pid)" grep -q "pid $pid" <<<"$err"
err=$("$HB" run -w sizes --quick -a glibc -n 1 -o "$RT_TMP/busy" 2>&1 >/dev/null); rc=$?
t_check "a second run into the same -o exits 2" test "$rc" -eq 2
kill -9 "$pid"; wait "$pid" 2>/dev/null
check_out=$("$HB" check "$RT_TMP/busy")
t_check "right after kill -9 of the writer, check finds no defect, only that runs are missing" \
    test "$(grep -vc ": note: " <<<"$check_out")" -eq 1 -a -n "$(grep 'not whole: meta.json says "complete": false' <<<"$check_out")"
t_check "... and every reader may read it (check --readable: exit 0)" "$HB" check --readable "$RT_TMP/busy"
"$HB" run --resume "$RT_TMP/busy" >/dev/null 2>&1; rc=$?
t_check "after kill -9 of the writer, resume takes the lock and finishes (exit 0)" test "$rc" -eq 0
t_check "after kill -9 and resume, check finds it whole" "$HB" check "$RT_TMP/busy"
rt_check "after kill -9 and resume, 40 distinct reps" "$RT_TMP/busy" '
assert sorted(int(r["rep"]) for r in runs) == list(range(1, 41)), len(runs)'

# meta.json that cannot be replaced at the end (its temporary name is taken by a directory).
"$HB" exec -a glibc -n 1 --warmup 0 -o "$RT_TMP/m" -- mkdir "$RT_TMP/m/meta.json.tmp" >/dev/null 2>"$RT_TMP/m.err"; rc=$?
t_check "a failed meta.json write exits 1" test "$rc" -eq 1
t_check "... naming its cause, and not 'free some space' when space was not what lacked" \
    test -n "$(grep 'meta.json not written: Is a directory' "$RT_TMP/m.err")" -a -z "$(grep 'free some space' "$RT_TMP/m.err")"

# A lock held by a writer that has not written its pid yet: the refusal says so, not "pid (unknown)".
mkdir -p "$RT_TMP/nopid" && : > "$RT_TMP/nopid/.lock"
# The holder waits for the lock (-w, not -n): the probe below holds it for an instant, and a holder
# that tried then with -n gave up, so that the run took the lock (failed once at load ~8). It
# becomes the sleep that holds the lock (exec), so that killing it releases the lock.
(exec 9>>"$RT_TMP/nopid/.lock" && flock -w 60 9 && exec sleep 60) & holder=$!
# until the holder has the lock (up to 60 s)
for _ in $(seq 600); do flock -n "$RT_TMP/nopid/.lock" true 2>/dev/null || break; sleep 0.1; done
err=$("$HB" run -w sizes --quick -a glibc -n 1 -o "$RT_TMP/nopid" 2>&1 >/dev/null); rc=$?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
t_check "a lock without a pid: exit 2, 'names no pid yet', never 'pid (unknown)'" \
    test "$rc" -eq 2 -a -n "$(grep 'names no pid yet' <<<"$err")" -a -z "$(grep unknown <<<"$err")"
t_summary
