"""``completion install-helper``: where the helper goes, what it runs, what it refuses to overwrite.

The helper (the generated sh helper bound to the plugin) is run for real by /bin/sh here against a small
stand-in plugin script that prints its arguments; tests/e2e/test_krew.py runs it through the real kubectl against
the krew-installed plugin. tests/unit/test_completion_shell.py holds the script's answers to the Python helper's.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.cli.completion_shell import SCRIPT_FILE
from kubectl_instancetype.usecases.completion_helper import HELPER, MARKER, launcher_text
from tests.conftest import run_cli


def _plugin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    plugin = folder / "kubectl-instancetype"
    plugin.write_text('#!/bin/sh\nfor arg in "$@"; do echo "[$arg]"; done\n')
    plugin.chmod(0o755)
    return plugin


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_writes_next_to_the_plugin_on_path_and_runs_its_complete_entry(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "bin")
    result = run_cli(
        ["completion", "install-helper"], environ={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    )
    helper = tmp_path / "bin" / HELPER
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == f"wrote {helper} (runs {plugin} __complete)\n"
    assert stat.S_IMODE(helper.stat().st_mode) == 0o755
    assert helper.read_text().splitlines()[1] == f"# {HELPER}: {MARKER}."
    # kubectl calls it with the plugin's words and the (possibly empty) word being completed last: live names
    # are the plugin's to answer
    ran = subprocess.run([str(helper), "create", "vm", "--instancetype", ""], capture_output=True, text=True)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.splitlines() == ["[__complete]", "[create]", "[vm]", "[--instancetype]", "[]"]
    # a static answer is the script's own
    ran = subprocess.run([str(helper), "list", "--min-c"], capture_output=True, text=True)
    assert ran.stdout == "--min-cpu\tAt least N vCPUs (evaluated on the spec).\n:4\n"


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_after_an_upgrade_the_new_plugin_answers_every_line(tmp_path: Path) -> None:
    # krew's bin holds a symlink into a folder per version; krew upgrade relinks it and deletes the old folder:
    # the static table written from the old version is no longer used
    old = _plugin(tmp_path / "store" / "v1")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "kubectl-instancetype").symlink_to(old)
    assert (
        run_cli(
            ["completion", "install-helper"], environ={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}
        ).exit_code
        == 0
    )
    helper = tmp_path / "bin" / HELPER
    assert subprocess.run([str(helper), "list", "--min-c"], capture_output=True, text=True).stdout.endswith(":4\n")
    new = _plugin(tmp_path / "store" / "v2")
    (tmp_path / "bin" / "kubectl-instancetype").unlink()
    (tmp_path / "bin" / "kubectl-instancetype").symlink_to(new)
    old.unlink()
    ran = subprocess.run([str(helper), "list", "--min-c"], capture_output=True, text=True)
    assert ran.stdout.splitlines() == ["[__complete]", "[list]", "[--min-c]"]


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_default_is_krews_bin_folder_when_the_plugin_is_not_on_path(tmp_path: Path) -> None:
    krew_root = tmp_path / "krew"
    plugin = _plugin(krew_root / "bin")
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KREW_ROOT": str(krew_root)}
    result = run_cli(["completion", "install-helper"], environ=environ)
    assert result.exit_code == 0
    assert (krew_root / "bin" / HELPER).is_file()
    assert result.stdout == f"wrote {krew_root / 'bin' / HELPER} (runs {plugin} __complete)\n"
    # the folder is not on PATH: kubectl would not find the helper, and the user is told so
    assert result.stderr == f"Warning: {krew_root / 'bin'} is not on PATH: kubectl will not find {HELPER} there\n"


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_home_krew_is_the_default_krew_root(tmp_path: Path) -> None:
    _plugin(tmp_path / ".krew" / "bin")
    result = run_cli(["completion", "install-helper"], environ={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.exit_code == 0
    assert (tmp_path / ".krew" / "bin" / HELPER).is_file()


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_dir_puts_it_elsewhere(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "bin")
    (tmp_path / "elsewhere").mkdir()
    environ = {"PATH": f"{tmp_path / 'bin'}:{tmp_path / 'elsewhere'}", "HOME": str(tmp_path)}
    result = run_cli(["completion", "install-helper", "--dir", str(tmp_path / "elsewhere")], environ=environ)
    assert (result.exit_code, result.stderr) == (0, "")
    assert f"plugin={plugin}\n" in (tmp_path / "elsewhere" / HELPER).read_text()
    assert not (tmp_path / "bin" / HELPER).exists()


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_missing_dir_and_missing_plugin_are_one_line_errors(tmp_path: Path) -> None:
    _plugin(tmp_path / "bin")
    environ = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}
    result = run_cli(["completion", "install-helper", "--dir", str(tmp_path / "nope")], environ=environ)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: --dir {tmp_path / 'nope'}: no such directory\n"
    (tmp_path / "a-file").write_text("")
    result = run_cli(["completion", "install-helper", "--dir", str(tmp_path / "a-file")], environ=environ)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: --dir {tmp_path / 'a-file'}: not a directory\n"
    result = run_cli(["completion", "install-helper"], environ={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: kubectl-instancetype was not found on PATH nor in krew's bin folder ({tmp_path / '.krew' / 'bin'})\n"
    )


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_a_helper_it_did_not_write_is_kept_unless_forced(tmp_path: Path) -> None:
    _plugin(tmp_path / "bin")
    pip_helper = tmp_path / "bin" / HELPER
    pip_helper.write_text("#!/usr/bin/python\n# a console script of pip\n")
    environ = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}
    result = run_cli(["completion", "install-helper"], environ=environ)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {pip_helper} already exists and was not written by this command")
    assert pip_helper.read_text().startswith("#!/usr/bin/python")
    assert run_cli(["completion", "install-helper", "--force"], environ=environ).exit_code == 0
    assert "__complete" in pip_helper.read_text()
    # its own launcher is replaced without --force (a krew upgrade moves nothing, but a re-run must work)
    assert run_cli(["completion", "install-helper"], environ=environ).exit_code == 0
    assert [p.name for p in (tmp_path / "bin").iterdir() if p.name.startswith(".")] == []


@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_launcher_is_silent_once_the_plugin_is_gone(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "bin")
    run_cli(["completion", "install-helper"], environ={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)})
    plugin.unlink()  # kubectl krew uninstall removes the plugin, not the launcher
    ran = subprocess.run([str(tmp_path / "bin" / HELPER), ""], capture_output=True, text=True)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")


@pytest.mark.parametrize("path", ["/home/o'brien/.krew/bin/kubectl-instancetype", "/a b/$HOME/`x`"])
@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_launcher_quotes_the_plugin_path(path: str, tmp_path: Path) -> None:
    text = launcher_text(path, script=SCRIPT_FILE.read_text(), resolved=path)
    script = tmp_path / "launcher"
    # the same helper, with exec replaced by echo: sh must see the path as one literal word
    script.write_text(text.replace('exec "$plugin"', 'echo "$plugin"').replace("|| exit 0", "|| true"))
    ran = subprocess.run(["/bin/sh", str(script), "-n", "x"], capture_output=True, text=True, env={"HOME": "/h"})
    assert ran.stdout.splitlines()[0] == f"{path} __complete -n x"


def test_only_the_generated_helper_is_bound_to_a_plugin() -> None:
    with pytest.raises(ValueError, match="make completion-table"):
        launcher_text("/bin/kubectl-instancetype", script="#!/bin/sh\n")


def test_windows_launcher_is_a_cmd_file_that_passes_every_argument() -> None:
    text = launcher_text(r"C:\Users\u\.krew\bin\kubectl-instancetype.exe", windows=True)
    assert text.startswith("@echo off\r\n")
    assert text.endswith('"C:\\Users\\u\\.krew\\bin\\kubectl-instancetype.exe" __complete %*\r\n')


def test_hidden_complete_entry_of_the_plugin_serves_the_protocol(monkeypatch, capsys) -> None:
    # what the launcher execs: `kubectl-instancetype __complete <words...> <word being completed>`
    from kubectl_instancetype.cli import main

    monkeypatch.setattr("sys.argv", ["kubectl-instancetype", "__complete", "completion", ""])
    assert main.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert "install-helper" in {line.split("\t")[0] for line in lines}
    assert lines[-1] == ":4"


@pytest.mark.parametrize("hostile", ["esc\x1b[2J", "new\nline"])
@pytest.mark.posix("a #!/bin/sh stand-in plugin, /bin/sh and file modes")
def test_a_path_with_control_characters_is_printed_escaped(tmp_path: Path, hostile: str) -> None:
    plugin = _plugin(tmp_path / hostile / "bin")
    elsewhere = tmp_path / hostile / "elsewhere"
    elsewhere.mkdir()
    environ = {"PATH": f"{plugin.parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    result = run_cli(["completion", "install-helper", "--dir", str(elsewhere)], environ=environ)
    shown = str(tmp_path / hostile).replace("\x1b", "^[").replace("\n", "\\n")
    assert result.exit_code == 0
    assert result.stdout == f"wrote {shown}/elsewhere/{HELPER} (runs {shown}/bin/kubectl-instancetype __complete)\n"
    assert result.stderr == f"Warning: {shown}/elsewhere is not on PATH: kubectl will not find {HELPER} there\n"
