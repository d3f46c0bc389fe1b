"""Shell completion: the generated table equals the app, static candidates, the protocol, the bash script."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype.cli import completion, completion_spec
from kubectl_instancetype.cli.commands import COMMANDS
from kubectl_instancetype.cli.completion_scripts import FILE_NAMES, SCRIPTS
from kubectl_instancetype.env import Environment

REPO = Path(__file__).resolve().parents[2]


def test_the_generated_table_is_what_the_app_declares() -> None:
    assert completion_spec.DATA_FILE.read_text() == completion_spec.render_table(completion_spec.build_table()), (
        "run `make completion-table`"
    )


TEMPLATES = {
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
    "jsonpath",
    "jsonpath-as-json",
    "jsonpath-file",
    "custom-columns",
    "custom-columns-file",
}


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_the_completions_folder_holds_the_scripts(shell: str) -> None:
    assert (REPO / "completions" / FILE_NAMES[shell]).read_text() == SCRIPTS[shell]


@pytest.mark.parametrize(
    "words,expected",
    [
        ([""], set(COMMANDS)),
        (["v"], {"version"}),
        (["create", ""], {"vm", "instancetype", "preference"}),
        (["list", "--min-"], {"--min-cpu", "--min-memory"}),
        (["ls", "--min-c"], {"--min-cpu"}),
        (["list", "p"], {"preferences"}),
        (["list", "--sort-by", ""], {"name", "cpu", "memory"}),
        (["list", "--sort-by=m"], {"--sort-by=memory"}),
        (["list", "-o", ""], {"wide", "yaml", "json", "kyaml", "name", *TEMPLATES}),
        (["create", "vm", "-o", ""], {"yaml", "json", "name", *TEMPLATES}),
        (["usage", "-o", "j"], {"json", "jsonpath", "jsonpath-as-json", "jsonpath-file"}),
        (["create", "vm", "--run-strategy", "R"], {"RerunOnFailure"}),
        (["create", "vm", "--name", "x", "--run-strategy", "H"], {"Halted"}),
        (["list", "--class", "c"], {"compute.exclusive"}),
        (["list", "--os-type", ""], {"linux", "windows", "legacy"}),
        (["list", "--scope", ""], {"cluster", "namespaced", "all"}),
        (["create", "vm", "--instancetype", "virtualmachinei"], {"virtualmachineinstancetype/"}),
        (["create", "vm", "--preference", "virtualmachinec"], {"virtualmachineclusterpreference/"}),
        (["create", "vm", "--volume-pvc", ""], {"src:"}),
        (["create", "instancetype", "--iothreadspolicy", ""], {"auto", "shared"}),
        (["version", "--cl"], {"--client", "--cluster"}),
        (["usage", "virtualmachinec"], {"virtualmachineclusterinstancetype/", "virtualmachineclusterpreference/"}),
        (["lint", "virtualmachinep"], {"virtualmachinepreference/"}),
        (["adopt", "v"], {"vm/"}),
        (["revisions", ""], {"vm/"}),
        (["switch", ""], {"vm/"}),
        (["expand", "d"], set()),
        (["label", ""], {"pvc/", "dv/", "datasource/", "das/"}),
        (["infer", "d"], {"dv/", "datasource/", "das/"}),
        (
            ["switch", "vm/x", "--"],
            {
                "--instancetype",
                "--preference",
                "--refresh",
                "--plan",
                "--dry-run",
                "--wait",
                "--timeout",
                "--output",
                "--skip-checks",
                "--kubeconfig",
                "--context",
                "--cluster",
                "--namespace",
                "--request-timeout",
                "--v",
                "--as",
                "--as-group",
                "--as-uid",
                "--help",
            },
        ),
        (["no-such-command", "x"], set()),
    ],
)
def test_static_candidates(words: list[str], expected: set[str]) -> None:
    found, _ = completion.candidates(words[:-1], words[-1])
    assert {value for value, _ in found} == expected


def test_directives() -> None:
    assert completion.candidates(["list"], "")[1] == completion.NO_FILE_COMPLETION
    assert completion.candidates(["list", "--kubeconfig"], "")[1] == completion.DEFAULT  # file names
    prefixes = completion.candidates(["create", "vm", "--instancetype"], "virtualmachinei")[1]
    assert prefixes == completion.NO_FILE_COMPLETION | completion.NO_SPACE


def test_live_names_are_asked_with_the_line_and_prefix() -> None:
    asked = []

    def live(source, line, prefix):
        asked.append((source, line.value("--context"), line.value("-n", "--namespace"), prefix))
        return [("u1.medium", "1 vCPU, 4Gi")]

    found, _ = completion.candidates(
        ["create", "vm", "--context", "kind", "-n", "demo", "--instancetype"], "virtualmachineinstancetype/u1", live
    )
    assert found == [("virtualmachineinstancetype/u1.medium", "1 vCPU, 4Gi")]
    assert asked == [("instancetypes:namespaced", "kind", "demo", "u1")]
    asked.clear()
    found, _ = completion.candidates(["usage", "-n", "demo"], "virtualmachineclusterinstancetype/u1", live)
    assert found == [("virtualmachineclusterinstancetype/u1.medium", "1 vCPU, 4Gi")]
    assert asked == [("instancetypes:cluster", None, "demo", "u1")]


def test_global_flags_before_the_command_complete_as_after_it() -> None:
    """cobra's persistent flags: ``kubectl instancetype -n demo list <TAB>`` is ``list -n demo <TAB>``."""
    asked = []

    def live(source, line, prefix):
        asked.append((source, line.value("--context"), line.value("-n", "--namespace"), line.value("--as"), prefix))
        return [("vm-a", "")]

    assert completion.candidates(["-n", "demo", "list"], "", live)[0] == completion.candidates(["list"], "", live)[0]
    assert {value for value, _ in completion.candidates(["-n", "demo"], "", live)[0]} >= {"list", "switch", "create"}
    found, directive = completion.candidates(["--context", "kind", "--as=bob", "-ndemo", "switch"], "vm/", live)
    assert (found, directive) == ([("vm/vm-a", "")], completion.NO_FILE_COMPLETION)
    assert asked == [("virtualmachines", "kind", "demo", "bob", "")]
    asked.clear()
    # the value of a global flag before the command: namespaces, contexts; a file for --kubeconfig
    assert completion.candidates(["-n"], "d", live)[0] == [("vm-a", "")]
    assert asked == [("namespaces", None, None, None, "d")]
    assert completion.candidates(["--kubeconfig"], "")[1] == completion.DEFAULT
    flags = {value for value, _ in completion.candidates([], "--", live)[0]}
    assert {"--context", "--namespace", "--kubeconfig", "--request-timeout", "--as", "--as-group", "--as-uid"} <= flags


