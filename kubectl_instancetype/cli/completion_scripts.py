"""Shell completion scripts for running the plugin directly as ``kubectl-instancetype``.

``kubectl instancetype <TAB>`` needs none of these: kubectl's own completion calls
``kubectl_complete-instancetype``. These scripts serve ``kubectl-instancetype <TAB>``; like cobra's, each
calls ``kubectl-instancetype __complete <words> <current word>`` and reads the same protocol (one
``value<TAB>description`` per line, a last ``:<directive>`` line: 2 = no space, 4 = no file completion).
The same texts are kept in the repository's ``completions/`` folder (a test keeps them equal).
"""

from __future__ import annotations

PROGRAM = "kubectl-instancetype"

BASH = r"""# bash completion for kubectl-instancetype                               -*- shell-script -*-
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
"""

ZSH = r"""#compdef kubectl-instancetype
# zsh completion for kubectl-instancetype
# Load it with:  source <(kubectl-instancetype completion zsh)   (or put it on $fpath as _kubectl-instancetype)
_kubectl_instancetype() {
    local -a lines completions
    local out directive line value desc
    out=$(kubectl-instancetype __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    [[ $directive == <-> ]] || directive=0
    for line in "${lines[@]}"; do
        [[ -z $line || $line == :* ]] && continue
        value=${line%%$'\t'*}
        desc=""
        [[ $line == *$'\t'* ]] && desc=${line#*$'\t'}
        completions+=("${value//:/\\:}${desc:+:$desc}")
    done
    if (( ${#completions} )); then
        if (( directive & 2 )); then
            _describe -t values 'values' completions -S ''
        else
            _describe -t values 'values' completions
        fi
    elif (( (directive & 4) == 0 )); then
        _files
    fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _kubectl_instancetype "$@"
else
    compdef _kubectl_instancetype kubectl-instancetype
fi
"""

FISH = r"""# fish completion for kubectl-instancetype
# Load it with:  kubectl-instancetype completion fish | source
# (or save it as ~/.config/fish/completions/kubectl-instancetype.fish)
function __kubectl_instancetype_complete
    set -l args (commandline -opc)
    set -e args[1]
    set -l out (kubectl-instancetype __complete $args (commandline -ct) 2>/dev/null)
    set -l directive 0
    for line in $out
        if string match -qr '^:[0-9]+$' -- $line
            set directive (string sub -s 2 -- $line)
        else if test -n "$line"
            echo $line
        end
    end
    if test (count $out) -le 1; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path (commandline -ct)
    end
end
complete -c kubectl-instancetype -f -a '(__kubectl_instancetype_complete)'
"""

POWERSHELL = r"""# PowerShell completion for kubectl-instancetype
# Load it with:  kubectl-instancetype completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName 'kubectl-instancetype' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '') { $words = @($words | Select-Object -SkipLast 1) }
    $out = & kubectl-instancetype __complete @words "$wordToComplete" 2>$null
    foreach ($line in $out) {
        if ($line -eq '' -or $line -match '^:[0-9]+$') { continue }
        $parts = $line -split "`t", 2
        $description = if ($parts.Count -gt 1 -and $parts[1] -ne '') { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $description)
    }
}
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH, "powershell": POWERSHELL}
# where each script lives in the repository's completions/ folder
FILE_NAMES = {
    "bash": "kubectl-instancetype.bash",
    "zsh": "_kubectl-instancetype",
    "fish": "kubectl-instancetype.fish",
    "powershell": "kubectl-instancetype.ps1",
}
