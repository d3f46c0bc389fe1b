# PowerShell completion for kubectl-instancetype
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