def test_every_spelling_of_a_kind_is_known_to_completion() -> None:
    from kubectl_instancetype.instancetype.kinds import ALL, GROUP

    for kind in ALL:
        for word in kind.spellings():
            assert completion.kind_word(word) == kind.singular, word
            assert completion.kind_word(f"{word.upper()}.{GROUP}") == kind.singular, word


def test_short_kind_names_complete_names_of_their_scope() -> None:
    asked = []

    def live(source, line, prefix):
        asked.append((source, prefix))
        return [(f"{prefix}x", "")]

    assert completion.candidates(["create", "vm", "--instancetype"], "vmf/u1", live)[0] == [("vmf/u1x", "")]
    assert completion.candidates(["switch", "vm/a", "--preference"], "vmcp/f", live)[0] == [("vmcp/fx", "")]
    assert completion.candidates(["usage"], "vmp/w", live)[0] == [("vmp/wx", "")]
    assert completion.candidates(["create", "vm", "--instancetype"], "vmp/u1", live)[0] == []  # not an instance type
    # get and describe: TYPE/NAME at every argument, or a kind word and then its names
    assert completion.candidates(["get", "vmcf/u1.small"], "vmp/f", live)[0] == [("vmp/fx", "")]
    assert completion.candidates(["describe", "VirtualMachineClusterPreferences"], "w", live)[0] == [("wx", "")]
    assert {value for value, _ in completion.candidates(["get"], "vm")[0]} == {"vmcf/", "vmf/", "vmcp/", "vmp/"}
    assert asked == [
        ("instancetypes:namespaced", "u1"),
        ("preferences:cluster", "f"),
        ("preferences:namespaced", "w"),
        ("preferences:namespaced", "f"),
        ("preferences:cluster", "w"),
    ]


