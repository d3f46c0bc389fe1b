"""The POSIX sh completion helper, generated from the completion table (``make completion-table``).

kubectl runs ``kubectl_complete-instancetype ARGS... WORD`` for every TAB after ``kubectl instancetype``. Any
CPython process costs more than kubectl's own completion takes (bench/README.md, "Start-up": an *empty* Python
script as the helper is already 1.29x of ``kubectl __complete get ""``, an empty /bin/sh script 1.03x), so the
helper kubectl runs is a shell script: :func:`render` writes it from :mod:`.completion_data`, the table generated
from the Typer app, so Typer stays the one definition of the CLI. It answers what :func:`.completion.candidates`
answers without the cluster or the file system (subcommands, flag names, fixed flag values, kind prefixes, the
file-completion directive), byte for byte, and hands every other line (live names, namespaces, contexts, words
it is not sure about) to the plugin's ``__complete`` entry: one implementation of every dynamic answer.
tests/unit/test_completion_shell.py compares both helpers on generated command lines under dash and bash --posix.

The script is POSIX sh (Linux's dash, macOS's bash 3.2 as /bin/sh): ``case`` and parameter expansion only, no
external command and no ``eval`` on the static path; it reads its arguments as data only (never as a pattern,
never expanded unquoted).
"""

from __future__ import annotations

from pathlib import Path
from shlex import quote  # one sh word, literal in a command and in a case pattern
from typing import Any

from ..usecases.completion_helper import PLUGIN_LINE, TITLE_LINE

SCRIPT_FILE = Path(__file__).with_name("completion_helper.sh")
# TITLE_LINE, the script's second line, and PLUGIN_LINE, where it finds the plugin: `completion install-helper`
# replaces them with its marker and the plugin's path (usecases/completion_helper.launcher_text).
# Characters a non-flag word may hold for the script to place it in the command path itself: Python's
# str.strip() in completion.Line (the word joined to the path) removes Unicode white space, which a shell
# cannot tell apart byte by byte; a word with any other character goes to the plugin.
# The paths whose flag listings come first in the script (the hot commands), the rest in order.
HOT_PATHS = ["", "list", "get", "describe", "create vm", "create"]
WORD_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@,+%~=-"


def _bracket(characters: set[str]) -> str:
    """The characters as the inside of a bracket expression, listed one by one (ranges follow the locale's
    collation in some shells), ``-`` last so that it is literal."""
    assert not characters & set("]!^[\\"), characters
    return "".join(sorted(characters - {"-"})) + ("-" if "-" in characters else "")


def _line(value: str, description: str) -> tuple[str, str]:
    """(value, the line completion.complete prints for it, without the newline)."""
    description = description.splitlines()[0] if description else ""
    return value, f"{value}\t{description}" if description else value


def _case(subject: str, arms: dict[str, list[str]], indent: str, default: str | None = None) -> list[str]:
    """``case SUBJECT in`` with one arm per code, its patterns joined (patterns are quoted literals)."""
    lines = [f"{indent}case {subject} in"]
    for code, patterns in arms.items():
        lines.append(f"{indent}{'|'.join(quote(p) for p in patterns)}) {code} ;;")
    if default is not None:
        lines.append(f"{indent}*) {default} ;;")
    lines.append(f"{indent}esac")
    return lines


def _by_path(per_path: dict[str, str], paths: list[str], *, only_these: bool = False) -> str:
    """Code choosing by ``$path`` among per-path codes (``:`` on the other paths; with ``only_these``, the code
    runs on none of the other paths, so one code for all is the code alone)."""
    codes: dict[str, list[str]] = {}
    for path in paths:
        if path in per_path:
            codes.setdefault(per_path[path], []).append(path)
    if len(codes) == 1 and (only_these or len(next(iter(codes.values()))) == len(paths)):
        return next(iter(codes))
    arms = " ".join(f"{'|'.join(quote(p) for p in patterns)}) {code} ;;" for code, patterns in codes.items())
    return f"case $path in {arms} esac"


