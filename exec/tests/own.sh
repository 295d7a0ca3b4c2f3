# exec/tests/own.sh - programs that bring their own allocator, sourced by exec/tests/run.
# shellcheck shell=bash
# Three programs of ours, built here: one calling mi_malloc from Debian's libmimalloc-dev (the
# probe finds mimalloc in a loaded library: own_allocator, preloaded_share, the warning, meta.json,
# and compare/advise/tune refuse it unless --allow-own-allocator), one linked with a static
# archive defining _rjem_malloc (Rust's jemallocator entry point; the runner finds it in the
# program file's symbols), one with plain malloc (no finding, no warning). Debian's own static
# allocator archive, libjemalloc.a, defines the unprefixed malloc: a program linked with it
# serves malloc itself, and its runs fail (the served_by rule), which is checked too.
# Always holds: everything is built and written under $RT_TMP (removed by rtlib.bash).

OWN=$RT_TMP/own
mkdir -p "$OWN"
cat >"$OWN/mi.c" <<'C'
#include <mimalloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) /* 64 MiB through mimalloc, live until exit; 1 MiB through malloc */
{
    size_t n = 64u << 20;
    char *big = mi_malloc(n), *small = malloc(1 << 20);
    if (!big || !small)
        return 1;
    memset(big, 1, n), memset(small, 2, 1 << 20);
    printf("%d\n", big[n - 1] + small[0]);
    free(small);
    return 0;
}
C
cat >"$OWN/rjem.c" <<'C'
#include <stddef.h>
#include <sys/mman.h>
void *_rjem_malloc(size_t n) /* a stand-in for a statically linked, prefixed jemalloc */
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
C
cat >"$OWN/st.c" <<'C'
#include <stdio.h>
#include <string.h>
void *_rjem_malloc(size_t n);
int main(void) { char *p = _rjem_malloc(1 << 24); if (!p) return 1; memset(p, 1, 1 << 24); printf("%d\n", p[5]); return 0; }
C
printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) { char *p = malloc(1 << 24); if (!p) return 1; memset(p, 1, 1 << 24); printf("%%d\\n", p[5]); free(p); return 0; }\n' >"$OWN/plain.c"
printf '#include <stdlib.h>\nint main(void) { return malloc(16) == NULL; }\n' >"$OWN/jestatic.c"
if ! { gcc -O1 -o "$OWN/mi" "$OWN/mi.c" -lmimalloc && gcc -O1 -c -o "$OWN/rjem.o" "$OWN/rjem.c" &&
       ar rcs "$OWN/librjem.a" "$OWN/rjem.o" && gcc -O1 -o "$OWN/st" "$OWN/st.c" -L"$OWN" -lrjem &&
       gcc -O1 -o "$OWN/plain" "$OWN/plain.c"; } 2>"$OWN/gcc.err"; then
    t_fail "own allocator: the test programs build" "$(head -n 3 "$OWN/gcc.err") (make deps installs libmimalloc-dev)"
else
    # The probe alone: under jemalloc the mi_malloc calls bind to libmimalloc, under mimalloc to it.
    got=$(probe_line "$JE:$PROBE" "$OWN/mi" | grep -c "^own_allocator	mimalloc	/.*libmimalloc")
    expect_own() { [ "$2" = "$3" ] && t_pass "$1" || t_fail "$1" "got '$2', expected '$3'"; }
    expect_own "probe: mi_malloc binding to libmimalloc beside a preloaded jemalloc is one own_allocator record" "$got" 1
    got=$(probe_line "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2:$PROBE" "$OWN/mi" | grep -c "^own_")
    expect_own "probe: with mimalloc preloaded, mi_malloc is the preloaded allocator's (no record)" "$got" 0
    got=$(probe_line "$JE:$PROBE" "$OWN/plain" | grep -c "^own_")
    expect_own "probe: a program with plain malloc gets no own_allocator record" "$got" 0

    "$HB" exec -a jemalloc,glibc,mimalloc -n 1 --warmup 0 -o "$OWN/mi-run" -- "$OWN/mi" >"$OWN/mi.out" 2>"$OWN/mi.err"
    rt_check "own allocator: mi_malloc program's rows name mimalloc, with the share left to the preloaded one" "$OWN/mi-run" '
