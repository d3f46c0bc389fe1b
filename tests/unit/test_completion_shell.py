"""The POSIX sh completion helper (cli/completion_helper.sh) answers as the Python helper does, or hands the line to it.

The generated script runs for real under every POSIX shell found here (dash, bash --posix: /bin/sh on Debian and
macOS), next to a stand-in ``kubectl-instancetype`` that records what it was asked (NUL-separated). A static
answer must be the Python helper's bytes and exit status; a line the script does not answer must reach the
plugin's ``__complete`` entry with exactly the same arguments (the plugin answers it with cli/completion.py, the
one implementation). The table-driven test asks every command path for its subcommands, flags and every value
flag's values (the Python side in-process: the code ``kubectl_complete-instancetype`` runs); the property test
generates command lines from the table with odd words and compares both helpers as subprocesses.
"""

from __future__ import annotations

import io
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_instancetype.cli import completion, completion_shell
from kubectl_instancetype.cli.completion_data import TABLE
from kubectl_instancetype.env import Environment

pytestmark = pytest.mark.posix("POSIX shells run the generated #!/bin/sh helper")

SHELLS = {"dash": ["dash"], "bash --posix": ["bash", "--posix"]}
FOUND = {name: [shutil.which(argv[0]) or "", *argv[1:]] for name, argv in SHELLS.items() if shutil.which(argv[0])}
DELEGATED = b"DELEGATED\0"
# the recording stand-in for the plugin: what the helper asked it, NUL-separated
RECORDER = "#!/bin/sh\nprintf 'DELEGATED\\0'\nprintf '%s\\0' \"$@\"\n"
# PATH leads nowhere: the static path runs no external command (each would fail, "not found" on stderr)
ENVIRON = {"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent/kubeconfig", "LC_ALL": "C.UTF-8", "PATH": "/nonexistent"}


def test_the_generated_helper_is_current_and_executable() -> None:
    assert completion_shell.SCRIPT_FILE.read_text() == completion_shell.render(TABLE), "run `make completion-table`"
    assert completion_shell.SCRIPT_FILE.stat().st_mode & 0o111
    assert completion_shell.CMD_FILE.read_bytes() == completion_shell.CMD_TEXT.encode(), "run `make completion-table`"


def test_the_wheel_ships_both_as_scripts_and_no_python_helper() -> None:
    # pip, pipx and uv tool install a wheel's .data/scripts beside the plugin (tests/e2e/test_pip_install.py)
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-scripts"] == {
        "kubectl_instancetype/cli/completion_helper.sh": "kubectl_complete-instancetype",
        "kubectl_instancetype/cli/completion_helper.cmd": "kubectl_complete-instancetype.cmd",
    }
    assert "kubectl_complete-instancetype" not in project["project"]["scripts"]


@pytest.fixture(scope="module")
def helper(tmp_path_factory) -> Path:
    """The generated helper in a bin folder beside the recording plugin."""
    folder = tmp_path_factory.mktemp("bin")
    script = folder / "kubectl_complete-instancetype"
    shutil.copy(completion_shell.SCRIPT_FILE, script)
    plugin = folder / "kubectl-instancetype"
    plugin.write_text(RECORDER)
    plugin.chmod(0o755)
    return script


def _python(args: list[str]) -> bytes:
    out = io.StringIO()
    assert completion.complete(args, Environment(stdout=out, stderr=io.StringIO(), environ=dict(ENVIRON))) == 0
    return out.getvalue().encode()


