# fish completion for kubectl-instancetype
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
