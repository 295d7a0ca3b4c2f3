# allocators/tests/stats.sh - tests of the allocator-statistics library (build/lib/libhbstats.so), sourced by allocators/tests/run.
# shellcheck shell=bash
# Runs `frag --quick` (20,000 x 1 KiB: 20,480,000 live bytes after `alloc`, half after
# `free-half`, none after `free-all`) under every installed allocator of the registry with the
# library preloaded beside it, and checks the allocstat records: the API expected for that
# allocator, the order allocated <= active <= resident <= mapped (jemalloc: its mapped excludes
# dirty pages, so only active <= mapped), allocated tracking the live bytes within the
# allocator's rounding, empty values with a reason where there is no API, AnonHugePages present.
# Always holds: the workload runs directly (stdout mode) in a temp dir the caller removes.

STATS_LIB=$PWD/build/lib/libhbstats.so
FRAG=build/workloads/frag
LIVE=20480000

# stat_of OUT PHASE LAYER: the value of the first allocstat record of that phase and layer ("" if empty/absent).
stat_of() { awk -F'\t' -v p="$2" -v l="$3" '$1 == "allocstat" && $2 == p && $5 == l { print $6; exit }' "$1"; }
# reason_of OUT PHASE LAYER: its reason.
reason_of() { awk -F'\t' -v p="$2" -v l="$3" '$1 == "allocstat" && $2 == p && $5 == l { print $7; exit }' "$1"; }
# le LABEL A B: A <= B, both present (skipped when either is empty: the API lacks that figure).
le() {
    [ -z "$2" ] || [ -z "$3" ] && return
    [ "$2" -le "$3" ] && t_pass "$1" || t_fail "$1" "$2 > $3"
}
# within LABEL V LO HI: LO <= V <= HI.
within() { [ -n "$2" ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] && t_pass "$1" || t_fail "$1" "got '$2', expected $3..$4"; }

# expected_api NAME: the API the library must pick for a registry allocator ("" = not pinned here).
expected_api() {
    case $1 in
    glibc | refmalloc | bump | freelist | trim | mmap) echo mallinfo2 ;;
    jemalloc) echo mallctl ;;
    tcmalloc | tcmalloc-minimal) echo MallocExtension ;;
    mimalloc) echo mi_process_info ;;
    scudo) echo mallinfo2-scudo ;;
    tbbmalloc) echo none ;;
    esac
}

# stats_ordering L OUT API: the layer order of that API at `alloc` and `free-half`.
stats_ordering() {
    local l=$1 out=$2 api=$3 p
    for p in alloc free-half; do
        local al ac rs mp
        al=$(stat_of "$out" $p allocated); ac=$(stat_of "$out" $p active)
        rs=$(stat_of "$out" $p resident); mp=$(stat_of "$out" $p mapped)
        le "$l $p: allocated <= active" "$al" "$ac"
        le "$l $p: active <= resident" "$ac" "$rs"
        le "$l $p: active <= mapped" "$ac" "$mp"
        le "$l $p: allocated <= mapped" "$al" "$mp"
        [ "$api" = mallctl ] || le "$l $p: resident <= mapped" "$rs" "$mp"
    done
}

# stats_tracking L OUT API: allocated (mimalloc: its commit) follows the live bytes.
stats_tracking() {
    local l=$1 out=$2 api=$3
    if [ "$api" = mi_process_info ]; then
        le "$l alloc: live <= committed" "$LIVE" "$(stat_of "$out" alloc active)"
        le "$l alloc: committed <= peak committed" "$(stat_of "$out" alloc active)" "$(stat_of "$out" alloc peak)"
        return
    fi
    # 1 KiB blocks are an exact size class (glibc: +16 B chunk header, 1.6%), but for Scudo, whose
    # 16 B header puts them in its 1280 B class (+25%); 1 MiB covers the slot table.
    local pct=105
    [ "$api" = mallinfo2-scudo ] && pct=126
    within "$l alloc: allocated = live + rounding" "$(stat_of "$out" alloc allocated)" $LIVE $((LIVE * pct / 100 + 1048576))
    within "$l free-half: allocated = live + rounding" "$(stat_of "$out" free-half allocated)" $((LIVE / 2)) $((LIVE / 2 * pct / 100 + 1048576))
    within "$l free-all: allocated ~ 0" "$(stat_of "$out" free-all allocated)" 0 1048576
}

