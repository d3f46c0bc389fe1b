# bash completion for kubectl-instancetype                               -*- shell-script -*-
# Load it with:  source <(kubectl-instancetype completion bash)
# (`kubectl instancetype <TAB>` needs no script: kubectl runs kubectl_complete-instancetype.)
_kubectl_instancetype_complete() {
    local cur cword
    local -a words
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n "=:" cur words cword
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local out directive line
    out=$(kubectl-instancetype __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null) || return 0
    directive=${out##*:}
    [[ $directive =~ ^[0-9]+$ ]] || directive=0
    COMPREPLY=()
    while IFS= read -r line; do
        [[ -z $line || $line == :* ]] && continue
        COMPREPLY+=("${line%%$'\t'*}")
    done <<< "$out"
    if [[ $cur == *[=:]* ]]; then
        # bash breaks words at '=' and ':': offer only what follows the last one.
        local prefix=${cur%"${cur##*[=:]}"}
        COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
    fi
    if (( directive & 2 )); then
        compopt -o nospace 2>/dev/null
    fi
    if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
        compopt -o default 2>/dev/null
    fi
    return 0
}
complete -F _kubectl_instancetype_complete kubectl-instancetype