def test_protocol_output_and_silence_on_failure() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert completion.complete(["list", "--min-c"], Environment(stdout=out, stderr=err, environ={})) == 0
    assert out.getvalue().splitlines() == ["--min-cpu\tAt least N vCPUs (evaluated on the spec).", ":4"]
    out = io.StringIO()
    # live names from a kubeconfig that does not exist: none, silently, exit 0; the static kind prefixes stay
    environ = {"KUBECONFIG": "/nonexistent/kubeconfig", "HOME": "/nonexistent"}
    assert (
        completion.complete(["create", "vm", "--preference", ""], Environment(stdout=out, stderr=err, environ=environ))
        == 0
    )
    assert out.getvalue().splitlines() == [
        "virtualmachineclusterpreference/\tkind prefix",
        "virtualmachinepreference/\tkind prefix",
        "vmcp/\tkind prefix",
        "vmp/\tkind prefix",
        ":6",
    ]
    assert err.getvalue() == ""


def test_completion_never_imports_typer() -> None:
    code = (
        "import sys, io; from kubectl_instancetype.cli.completion import complete;"
        "from kubectl_instancetype.env import Environment;"
        "complete(['list', '--'], Environment(stdout=io.StringIO(), environ={}));"
        "print('typer' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_the_completion_helper_imports_no_framework_at_all() -> None:
    # kubectl runs kubectl_complete-instancetype on every <TAB>: its imports are the cost over kubectl's own
    code = (
        "import sys, io; from kubectl_instancetype.cli.main import complete_main; sys.stdout = io.StringIO();"
        "complete_main(['list', '--c']); sys.stdout = sys.__stdout__;"
        "print(sorted({'typer', 'typing', 'dataclasses', 'inspect', 're', 'contextlib'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""})
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.posix("bash and a POSIX PATH")
def test_bash_script_completes_through_the_real_bash(tmp_path) -> None:
    script = tmp_path / "complete.bash"
    script.write_text(SCRIPTS["bash"])
    bindir = Path(sys.executable).parent
    probe = (
        f"source '{script}'; COMP_WORDS=(kubectl-instancetype list --sort-by ''); COMP_CWORD=3;"
        " _kubectl_instancetype_complete; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    result = subprocess.run(
        ["bash", "--norc", "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.stdout.split() == ["name", "cpu", "memory"], result.stderr


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_completion_command_prints_the_script(shell: str) -> None:
    from tests.conftest import run_cli

    result = run_cli(["completion", shell])
    assert (result.exit_code, result.stdout, result.stderr) == (0, SCRIPTS[shell], "")


@pytest.mark.parametrize(
    "value,seconds",
    [(None, 1.0), ("3s", 3.0), ("250ms", 0.25), ("0s", 1.0), ("-2s", 1.0), ("soon", 1.0)],
)
def test_the_live_deadline_is_a_second_unless_the_variable_says_otherwise(value, seconds) -> None:
    environ = {} if value is None else {completion.COMPLETION_TIMEOUT_VARIABLE: value}
    assert completion.live_deadline(Environment(environ=environ)) == seconds