def _cases() -> list[tuple[list[str], bool]]:
    """Every command path asked for its subcommands and flags, every value flag for its values (pending and
    --flag=), every flag followed by a word: (argv, whether the answer is live, so the plugin's)."""
    cases: list[tuple[list[str], bool]] = []
    seen: set[str] = set()  # a flag asked once per shape of path (argument, subcommands) and spec: ~1,000 cases
    for path, entry in TABLE.items():
        words = path.split()
        # get/describe TYPE NAME...: a positional word before is a kind word the plugin reads
        kind_then_names = entry.get("argument") == "type-names"
        cases += [([*words, w], False) for w in ("", "-", "--", "x", "v", "--h", "-o=", "=")]
        cases.append(([*words, "x", ""], kind_then_names))
        for name, spec in entry["flags"].items():
            shape = repr((name, spec.get("value"), spec.get("values"), spec.get("live"), entry.get("argument")))
            shape += repr(bool(entry["commands"]))
            if shape in seen:
                continue
            seen.add(shape)
            live = bool(spec.get("live"))
            cases.append(([*words, name, ""], live and spec["value"]))
            cases.append(([*words, name, "-", ""], kind_then_names and not spec["value"]))
            if spec["value"]:
                cases.append(([*words, f"{name}="], live))
                for value in spec.get("values", [])[:3]:
                    cases.append(([*words, name, value[:1]], False))
                    cases.append(([*words, f"{name}={value[:2]}"], False))
    return cases


CASES = _cases()


@pytest.mark.parametrize("shell", sorted(FOUND))
def test_every_path_flag_and_value_answers_as_the_python_helper(shell: str, helper: Path) -> None:
    # one shell process runs the helper for every case, each in a subshell (a fork, no exec: about 1,000 cases in
    # a second or two); the driver sits beside the helper, so the helper's $0 (the driver's) finds the recorder
    # (bash, about three times slower to start a script, takes every third case; the property test runs both)
    cases = CASES if shell == "dash" else CASES[::3]
    driver = helper.parent / f"driver-{shell.replace(' ', '-')}.sh"
    lines = [
        f"set -- {' '.join(shlex.quote(word) for word in argv)}; (. {shlex.quote(str(helper))})"
        "; printf '\\036%s\\036' $?"
        for argv, _ in cases
    ]
    driver.write_text("\n".join(lines) + "\n")
    result = subprocess.run([*FOUND[shell], str(driver)], capture_output=True, env=ENVIRON, timeout=120)
    assert result.stderr == b""
    answers = result.stdout.split(b"\036")
    assert len(answers) == 2 * len(cases) + 1
    for index, (argv, live) in enumerate(cases):
        answer, status = answers[2 * index], answers[2 * index + 1]
        assert status == b"0", argv
        if live:
            assert answer == DELEGATED + b"".join(w.encode() + b"\0" for w in ["__complete", *argv]), argv
        else:
            assert answer == _python(argv), argv


# words with what a shell could misread: spaces, quotes, globs, backslashes, $, newlines, non-ASCII, =, leading -
ODD = st.text(
    alphabet=st.sampled_from(list(" \t\n'\"*?[]\\$`~=-/:.,aZ0é\u00a0\u2028\x1c!{}|&;<>()#%")), max_size=6
) | st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=5)


@st.composite
def command_lines(draw) -> list[str]:
    """argv as kubectl passes it: a command path from the table, flags with and without values, positional and
    odd words, and the word being completed (a prefix of something the table knows, or junk)."""
    path = draw(st.sampled_from(sorted(TABLE)))
    words = path.split()
    if words and words[0] == "list" and draw(st.booleans()):
        words[0] = "ls"
    entry = TABLE[path]
    flags = sorted(entry["flags"])
    argv: list[str] = []
    if draw(st.booleans()):  # kubectl's global flags before the command
        argv += draw(st.sampled_from([["-n", "demo"], ["--context=x"], ["-ndemo"], ["--request-timeout", "1s"]]))
    argv += words
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["flag", "flag=", "word", "odd", "dashes"]))
        if kind == "flag" and flags:
            name = draw(st.sampled_from(flags))
            argv.append(name)
            if entry["flags"][name]["value"] and draw(st.booleans()):
                argv.append(draw(st.sampled_from(entry["flags"][name].get("values") or ["x"]) | ODD))
        elif kind == "flag=" and flags:
            argv.append(draw(st.sampled_from(flags)) + "=" + draw(ODD))
        elif kind == "word":
            argv.append(draw(st.sampled_from(["vmcf", "vm/x", "u1.small", "x", "instancetypes", *entry["commands"]])))
        elif kind == "dashes":
            argv.append(draw(st.sampled_from(["--", "-", "", "-x", "--x=y", "-A"])))
        else:
            argv.append(draw(ODD))
    known = [*entry["commands"], *flags, *(v for spec in entry["flags"].values() for v in spec.get("values", []))]
    known += [f"{name}=" for name in flags] + ["vm/", "vmcf/", "instancetypes"]
    target = draw(st.sampled_from(known))
    incomplete = draw(st.one_of(st.just(""), st.builds(lambda n: target[:n], st.integers(0, len(target))), ODD))
    return [*argv, incomplete]


