# allocators/tests/thp.sh - tests of the huge-page modes (build/hb-thp, allocators/thp/), sourced by allocators/tests/run.
# shellcheck shell=bash
# The unit tests of the mapping, then `hb-thp never` on processes that ask hard for huge pages
# (jemalloc with MALLOC_CONF=thp:always, glibc with glibc.malloc.hugetlb=1, set by the "user",
# and --tunables none so that only the kernel's PR_SET_THP_DISABLE stands between them and huge
# pages): AnonHugePages (the stats library's smaps_rollup record) must be 0 at every phase.
# The same command under `always` is printed as a note (whether the kernel finds free huge pages
# depends on the machine's memory, so it is not a check). Always holds: temp files under $TMP.

THP=build/hb-thp

# anon_huge_max OUT: the largest AnonHugePages value over the phases ("" when none was read).
anon_huge_max() { awk -F'\t' '$1 == "allocstat" && $4 == "AnonHugePages" && $6 != "" { if ($6 > m || m == "") m = $6 } END { print m }' "$1"; }

if [ -x build/tests/allocators-thp ]; then
    while IFS= read -r line; do
        case $line in
        "PASS "*) t_pass "${line#PASS }" ;;
        "FAIL "*) t_fail "${line#FAIL }" "unit test" ;;
        esac
    done < <(build/tests/allocators-thp)
else
    t_fail "thp unit tests built" "no build/tests/allocators-thp (make test builds it)"
fi

if [ ! -x "$THP" ] || [ ! -f "$STATS_LIB" ]; then
    t_fail "thp: built" "$THP or $STATS_LIB missing: run make"
else
    JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
    # label | preload | environment | workload
    while IFS='|' read -r label pre envset cmd; do
        [ -n "$pre" ] && [ ! -f "$pre" ] && continue
        for mode in never always; do
            # shellcheck disable=SC2086
            env $envset LD_PRELOAD="$pre $STATS_LIB" "$THP" $mode --tunables none -- $cmd >"$TMP/thp-$mode" 2>&1
            echo $? >"$TMP/thp-rc-$mode"
        done
        expect_eq "thp never $label: exit 0" "$(cat "$TMP/thp-rc-never")" 0
        expect_eq "thp never $label: AnonHugePages 0 at every phase" "$(anon_huge_max "$TMP/thp-never")" 0
        echo "note: the same under always: AnonHugePages up to $(anon_huge_max "$TMP/thp-always") bytes"
    done <<EOT
jemalloc thp:always|$JE|MALLOC_CONF=thp:always|build/workloads/frag --quick --blocks=60000
glibc hugetlb=1||GLIBC_TUNABLES=glibc.malloc.hugetlb=1|build/workloads/calloc --quick
EOT
    expect_eq "thp: --show says what is in effect" "$("$THP" never --tunables jemalloc --show | grep -c '^in_effect=never$')" 1
    "$THP" sometimes --show >/dev/null 2>"$TMP/thp-err"; rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$TMP/thp-err")" = 1 ] && t_pass "thp: bad mode exit 2, one line" || t_fail "thp: bad mode" "exit $rc: $(cat "$TMP/thp-err")"
    "$THP" never >/dev/null 2>&1; expect_eq "thp: no command exit 2" $? 2
fi
