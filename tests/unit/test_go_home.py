"""golang/ is the one home of Go and Kubernetes library behaviour (DEVELOPERS.md, "Layout"), enforced.

Two checks, each with a failure message that says what was found, where, and what to call instead:

- outside golang/, no module writes a Go behaviour again: :data:`BEHAVIOURS` names each behaviour that has been
  copied before, its one home in golang/, and the code patterns that betray a copy (read from the code only:
  comments and docstrings may name the behaviour);
- inside golang/, no public function name is defined by two modules (two ``go_parse_int`` with different
  signatures were two homes of ParseInt).

Both are planted with violations below, so that they are seen to fail.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_instancetype"
GOLANG = PACKAGE / "golang"


@dataclass(frozen=True)
class Behaviour:
    what: str  # the Go behaviour, as a newcomer would look it up
    home: str  # what to call instead
    patterns: tuple[str, ...]  # regular expressions over a line of code (comments and docstrings left out)


BEHAVIOURS = (
    Behaviour(
        "Go's file-error text (io/fs PathError 'open PATH: no such file or directory', syscall.Errno)",
        "golang.goos.path_error(op, path, exc), read_file_error(path, exc) or errno_text(strerror)",
        (
            r"""f["'](?:open|read|stat|lstat|write|remove|mkdir) \{""",  # f"open {path}: ..."
            r"""["'](?:open|read|stat|lstat|write) ["']\s*\+""",  # "open " + path
            r"""["'][^"']*(?:no such file or directory|permission denied|is a directory)""",
            r"""strerror\S*\[:1\]\.lower\(\)""",  # Errno's lowercased first letter
            r"""^\s*def _?(?:go_)?(?:errno_text|os_error|open_error|path_error)\(""",  # a wrapper of its own
        ),
    ),
    Behaviour(
        "net/url URL.Redacted (a URL's password shown as xxxxx)",
        "golang.neturl.redacted(url) or URL.redacted()",
        (r"xxxxx",),
    ),
    Behaviour(
        "strconv.ParseBool / ParseInt / ParseUint / ParseFloat",
        "golang.strconv.go_parse_bool, go_parse_int, go_parse_uint, go_parse_float (or go_parse_int_or_uint; "
        "pflag_int for a flag's message)",
        (
            r"""["']1["'],\s*["']t["'],\s*["']T["']""",  # ParseBool's spellings of true
            r"""["']0[xX]["']\s*[:,]\s*(?:16|["']0[oObB]["'])""",  # base prefixes read by hand
            r"""^\s*def \w*parse_(?:u?int|bool|float)\b""",
            r"""["'][^"']*strconv\.Parse\w+: parsing""",  # NumError's text written by hand
        ),
    ),
    Behaviour(
        "strconv.Quote (Go's %q)",
        "golang.strconv.go_quote(text), imported directly (no wrapper function)",
        (
            r"""(?:^|[(\s,=])'"'\s*\+""",  # '"' + text
            r"""\+\s*'"'(?:$|[)\s,])""",  # text + '"'
            r"""^\s*def _?(?:go_)?quote\w*\(""",  # a wrapper of its own
        ),
    ),
    Behaviour(
        "cobra's suggestions (Levenshtein distance, SuggestionsFor: 'did you mean')",
        "golang.cobra.did_you_mean(typed, names), the one suggestion policy (cobra's rule, nearest first)",
        (
            r"""get_close_matches|SequenceMatcher""",
            r"""^\s*def \w*(?:levenshtein|edit_distance|closest)\w*\(""",
            r"""\bmin\(.*\[\w+ - 1\].*\+ 1|\bmin\(.*\+ 1.*\[\w+ - 1\]""",  # the distance table's step
        ),
    ),
    Behaviour(
        "fmt.Sprint / Sprintf / strconv.FormatFloat",
        "golang.fmt.sprint, sprint_value, sprintf, format_float",
        (r"""^\s*def _?(?:go_)?(?:sprint\w*|format_float|format_g)\(""",),
    ),
)


def code_lines(source: str) -> list[tuple[int, str]]:
    """``(line number, text)`` of each line that holds code, with comments removed and docstrings left out."""
    tree = ast.parse(source)
    docstring_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            constant = first.value if isinstance(first, ast.Expr) else None
            if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                docstring_lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines = source.splitlines()
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
    found = []
    for number, text in enumerate(lines, 1):
        if number in docstring_lines:
            continue
        if number in comments:
            text = text[: comments[number]]
        if text.strip():
            found.append((number, text))
    return found


def copies_of_go_behaviour(path: Path, shown: str) -> list[str]:
    """One message per line of ``path`` (shown as ``shown``) that writes a behaviour of :data:`BEHAVIOURS`."""
    problems = []
    for number, text in code_lines(path.read_text()):
        if (shown, text.strip()) in ALLOWED:
            continue
        for behaviour in BEHAVIOURS:
            hit = next((pattern for pattern in behaviour.patterns if re.search(pattern, text)), None)
            if hit is not None:
                problems.append(
                    f"{shown}:{number}: writes {behaviour.what} outside golang/ ({text.strip()!r}); "
                    f"call {behaviour.home} instead"
                )
                break
    return problems


