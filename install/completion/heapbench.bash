# heapbench.bash - bash completion of heapbench(1), installed as share/bash-completion/completions/heapbench.
#
# Completes the subcommands; each subcommand's options, read from its own `--help` (so they cannot
# drift from the CLI); allocator and workload names, read from `heapbench list`, also inside
# comma-separated lists (-a glibc,jem<TAB>); directories and files where an option or a
# subcommand takes a path; the command after `--` of exec, record, tune, advise, explain and ci --ab; history's own subcommands
# (add, testbeds, changes, report, export), each with the options of its `--help`.
# Always holds: the completion never runs a benchmark: it only runs `heapbench SUB --help` and
# `heapbench list`, each at most once per shell and heapbench binary (the answers are cached).

_HEAPBENCH_SUBCOMMANDS="run exec list check doctor record trace report compare ci merge tune history advise explain bisect"
_HEAPBENCH_HISTORY_SUBCOMMANDS="add testbeds changes report export"

# The options that `$1 $2 [$3] --help` prints: every -x / --name at the start of an option line.
_heapbench_help_options()
{
    "$@" --help 2>/dev/null | awk '
        /^ +-/ {
            match($0, /^ +/)
            if (RLENGTH > 6) next
            line = substr($0, RLENGTH + 1)
            cut = index(line, "  ")
            if (cut) line = substr(line, 1, cut - 1)
            n = split(line, w, /[ ,]+/)
            for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z0-9]/) print w[i]
        }'
}

# The names `$1 list` prints: "a NAME" per allocator, "w NAME" per workload.
_heapbench_list_names()
{
    "$1" list 2>/dev/null | awk '
        /^allocators:/ { part = "a"; next }
        /^workloads:/ { part = "w"; next }
        /^[^ ]/ { part = "" }
        part != "" && /^  [^ ]/ && !(part == "a" && $1 == "name") { print part, $1 }'
}

# Cached answer of one of the two readers above: $1 = cache key, then the reader and its arguments.
_heapbench_cached()
{
    local key=$1
    shift
    declare -gA _heapbench_cache
    if [[ -z "${_heapbench_cache[$key]+set}" ]]; then
        _heapbench_cache[$key]=$("$@")
    fi
    printf '%s\n' "${_heapbench_cache[$key]}"
}

# Completes the last element of a comma-separated list in $cur from the words $1.
_heapbench_complete_list()
{
    local head="" tail=$cur
    if [[ "$cur" == *,* ]]; then
        head=${cur%,*},
        tail=${cur##*,}
    fi
    mapfile -t COMPREPLY < <(compgen -W "$1" -P "$head" -- "$tail")
    [[ ${#COMPREPLY[@]} -eq 1 ]] && compopt -o nospace 2>/dev/null
    __ltrim_colon_completions "$cur"
}

_heapbench()
{
    local cur prev words cword
    _init_completion -n =: || return
    local bin=${words[0]} sub="" hsub="" i
    for ((i = 1; i < cword; i++)); do
        if [[ "${words[i]}" == -- ]] && [[ "$sub" == exec || "$sub" == record || "$sub" == tune || "$sub" == ci || "$sub" == advise || "$sub" == explain || "$sub" == bisect ]]; then
            _command_offset $((i + 1))
            return
        fi
        if [[ "${words[i]}" != -* ]]; then
            if [[ -z "$sub" ]]; then
                sub=${words[i]}
            elif [[ "$sub" == history && -z "$hsub" && "${words[i-1]}" != --db ]]; then
                hsub=${words[i]}
            fi
        fi
    done
    if [[ "$sub" == history && -z "$hsub" && "$cur" != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$_HEAPBENCH_HISTORY_SUBCOMMANDS" -- "$cur")
        return
    fi
    if [[ -z "$sub" ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$_HEAPBENCH_SUBCOMMANDS --help --version" -- "$cur")
        return
    fi
    local names
    case "$prev" in
    -a | --allocators)
        names=$(_heapbench_cached "$bin|list" _heapbench_list_names "$bin" | awk '$1 == "a" { print $2 }')
        _heapbench_complete_list "$names"
        return ;;
    -w | --workloads)
        names=$(_heapbench_cached "$bin|list" _heapbench_list_names "$bin" | awk '$1 == "w" { print $2 }')
        _heapbench_complete_list "$names"
        return ;;
    -o | --output | --out | --resume | --baseline)
        _filedir -d
        return ;;
    --markdown | --junit | --allocator | --workload-bin | --db | --history)
        _filedir
        return ;;
    esac
    if [[ "$cur" == -* ]]; then
        local opts
        if [[ -n "$hsub" ]]; then
            opts=$(_heapbench_cached "$bin|$sub|$hsub" _heapbench_help_options "$bin" "$sub" "$hsub")
        else
            opts=$(_heapbench_cached "$bin|$sub" _heapbench_help_options "$bin" "$sub")
        fi
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return
    fi
    case "$sub" in
    check | report | compare | merge) _filedir -d ;;
    trace) _filedir ;;
    history) [[ "$hsub" == add ]] && _filedir -d ;;
    esac
}
complete -F _heapbench heapbench