by = {r["allocator"]: r for r in runs}
assert all(r["status"] == "ok" for r in runs), [(r["allocator"], r["status"], r["reason"]) for r in runs]
for a in ("jemalloc", "glibc"):
    assert by[a]["own_allocator"] == "mimalloc", (a, by[a]["own_allocator"])
    assert by[a]["preloaded_share"] is not None and 0 <= by[a]["preloaded_share"] < 0.2, by[a]["preloaded_share"]
assert by["mimalloc"]["own_allocator"] in ("", None) and by["mimalloc"]["preloaded_share"] is None, by["mimalloc"]
assert meta["own_allocator"] == {runs[0]["workload"]: "mimalloc"}, meta["own_allocator"]'
    expect_own "own allocator: one warning per cell that found it (jemalloc, glibc)" \
        "$(grep -c 'warning: .* brings its own allocator (mimalloc in .*libmimalloc' "$OWN/mi.err")" 2
    t_check "own allocator: heapbench check accepts the directory" "$HB" check "$OWN/mi-run"
    err=$("$HB" compare "$OWN/mi-run" "$OWN/mi-run" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && [[ $err == *"brings its own allocator (mimalloc;"*"--allow-own-allocator"* ]] &&
        t_pass "own allocator: compare refuses, with the reason" || t_fail "own allocator: compare refuses, with the reason" "exit $rc: $err"
    "$HB" compare --allow-own-allocator "$OWN/mi-run" "$OWN/mi-run" >/dev/null 2>&1
    expect_own "own allocator: compare --allow-own-allocator compares" "$?" 0
    err=$("$HB" tune -a jemalloc --budget 2 -n 2 -o "$OWN/tune" -- "$OWN/mi" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && [[ $err == *"brings its own allocator (mimalloc;"* ]] &&
        t_pass "own allocator: tune refuses, with the reason" || t_fail "own allocator: tune refuses, with the reason" "exit $rc: $(tail -n 2 <<<"$err")"
    err=$("$HB" advise --budget 600 -o "$OWN/advise" -- "$OWN/mi" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && [[ $err == *"brings its own allocator (mimalloc;"* ]] &&
        t_pass "own allocator: advise refuses, with the reason" || t_fail "own allocator: advise refuses, with the reason" "exit $rc: $(tail -n 2 <<<"$err")"

    "$HB" exec -a glibc -n 1 --warmup 0 -o "$OWN/st-run" -- "$OWN/st" >/dev/null 2>"$OWN/st.err"
    rt_check "own allocator: a static _rjem_malloc is found in the program file (no share known)" "$OWN/st-run" '
assert [(r["status"], r["own_allocator"], r["preloaded_share"]) for r in runs] == [("ok", "jemalloc", None)], runs'
    expect_own "own allocator: the static one is warned about, naming the program file" \
        "$(grep -c 'brings its own allocator (jemalloc in the program file)' "$OWN/st.err")" 1

    "$HB" exec -a glibc,jemalloc -n 1 --warmup 0 -o "$OWN/plain-run" -- "$OWN/plain" >/dev/null 2>"$OWN/plain.err"
    rt_check "own allocator: none found in a plain malloc program" "$OWN/plain-run" '
assert [(r["status"], r["own_allocator"]) for r in runs] == [("ok", None), ("ok", None)] or \
       [(r["status"], r["own_allocator"] or "") for r in runs] == [("ok", ""), ("ok", "")], runs
assert meta["own_allocator"] == {}, meta["own_allocator"]'
    expect_own "own allocator: no warning for a plain malloc program" "$(grep -c 'own allocator' "$OWN/plain.err")" 0
fi
if [ -f /usr/lib/x86_64-linux-gnu/libjemalloc.a ] && gcc -O1 -o "$OWN/jestatic" "$OWN/jestatic.c" \
        /usr/lib/x86_64-linux-gnu/libjemalloc.a -lpthread -ldl -lm 2>"$OWN/gcc2.err"; then
    "$HB" exec -a glibc -n 1 --warmup 0 -o "$OWN/je-run" -- "$OWN/jestatic" >/dev/null 2>&1
    rt_check "own allocator: Debian's static libjemalloc.a takes malloc over, and the run fails (served by the program)" "$OWN/je-run" '
assert [r["status"] for r in runs] == ["failed"] and "served by" in runs[0]["reason"], runs'
else
    t_fail "own allocator: a program linked with Debian's libjemalloc.a" "$(head -n 2 "$OWN/gcc2.err" 2>/dev/null) (make deps installs libjemalloc-dev)"
fi