# Copies left on purpose, each with its reason: (file, the code on the line). None is left.
ALLOWED: dict[tuple[str, str], str] = {}


def _outside_golang() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if GOLANG not in path.parents]


def test_go_behaviour_is_written_only_in_golang() -> None:
    problems = []
    for path in _outside_golang():
        problems += copies_of_go_behaviour(path, str(path.relative_to(PACKAGE.parent)))
    assert not problems, "Go behaviour has one home, golang/ (DEVELOPERS.md):\n" + "\n".join(problems)


# The same name for the same-named function of different Go packages, each ported once:
SAME_NAME_IN_GO_PACKAGES = {
    # client-go util/jsonpath.Parse, apimachinery labels.Parse, resource.ParseQuantity
    "parse": {"golang/jsonpath.py", "golang/labels.py", "golang/quantity.py"},
}


def homes_defined_twice(modules: dict[str, str]) -> list[str]:
    """``modules``: module name -> source. One message per public module-level function that two modules define."""
    defined: dict[str, list[str]] = {}
    for module, source in sorted(modules.items()):
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                if module in SAME_NAME_IN_GO_PACKAGES.get(node.name, ()):
                    continue
                defined.setdefault(node.name, []).append(module)
    return [
        f"{name} is defined in {' and '.join(where)}: a Go function has one home and one signature in golang/; "
        f"keep one and import it in the others"
        for name, where in sorted(defined.items())
        if len(where) > 1
    ]


def test_each_go_function_has_one_home_in_golang() -> None:
    modules = {f"golang/{path.relative_to(GOLANG)}": path.read_text() for path in sorted(GOLANG.rglob("*.py"))}
    problems = homes_defined_twice(modules)
    assert not problems, "\n".join(problems)


def test_a_planted_copy_fails_with_what_where_and_what_to_call(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""A module that mentions open PATH: no such file or directory and xxxxx in its docstring only."""\n'
        "import difflib\n"
        "\n"
        "def load(path):\n"
        "    try:\n"
        "        return open(path).read()\n"
        "    except OSError as exc:\n"
        '        raise ValueError(f"open {path}: {exc.strerror[:1].lower()}")  # Go\'s words\n'
        "\n"
        "def hint(name, names):\n"
        "    return difflib.get_close_matches(name, names)\n"
        "\n"
        "def show(url):\n"
        '    return url.replace(password, "xxxxx")\n'
        "\n"
        "def wrap(text):\n"
        "    return '\"' + text + '\"'\n"
        "\n"
        "def ready(text):\n"
        '    return text in ("1", "t", "T", "TRUE", "true", "True")\n'
        "\n"
        "def edit(a, b):\n"
        "    # a comment about min(previous[j - 1] + 1) is no copy\n"
        "    return min(previous[j] + 1, current[j - 1] + 1)\n"
    )
    problems = copies_of_go_behaviour(planted, "kubectl_instancetype/usecases/planted.py")
    assert [problem.split(" outside golang/")[0] for problem in problems] == [
        "kubectl_instancetype/usecases/planted.py:8: writes Go's file-error text (io/fs PathError 'open PATH: no such "
        "file or directory', syscall.Errno)",
        "kubectl_instancetype/usecases/planted.py:11: writes cobra's suggestions (Levenshtein distance, "
        "SuggestionsFor: 'did you mean')",
        "kubectl_instancetype/usecases/planted.py:14: writes net/url URL.Redacted (a URL's password shown as xxxxx)",
        "kubectl_instancetype/usecases/planted.py:17: writes strconv.Quote (Go's %q)",
        "kubectl_instancetype/usecases/planted.py:20: writes strconv.ParseBool / ParseInt / ParseUint / ParseFloat",
        "kubectl_instancetype/usecases/planted.py:24: writes cobra's suggestions (Levenshtein distance, "
        "SuggestionsFor: 'did you mean')",
    ]
    # the message says where, what was found and what to call
    assert problems[0] == (
        "kubectl_instancetype/usecases/planted.py:8: writes Go's file-error text (io/fs PathError 'open PATH: no "
        "such file or directory', syscall.Errno) outside golang/ "
        """('raise ValueError(f"open {path}: {exc.strerror[:1].lower()}")'); call golang.goos.path_error(op, path, """
        "exc), read_file_error(path, exc) or errno_text(strerror) instead"
    )


def test_a_planted_second_home_in_golang_fails() -> None:
    problems = homes_defined_twice(
        {
            "golang/strconv.py": "def go_parse_int(text, *, base=0, bits=64): ...\ndef _private(): ...\n",
            "golang/yamltojson.py": "def go_parse_int(text): ...\ndef _private(): ...\n",
        }
    )
    assert problems == [
        "go_parse_int is defined in golang/strconv.py and golang/yamltojson.py: a Go function has one home and one "
        "signature in golang/; keep one and import it in the others"
    ]
