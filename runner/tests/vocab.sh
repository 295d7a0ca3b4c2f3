#!/usr/bin/env bash
# vocab.sh - one command-line vocabulary across the C subcommands (run, exec, list, record): in every
# --help, a short option always has the same long name and the shared names have their agreed
# short forms (-o/--output, -a/--allocators, -w/--workloads, -n/--reps, -t/--threads,
# -p/--params, -h/--help).
source runner/tests/rtlib.bash

declare -A agreed=([o]=output [a]=allocators [w]=workloads [n]=reps [t]=threads [p]=params [h]=help)
declare -A seen   # short -> "long (subcommand)" first seen
bad=""
for cmd in run exec list record; do
    help=$("$HB" "$cmd" --help 2>&1)
    while read -r short long; do
        [ -n "$short" ] || continue
        want=${agreed[$short]:-}
        [ -n "$want" ] && [ "$long" != "$want" ] && bad+="$cmd: -$short is --$long, not --$want; "
        first=${seen[$short]:-}
        if [ -z "$first" ]; then seen[$short]="$long ($cmd)"
        elif [ "${first%% *}" != "$long" ]; then bad+="$cmd: -$short is --$long but --$first; "; fi
    done < <(printf '%s\n' "$help" | sed -n 's/^ *-\([a-zA-Z]\), --\([a-z-]*\).*/\1 \2/p')
    for s in "${!agreed[@]}"; do
        if printf '%s\n' "$help" | grep -Eq "^ +--${agreed[$s]}( |$)"; then
            bad+="$cmd: --${agreed[$s]} lacks its short form -$s; "
        fi
    done
done
[ ${#seen[@]} -ge 6 ] || bad+="only ${#seen[@]} short options found in the --help texts; "
[ -z "$bad" ] && t_pass "run, exec, list and record share one option vocabulary (${#seen[@]} short options)" ||
    t_fail "run, exec, list and record share one option vocabulary" "$bad"
t_summary