def render(table: dict[str, Any]) -> str:
    """The helper's source text for ``table`` (completion_data.TABLE)."""
    from . import completion

    paths = sorted(table)
    values_seen: set[str] = set()

    # flagkind NAME: fk=v (takes a value), b (boolean) or "" (not a flag of $path)
    kinds: dict[str, dict[str, str]] = {}
    for path in paths:
        for name, spec in table[path]["flags"].items():
            kinds.setdefault(name, {})[path] = "fk=v" if spec["value"] else "fk=b"
    kind_arms: dict[str, list[str]] = {}
    for name in sorted(kinds):
        kind_arms.setdefault(_by_path(kinds[name], paths), []).append(name)

    # the fixed value lists (deduplicated), as functions printing the candidates that match
    lists: dict[tuple[str, ...], str] = {}
    list_functions: list[str] = []

    def value_list(values: list[str]) -> str:
        key = tuple(values)
        if key not in lists:
            lists[key] = f"v{len(lists)}"
            body = "; ".join(f"c {quote(value)}" for value in values)
            list_functions.append(f"{lists[key]}() {{ {body}; }}")
            values_seen.update(values)
        return lists[key]

    # values NAME: the answer for a value of flag NAME of $path
    actions: dict[str, dict[str, str]] = {}
    for path in paths:
        for name, spec in table[path]["flags"].items():
            if not spec["value"]:
                continue
            if spec.get("file"):
                action = "dir=0"  # the shell completes file names
            elif spec.get("live"):
                action = "delegate=1"  # live names: the plugin's
            elif spec.get("values"):
                action = value_list(spec["values"])
            else:
                action = ":"  # no candidates (--request-timeout, --name, ...)
            actions.setdefault(name, {})[path] = action
    action_arms: dict[str, list[str]] = {}
    for name in sorted(actions):
        # values() runs only for a flag that flagkind found on $path
        action_arms.setdefault(_by_path(actions[name], paths, only_these=True), []).append(name)

    # the flag listing of each path (long names first, as completion.candidates sorts them), one top-level block
    # a path, the hot commands first: the shell parses a script one command at a time, so a listing costs the
    # blocks before it and none after (the script exits in its own)
    flag_blocks: list[str] = []
    for path in sorted(paths, key=lambda p: (p not in HOT_PATHS, HOT_PATHS.index(p) if p in HOT_PATHS else 0, p)):
        flags = [(name, spec["help"]) for name, spec in table[path]["flags"].items()]
        calls = []
        for name, help_text in sorted(flags, key=lambda item: (not item[0].startswith("--"), item[0])):
            value, line = _line(name, help_text)
            values_seen.add(value)
            calls.append(f"\td {quote(value)} {quote(line)}")
        flag_blocks.append("\n".join([f"case $path in {quote(path)})", *calls, "\tanswer ;;", "esac"]))

    # the positional word: subcommands (and list's kinds), or the kind prefixes of an object argument
    positional: dict[str, list[str]] = {}
    for path in paths:
        entry = table[path]
        argument = entry.get("argument")
        if argument in completion.ARGUMENT_PREFIXES:
            prefixes = completion.ARGUMENT_PREFIXES[argument]
            code = "slash; " + "; ".join(f"c {quote(p)}" for p in prefixes) + "; dir=6"
            values_seen.update(prefixes)
        elif argument in ("types", "type-names"):
            code = "slash; " + "; ".join(f"c {quote(p)}" for p in completion.TYPE_PREFIXES) + "; dir=6"
            values_seen.update(completion.TYPE_PREFIXES)
            if argument == "type-names":
                code = "[ $npos = 0 ] || delegate=1; " + code  # TYPE NAME...: the kind word is read by the plugin
        else:
            assert argument in (None, "kinds"), argument
            found = sorted(entry["commands"].items())
            if argument == "kinds":
                found += [("instancetypes", "list instance types"), ("preferences", "list preferences")]
            code = "; ".join(f"d {quote(v)} {quote(line)}" for v, line in (_line(*item) for item in found)) or ":"
            values_seen.update(value for value, _ in found)
        if argument not in ("type-names",) and code != ":":
            code = f"[ $npos = 0 ] && {{ {code}; }}"
        positional.setdefault(code, []).append(path)

    assert all(ord(character) < 128 for value in values_seen for character in value), "candidates are ASCII"
    aliases = table[""].get("aliases", {})
    alias_code = "".join(
        f'\t\t\t[ -z "$path" ] && [ "$word" = {quote(alias)} ] && word={quote(target)}\n'
        for alias, target in sorted(aliases.items())
    )
    subcommand_case = "\n".join(
        _case("${path:+$path }$word", {"path=${path:+$path }$word; continue": [p for p in paths if p]}, "\t\t\t")
    )
    text = TEMPLATE.format(
        title=TITLE_LINE,
        plugin_line=PLUGIN_LINE,
        word_characters=_bracket(set(WORD_CHARACTERS)),
        value_characters=_bracket({c for value in values_seen for c in value}),
        aliases=alias_code,
        subcommands=subcommand_case,
        flagkind="\n".join(_case("$1", kind_arms, "\t")),
        values="\n".join(_case("$1", action_arms, "\t\t")),
        lists="\n".join("\t" + function for function in list_functions),
        flags="\n".join(flag_blocks),
        positional="\n".join(_case("$path", positional, "\t")),
    )
    return text