@pytest.mark.skipif(not FOUND, reason="no POSIX shell (dash, bash) found")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(argv=command_lines())
def test_generated_command_lines_answer_as_the_python_helper(argv: list[str], helper: Path) -> None:
    python = subprocess.run(
        [sys.executable, "-c", "import sys; from kubectl_instancetype.cli.main import console; sys.exit(console())",
         "__complete", *argv],
        capture_output=True, env=dict(ENVIRON, PYTHONPATH=str(Path(__file__).resolve().parents[2])), timeout=30,
    )  # fmt: skip
    assert python.stderr == b""
    for shell in FOUND.values():
        result = subprocess.run([*shell, str(helper), *argv], capture_output=True, env=ENVIRON, timeout=10)
        assert result.stderr == b""
        if result.stdout.startswith(DELEGATED):
            # the plugin's __complete answers it, with the Python helper's code: the arguments must arrive intact
            assert result.stdout == DELEGATED + b"".join(word.encode() + b"\0" for word in ["__complete", *argv])
        else:
            assert (result.returncode, result.stdout) == (python.returncode, python.stdout)


@pytest.mark.parametrize("shell", sorted(FOUND))
@pytest.mark.parametrize(
    "argv",
    [
        ["-n", ""],  # namespaces
        ["list", "--context", "k"],  # kubeconfig contexts
        ["--cluster="],  # kubeconfig clusters
        ["create", "vm", "--instancetype", ""],  # live names and kind prefixes
        ["create", "vm", "--preference=vmp/"],
        ["create", "vm", "--volume-pvc", "src:"],
        ["get", "vmcf", ""],  # a kind word, then its names
        ["describe", "vmcf/u1"],
        ["infer", "pvc/d"],
        ["expand", "vm/my vm"],
        ["usage", "vmf/"],
        ["list", "a b", "--min-c"],  # a word the shell cannot place in the command path the way Python would
        ["list", "*", ""],
        ["list\t", ""],
    ],
)
def test_live_and_unsure_lines_are_handed_to_the_plugin_intact(shell: str, argv: list[str], helper: Path) -> None:
    result = subprocess.run([*FOUND[shell], str(helper), *argv], capture_output=True, env=ENVIRON, timeout=10)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == DELEGATED + b"".join(word.encode() + b"\0" for word in ["__complete", *argv])


def test_the_real_plugin_answers_what_the_helper_hands_it(tmp_path: Path) -> None:
    # the generated helper next to the development install's plugin: a live line ends in the Python answer
    plugin = Path(sys.executable).parent / "kubectl-instancetype"
    if not plugin.exists():
        pytest.skip("no kubectl-instancetype console script beside this interpreter")
    script = tmp_path / "kubectl_complete-instancetype"
    shutil.copy(completion_shell.SCRIPT_FILE, script)
    (tmp_path / "kubectl-instancetype").symlink_to(plugin)
    for argv in (["create", "vm", "--preference", ""], ["-n", ""], ["get", "vmcf", "u"]):
        result = subprocess.run(["/bin/sh", str(script), *argv], capture_output=True, env=ENVIRON, timeout=60)
        assert (result.returncode, result.stdout, result.stderr) == (0, _python(argv), b""), argv


def test_a_missing_plugin_answers_nothing_silently(tmp_path: Path) -> None:
    script = tmp_path / "kubectl_complete-instancetype"
    shutil.copy(completion_shell.SCRIPT_FILE, script)
    result = subprocess.run(["/bin/sh", str(script), "-n", ""], capture_output=True, env=ENVIRON, timeout=10)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    # the static answers need no plugin at all
    result = subprocess.run(["/bin/sh", str(script), "list", "--min-c"], capture_output=True, env=ENVIRON, timeout=10)
    assert result.stdout == _python(["list", "--min-c"])