# stats_empty L OUT: no API (or one that keeps nothing): every layer it emits is empty, with a reason.
stats_empty() {
    local l=$1 out=$2 layer n=0
    for layer in allocated active resident mapped; do
        grep -q "^allocstat	alloc	[^	]*	[^	]*	$layer	" "$out" || continue
        n=$((n + 1))
        if [ -z "$(stat_of "$out" alloc $layer)" ] && [ -n "$(reason_of "$out" alloc $layer)" ]; then
            t_pass "$l: $layer empty with a reason"
        else t_fail "$l: $layer empty with a reason" "value '$(stat_of "$out" alloc $layer)', reason '$(reason_of "$out" alloc $layer)'"; fi
    done
    [ $n -ge 2 ] && t_pass "$l: the breakdown layers are emitted" || t_fail "$l: the breakdown layers are emitted" "$n of them"
}

# stats_one NAME LIB: one allocator (LIB "" = the system malloc).
stats_one() {
    local name=$1 lib=$2 out="$TMP/stats-$1" want api
    LD_PRELOAD="$lib $STATS_LIB" timeout 120 "$FRAG" --quick >"$out" 2>&1
    want=$(expected_api "$name")
    api=$(awk -F'\t' '$1 == "allocstat" && $2 == "alloc" && $3 != "smaps_rollup" { print $3; exit }' "$out")
    [ -z "$want" ] || expect_eq "stats $name: API" "$api" "$want"
    expect_eq "stats $name: allocstat records after each of the 4 phases" \
        "$(awk -F'\t' '$1 == "allocstat" { print $2 }' "$out" | sort -u | wc -l)" 4
    [ -n "$(stat_of "$out" alloc hugepages)" ] && t_pass "stats $name: AnonHugePages read" || t_fail "stats $name: AnonHugePages read" "$(grep AnonHuge "$out" | head -n 1)"
    # No API, or a mallinfo2 of zeros (the teaching allocators); mimalloc's empty `allocated` is its own case.
    if [ "$api" = none ] || { [ "$api" = mallinfo2 ] && [ -n "$(reason_of "$out" alloc allocated)" ]; }; then
        stats_empty "stats $name" "$out"
    else
        stats_ordering "stats $name" "$out" "$api"
        stats_tracking "stats $name" "$out" "$api"
    fi
}

# expect_eq LABEL GOT WANT.
expect_eq() { [ "$2" = "$3" ] && t_pass "$1" || t_fail "$1" "got '$2', expected '$3'"; }

if [ ! -f "$STATS_LIB" ] || [ ! -x "$FRAG" ]; then
    t_fail "stats: built" "$STATS_LIB or $FRAG missing: run make"
else
    # Every registry allocator whose library is here (glibc: nothing preloaded), as the registry's
    # one Python reader resolves it: "NAME<tab>LIBRARY" per allocator found.
    while IFS=$'\t' read -r name lib; do
        stats_one "$name" "$lib"
    done < <(PYTHONPATH=$PWD/report /usr/bin/python3 -c 'from heapbench import registry
for a in registry.read_registry().values():
    if a.library is not None:
        print(f"{a.name}\t{a.library}")')
    # Standalone: without the library a workload writes no allocstat record.
    "$FRAG" --quick >"$TMP/nostats" 2>&1
    expect_eq "stats: none without the library" "$(grep -c '^allocstat' "$TMP/nostats")" 0
    # Only the hook is exported.
    expect_eq "stats: one exported function" "$(nm -D --defined-only "$STATS_LIB" | awk '$2 == "T" { print $3 }')" heapbench_allocstat
fi