TEMPLATE = """\
#!/bin/sh
{title}
# Generated by `make completion-table` (kubectl_instancetype/cli/completion_shell.py) from the table of the
# Typer app (cli/completion_data.py): do not edit. kubectl runs it as `kubectl_complete-instancetype ARGS... WORD`
# and reads one candidate a line (VALUE<TAB>DESCRIPTION) and a last `:DIRECTIVE` line (cobra's protocol).
# It answers the static completions (subcommands, flag names, fixed flag values, kind prefixes) itself, exactly
# as the Python helper (cli/completion.py) does, and hands every other line (live names, namespaces, contexts,
# words it is not sure about) to the plugin's `__complete` entry with the same arguments: one implementation of
# every dynamic answer. POSIX sh; no external command, no eval, no unquoted expansion on the static path.
# The shell parses a script one command at a time as it runs it: each answer exits as soon as it is known, so
# the parts after it (flag names and values, then the flag listings, the hot commands' first) cost it nothing.

nl='
'
path='' npos=0 pending='' delegate='' out='' dir=4 lead='' pfx='' flags=''

# The plugin that answers the rest: the kubectl-instancetype next to this script, the same install and version
# as this table (pip, pipx and uv put both into one bin folder; kubectl runs this script by the path it found on
# PATH, which is $0). Without a folder in $0, the kubectl-instancetype on PATH, as kubectl would run it.
{plugin_line}

# d VALUE LINE / c VALUE: add LINE (c: $lead$VALUE) when VALUE starts with $pfx
d() {{ case $1 in "$pfx"*) out=$out$2$nl ;; esac; }}
c() {{ case $1 in "$pfx"*) out=$out$lead$1$nl ;; esac; }}
# slash: a kind/NAME word is a live name: the plugin's
slash() {{ case $pfx in */*) delegate=1 ;; esac; }}
# guard: a word with a character no candidate has matches none (and is never used as a pattern at all)
guard() {{ case $pfx in *[!{value_characters}]*) c() {{ :; }}; d() {{ :; }} ;; esac; }}

# answer: the candidates found and the directive, or the plugin's answer for the line
answer() {{
	if [ -n "$delegate" ]; then
		# the plugin gone (uninstalled): answer nothing, silently (kubectl would show its error)
		case $plugin in */*) [ -x "$plugin" ] || exit 0 ;; *) command -v "$plugin" >/dev/null 2>&1 || exit 0 ;; esac
		exec "$plugin" __complete "$@"
	fi
	printf '%s:%s\\n' "$out" "$dir"
	exit 0
}}

# The line before the word being completed, as completion.Line reads it: the command path, whether a
# positional word came, and the flag whose value the word is (flagkind is defined below: only a line with a
# flag word calls it). The parameters are this function's own, so "$@" stays intact for the plugin.
line() {{
	while [ $# -gt 1 ]; do
		word=$1
		shift
		case $word in
		-?*)
			flagkind "${{word%%=*}}"
			case $fk$word in
			v*=*) ;;
			v*)
				if [ $# -gt 1 ]; then shift; else pending=${{word%%=*}}; fi
				;;
			esac
			continue
			;;
		*[!{word_characters}]*)
			delegate=1
			return
			;;
		esac
		if [ $npos = 0 ]; then
{aliases}{subcommands}
		fi
		[ -z "$word" ] || npos=1
	done
	word=$1
}}

# positional: the candidates for a positional word: subcommands, list's kinds, an argument's kind prefixes
positional() {{
	guard
{positional}
	answer "$@"
}}

# No flag word on the line: the command path, and a positional word unless the word being completed is a flag.
for word in "$@"; do case $word in -?*) flags=1 ;; esac; done
if [ -z "$flags" ]; then
	line "$@"
	pfx=$word
	[ -n "$delegate" ] && answer "$@"
	case $pfx in -*) ;; *) positional "$@" ;; esac
fi

# flagkind NAME: fk=v when NAME is a flag of $path that takes a value, fk=b a boolean one, fk= not a flag
flagkind() {{
	fk=
{flagkind}
}}

path='' npos=0
line "$@"
pfx=$word
[ -n "$delegate" ] && answer "$@"
if [ -z "$pending" ]; then
	case $pfx in
	-*=*) ;;
	-*) flags=listing ;;
	*) positional "$@" ;;
	esac
fi

if [ "$flags" != listing ]; then
	# values NAME: the candidates for a value of flag NAME of $path
	values() {{
{values}
	}}
{lists}
	if [ -n "$pending" ]; then
		guard
		values "$pending"
	else
		lead=${{pfx%%=*}}
		pfx=${{pfx#*=}}
		guard
		flagkind "$lead"
		if [ "$fk" = v ]; then
			lead=$lead=
			values "${{lead%=}}"
		fi
	fi
	answer "$@"
fi

# A flag listing: the flags of $path, long names first
guard
{flags}
answer "$@"
"""


def write_script() -> None:
    """Regenerate :data:`SCRIPT_FILE` from :mod:`.completion_data`."""
    from .completion_data import TABLE

    SCRIPT_FILE.write_text(render(TABLE))
    SCRIPT_FILE.chmod(0o755)


if __name__ == "__main__":
    write_script()
