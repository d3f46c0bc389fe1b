"""What differs on Windows and macOS, tested here on Linux with the operating system given as a value (the
Environment's ``goos``, ntpath/posixpath), never by patching ``sys.platform``:

- ``KUBECONFIG`` split as Go's ``filepath.SplitList`` splits it (``;`` and quotes on Windows);
- the home folder as client-go's ``homedir.HomeDir`` finds it (HOME, HOMEDRIVE+HOMEPATH, USERPROFILE);
- exec credential plugins found as ``exec.Command`` finds them (``PATHEXT`` on Windows), their stdout read
  without select() (which takes only sockets on Windows), relative commands resolved with the OS's separator;
- the completion launcher a ``.cmd`` file kubectl's ``LookPath`` finds on Windows;
- the frozen build's platform names.
"""

from __future__ import annotations

import io
import ntpath
import os
import posixpath
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype.env import Environment
from kubectl_instancetype.golang.goos import (
    GOOS,
    LookPathError,
    home_dir,
    look_path,
    path_extensions,
    path_module,
    split_list,
)
from kubectl_instancetype.kube.kubeconfig import kubeconfig_paths
from kubectl_instancetype.kube.kubeconfig.exec_credential import ExecCredentialPlugin


def test_goos_is_this_machines() -> None:
    assert {"win32": "windows"}.get(sys.platform, sys.platform) == GOOS
    assert Environment().goos == GOOS
    assert path_module("windows") is ntpath
    assert path_module("linux") is posixpath and path_module("darwin") is posixpath


# filepath.SplitList's own test tables (Go 1.26, path/filepath/path_test.go: splitlisttests, winsplitlisttests)
UNIX_SPLITS = [
    ("", []),
    ("a", ["a"]),
    ("a:b", ["a", "b"]),
    ("a:b:c", ["a", "b", "c"]),
    ("a::b", ["a", "", "b"]),
    (":a", ["", "a"]),
    ("a:", ["a", ""]),
]
WINDOWS_SPLITS = [
    ("", []),
    ("a", ["a"]),
    ("a;b", ["a", "b"]),
    ("a;b;c", ["a", "b", "c"]),
    ("a;;b", ["a", "", "b"]),
    (";a", ["", "a"]),
    ("a;", ["a", ""]),
    ('"a"', ["a"]),
    ('";"', [";"]),
    ('"a;b"', ["a;b"]),
    ('";";', [";", ""]),
    (';";"', ["", ";"]),
    ('a";"b', ["a;b"]),
    ('a; ""b', ["a", " b"]),
    ('"a;b', ["a;b"]),
    ('""a;b', ["a", "b"]),
    ('"""a;b', ["a;b"]),
    ('""""a;b', ["a", "b"]),
    ('a";b', ["a;b"]),
    ('a;b";c', ["a", "b;c"]),
    ('"a";b";c', ["a", "b;c"]),
    # a Windows KUBECONFIG: drive letters' colons are not separators
    ("C:\\Users\\u\\.kube\\config;D:\\k.yaml", ["C:\\Users\\u\\.kube\\config", "D:\\k.yaml"]),
]


@pytest.mark.parametrize(("value", "expected"), UNIX_SPLITS)
@pytest.mark.parametrize("goos", ["linux", "darwin"])
def test_split_list_unix(goos: str, value: str, expected: list[str]) -> None:
    assert split_list(value, goos) == expected


@pytest.mark.parametrize(("value", "expected"), WINDOWS_SPLITS)
def test_split_list_windows(value: str, expected: list[str]) -> None:
    assert split_list(value, "windows") == expected


