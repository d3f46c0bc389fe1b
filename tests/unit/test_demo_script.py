"""``make demo``'s tour (hack/demo.sh) stays runnable: the script is valid bash, and every ``kubectl instancetype``
line it runs, plain or in a pipeline, names a command and flags the plugin has, with values they accept (parsed
by the app as the real run parses them, nothing run). Running the tour itself needs the plane with KubeVirt, the
simulated nodes, the fleet's API servers and Prometheus, minutes rather than the seconds a test may take here; its
steps' behaviour is what tests/integration/test_fleet.py and test_rightsize_live.py hold on the same fixtures."""

import contextlib
import io
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.cli import main
from kubectl_instancetype.cli.commands import normalise
from kubectl_instancetype.cli.options import ParsedValues, expand_bare_flags, expand_optional_values
from kubectl_instancetype.cli.registry import bare_flags, build, optional_value_flags

DEMO = Path(__file__).resolve().parents[2] / "hack" / "demo.sh"


def _demo_commands() -> list[list[str]]:
    """The plugin's argument lists in the demo: ``step kubectl instancetype ...`` lines (continued lines joined)
    and the first command of each ``step_sh "..."`` pipeline."""
    text = DEMO.read_text().replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("step_sh "):
            line = shlex.split(line)[1].split("|")[0]
        elif line.startswith("step "):
            line = line[len("step ") :]
        else:
            continue
        words = shlex.split(re.sub(r"\|\|\s*true$", "", line).strip())
        if words[:2] == ["kubectl", "instancetype"]:
            commands.append(words[2:])
    return commands


def test_the_script_is_valid_bash_and_tours_fleet_and_rightsize() -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    result = subprocess.run(["bash", "-n", str(DEMO)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    commands = _demo_commands()
    assert len(commands) > 40
    assert ["list", "vmcf", "--all-contexts", "--cpu", "4", "--class", "general.purpose"] in commands
    assert any(c[:2] == ["fleet", "diff"] and "--to" in c for c in commands)
    assert "python -m hack.localcluster.prometheus demo demo" in DEMO.read_text()  # rightsize over backfilled history


@pytest.mark.parametrize("args", _demo_commands(), ids=lambda args: " ".join(args)[:60])
def test_every_demo_command_parses(args: list[str]) -> None:
    args = normalise(args)
    app, modules = build(args)
    from typer.main import get_command

    captured = ParsedValues()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        get_command(app).main(
            args=expand_bare_flags(
                expand_optional_values(list(args), optional_value_flags(modules)), bare_flags(modules)
            ),
            prog_name=main.PROG_NAME,
            standalone_mode=False,
            obj=captured,
        )
    assert captured.options_class is not None, f"{args}: no command ran"