def test_kubeconfig_list_uses_the_os_separator(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("{}")
    second.write_text("{}")
    # a Linux path holds no ';' and a Windows list no ':' between entries: each OS reads only its own form
    if os.name != "nt":  # (a Windows folder has a drive letter's colon in it)
        assert kubeconfig_paths(None, {"KUBECONFIG": f"{first}:{second}:{first}"}, "/home/u", "linux") == [
            str(first),
            str(second),
        ]
    assert kubeconfig_paths(None, {"KUBECONFIG": f'{second};"{first}"'}, "/home/u", "windows") == [
        str(second),
        str(first),
    ]
    # the ';' list read as Unix names one file that does not exist
    assert kubeconfig_paths(None, {"KUBECONFIG": f"{second};{first}"}, "/home/u", "linux") == []


def test_default_kubeconfig_is_joined_with_the_os_separator(tmp_path: Path) -> None:
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text("{}")
    assert kubeconfig_paths(None, {}, str(tmp_path), "linux") == [f"{tmp_path}/.kube/config"]


def _fake_stat(tree: dict[str, int]):
    """A stat function over a dict of path -> mode (a Windows file system seen from Linux)."""

    def stat_path(path: str):
        mode = tree.get(path)
        return None if mode is None else os.stat_result((mode, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    return stat_path


DIR, READONLY_DIR, FILE = stat.S_IFDIR | 0o777, stat.S_IFDIR | 0o555, stat.S_IFREG | 0o666


def test_home_dir_unix_is_home_only() -> None:
    assert home_dir({"HOME": "/home/u", "USERPROFILE": "/x"}, "linux") == "/home/u"
    assert home_dir({"HOME": "/Users/u"}, "darwin") == "/Users/u"
    # client-go returns "" (kubectl then reads .kube/config relative to the working folder)
    assert home_dir({}, "linux") == ""
    assert Environment(environ={}, goos="linux").home() == ""


WINDOWS_ENV = {"HOME": "H:\\home", "HOMEDRIVE": "C:", "HOMEPATH": "\\Users\\drive", "USERPROFILE": "C:\\Users\\profile"}


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        # 1. the first of HOME, HOMEDRIVE+HOMEPATH, USERPROFILE holding .kube\config
        ({"C:\\Users\\profile\\.kube\\config": FILE, "C:\\Users\\drive\\.kube\\config": FILE}, "C:\\Users\\drive"),
        ({"C:\\Users\\profile\\.kube\\config": FILE, "C:\\Users\\profile": DIR, "H:\\home": DIR}, "C:\\Users\\profile"),
        ({"H:\\home\\.kube\\config": FILE}, "H:\\home"),
        # 2. none holds one: the first of HOME, USERPROFILE, HOMEDRIVE+HOMEPATH that is a writable folder
        ({"C:\\Users\\profile": DIR, "C:\\Users\\drive": DIR}, "C:\\Users\\profile"),
        ({"H:\\home": READONLY_DIR, "C:\\Users\\drive": DIR}, "C:\\Users\\drive"),
        # 3. none writable: the first that exists; 4. none exists: the first that is set
        ({"C:\\Users\\drive": READONLY_DIR, "C:\\Users\\profile": READONLY_DIR}, "C:\\Users\\profile"),
        ({}, "H:\\home"),
    ],
)
def test_home_dir_windows_follows_client_go(tree: dict[str, int], expected: str) -> None:
    assert home_dir(WINDOWS_ENV, "windows", _fake_stat(tree)) == expected


def test_home_dir_windows_without_home() -> None:
    env = {key: value for key, value in WINDOWS_ENV.items() if key != "HOME"}
    assert home_dir(env, "windows", _fake_stat({})) == "C:\\Users\\profile"
    # HOMEDRIVE alone is not a home
    assert home_dir({"HOMEDRIVE": "C:"}, "windows", _fake_stat({"C:": DIR})) == ""
    assert home_dir({"HOMEDRIVE": "C:", "HOMEPATH": "\\u"}, "windows", _fake_stat({})) == "C:\\u"


def test_windows_home_through_the_environment_on_the_real_file_system(tmp_path: Path) -> None:
    # HOME is set but does not exist; USERPROFILE is a writable folder: client-go picks USERPROFILE
    profile = tmp_path / "profile"
    profile.mkdir()
    env = Environment(environ={"HOME": str(tmp_path / "missing"), "USERPROFILE": str(profile)}, goos="windows")
    assert env.home() == str(profile)
    # on Linux the same variables mean HOME, existing or not
    assert Environment(environ=env.environ, goos="linux").home() == str(tmp_path / "missing")


def test_pathext_as_os_exec_reads_it() -> None:
    assert path_extensions({}) == [".com", ".exe", ".bat", ".cmd"]
    assert path_extensions({"PATHEXT": ".COM;.EXE;;BAT;.Ps1"}) == [".com", ".exe", ".bat", ".ps1"]


def _files(*names: str):
    found = set(names)
    return lambda path: path in found


def test_look_path_windows_tries_pathext_in_each_path_folder() -> None:
    env = {"PATH": "C:\\tools;C:\\bin", "PATHEXT": ".COM;.EXE;.BAT;.CMD", "NoDefaultCurrentDirectoryInExePath": ""}
    files = _files("C:\\bin\\gke-gcloud-auth-plugin.exe", "C:\\tools\\kubelogin.cmd", "C:\\bin\\kubelogin.exe")
    assert look_path("gke-gcloud-auth-plugin", env, "windows", files) == "C:\\bin\\gke-gcloud-auth-plugin.exe"
    # the first folder wins, whatever the extension
    assert look_path("kubelogin", env, "windows", files) == "C:\\tools\\kubelogin.cmd"
    # a name with its extension is tried as it is first
    assert look_path("kubelogin.exe", env, "windows", files) == "C:\\bin\\kubelogin.exe"
    with pytest.raises(LookPathError, match=r'^exec: "aws": executable file not found in %PATH%$'):
        look_path("aws", env, "windows", files)


def test_look_path_windows_paths_and_the_current_folder() -> None:
    env = {"PATH": "C:\\bin"}
    files = _files("C:\\plugins\\auth.bat", "auth.exe", "C:\\bin\\auth.exe")
    # a path gets PATHEXT's extensions but no PATH search
    assert look_path("C:\\plugins\\auth", env, "windows", files) == "C:\\plugins\\auth.bat"
    with pytest.raises(LookPathError, match="file does not exist"):
        look_path("C:\\plugins\\other.exe", env, "windows", files)
    # found in the working folder and on PATH: different files, so Go refuses (ErrDot) ...
    with pytest.raises(LookPathError, match="cannot run executable found relative to current directory"):
        look_path("auth", env, "windows", files)
    # ... unless NoDefaultCurrentDirectoryInExePath says not to look there
    quiet = {**env, "NoDefaultCurrentDirectoryInExePath": "1"}
    assert look_path("auth", quiet, "windows", files) == "C:\\bin\\auth.exe"


def test_look_path_unix() -> None:
    env = {"PATH": "/usr/local/bin:/usr/bin"}
    files = _files("/usr/bin/aws", "/opt/plugin")
    assert look_path("aws", env, "linux", files) == "/usr/bin/aws"
    assert look_path("/opt/plugin", env, "linux", files) == "/opt/plugin"
    with pytest.raises(LookPathError, match=r'^exec: "kubelogin": executable file not found in \$PATH$'):
        look_path("kubelogin", env, "linux", files)
    # an empty PATH entry is the working folder, which Go refuses since 1.19
    with pytest.raises(LookPathError, match="relative to current directory"):
        look_path("tool", {"PATH": ":/usr/bin"}, "linux", _files("tool"))


EXEC = {"apiVersion": "client.authentication.k8s.io/v1", "command": "", "interactiveMode": "Never"}


@pytest.mark.parametrize(
    ("goos", "command", "base", "expected"),
    [
        ("linux", "bin/auth", "/home/u/.kube", "/home/u/.kube/bin/auth"),
        ("linux", "auth", "/home/u/.kube", "auth"),
        ("windows", "bin\\auth.exe", "C:\\Users\\u\\.kube", "C:\\Users\\u\\.kube\\bin\\auth.exe"),
        # client-go resolves only names holding filepath.Separator: on Windows a forward slash is left alone
        ("windows", "bin/auth.exe", "C:\\Users\\u\\.kube", "bin/auth.exe"),
        ("windows", "C:\\tools\\auth.exe", "C:\\Users\\u\\.kube", "C:\\tools\\auth.exe"),
    ],
)
def test_exec_command_relative_to_the_kubeconfig_with_the_os_separator(goos, command, base, expected) -> None:
    plugin = ExecCredentialPlugin({**EXEC, "command": command}, None, base, stdin_is_terminal=False, goos=goos)
    assert plugin.command == expected


def test_exec_plugin_on_windows_not_found_reads_as_client_go(tmp_path: Path) -> None:
    # (look_path's PATHEXT search itself is tested above on a stand-in file system)
    from kubectl_instancetype.errors import TransportError

    for command in ("aws-iam-authenticator", "C:\\tools\\auth.exe"):
        plugin = ExecCredentialPlugin(
            {**EXEC, "command": command, "installHint": "Install it."}, None, "C:\\k", goos="windows"
        )
        plugin.base_environ = {"PATH": "C:\\nowhere", "NoDefaultCurrentDirectoryInExePath": "1"}
        with pytest.raises(TransportError) as failure:
            plugin.executable()
        message = str(failure.value)
        assert message.startswith(f"getting credentials: exec: executable {command} not found\n\nIt looks like")
        assert message.endswith("\n\nInstall it.")
    # on Unix the command is started as it is: exec searches PATH itself
    unix = ExecCredentialPlugin({**EXEC, "command": "kubelogin"}, None, str(tmp_path), goos="linux")
    assert unix.executable() == "kubelogin"


def test_exec_plugin_output_is_read_without_select_on_windows() -> None:
    # the Windows reader (a thread) on a real pipe, with the same bound on the output as the select() loop
    plugin = ExecCredentialPlugin({**EXEC, "command": "x"}, None, "/", goos="windows")
    script = "import sys; sys.stdout.write('{\"a\": 1}'); sys.stdout.flush()"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert plugin.collect(process) == (0, b'{"a": 1}')
    flood = subprocess.Popen(
        [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"], stdout=subprocess.PIPE
    )
    from kubectl_instancetype.errors import TransportError

    with pytest.raises(TransportError, match="wrote more than 1 MiB on stdout"):
        plugin.collect(flood)
    assert flood.poll() is not None  # killed


def test_completion_launcher_on_windows_is_a_cmd_file_next_to_the_exe(tmp_path: Path) -> None:
    from kubectl_instancetype.usecases.completion_helper import install_helper

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "kubectl-instancetype.exe"
    exe.write_bytes(b"MZ")
    exe.chmod(0o755)
    launcher = install_helper({"PATH": f"{bin_dir}"}, str(tmp_path), directory=None, force=False, goos="windows")
    assert Path(launcher.path).name == "kubectl_complete-instancetype.cmd"
    assert launcher.plugin == str(exe)
    assert launcher.on_path
    text = Path(launcher.path).read_bytes()
    assert text.startswith(b"@echo off\r\n")
    assert f'"{exe}" __complete %*'.encode() in text


def test_windows_pipes_get_utf8_as_go_writes_it() -> None:
    import io

    from kubectl_instancetype.env import utf8_streams

    def pipe() -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding="cp1252")

    linux, windows = pipe(), pipe()
    utf8_streams([linux], "linux")
    utf8_streams([windows, None], "windows")  # a closed stream (None) is skipped
    assert linux.encoding == "cp1252"
    assert windows.encoding == "utf-8"
    windows.write("Ωmega\n")
    windows.flush()
    assert windows.buffer.getvalue() == "Ωmega\n".encode()


def test_context_completion_reads_a_windows_kubeconfig_list_through_the_environment(tmp_path: Path) -> None:
    # `kubectl instancetype --context <TAB>` reads KUBECONFIG as kubectl on Windows would: ';'-separated
    from kubectl_instancetype.cli import completion

    first, second = tmp_path / "one", tmp_path / "two"
    first.write_text("apiVersion: v1\nkind: Config\ncontexts:\n- name: alpha\n  context: {cluster: c, user: u}\n")
    second.write_text("apiVersion: v1\nkind: Config\ncontexts:\n- name: beta\n  context: {cluster: c, user: u}\n")
    answers = {}
    for goos, listed in (("windows", f"{first};{second}"), ("linux", f"{first};{second}")):
        out = io.StringIO()
        env = Environment(
            stdout=out, stderr=io.StringIO(), environ={"KUBECONFIG": listed, "HOME": str(tmp_path)}, goos=goos
        )
        assert completion.complete(["list", "--context", ""], env) == 0
        answers[goos] = out.getvalue().splitlines()
    assert answers["windows"] == ["alpha", "beta", ":4"]
    # the same value on Linux names one file, "<one>;<two>", which does not exist: no contexts
    assert answers["linux"] == [":4"]
