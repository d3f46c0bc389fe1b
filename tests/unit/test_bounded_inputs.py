"""Inputs that would cost without bound are refused in one line: -f /dev/zero, an endless stdin, a YAML alias bomb
(go-yaml's "excessive aliasing" budget), YAML values JSON cannot carry (named with their document and path), oversized
password, token and registry credential files, a FIFO as registry credentials. The heavy cases run in a subprocess
under an address-space limit (resource.setrlimit RLIMIT_AS), so a regression fails the test, not the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kubectl_instancetype.errors import render
from kubectl_instancetype.usecases.manifests import MAX_INPUT_BYTES
from tests.conftest import run_cli

MEMORY_LIMIT = 1 << 30  # 1 GiB of address space for the whole plugin process
BOMB = textwrap.dedent(
    """\
    apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata: {name: bomb}
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    spec: {template: {spec: {x: *i}}}
    """
)


def limited(*args: str, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The plugin in a subprocess whose address space is capped: running out of it fails, it cannot swap."""
    code = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
        "from kubectl_instancetype.cli.main import main; sys.argv[0] = 'kubectl-instancetype'; sys.exit(main())"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "HOME": "/nonexistent", "KUBECONFIG": ""},
    )


@pytest.mark.parametrize("command", [["expand", "-f"], ["convert", "-f"], ["infer", "-f"]])
def test_an_alias_bomb_is_refused(tmp_path: Path, command) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    result = limited(*command, str(path))
    assert result.returncode == 1, result.stderr
    assert result.stderr.decode() == (
        f"error: error parsing {path}: error converting YAML to JSON: yaml: document contains excessive aliasing\n"
    )


def test_dev_zero_is_refused_at_the_bound() -> None:
    result = limited("convert", "-f", "/dev/zero")
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"error: read /dev/zero: the input is larger than {MAX_INPUT_BYTES >> 20} MiB, more than -f reads\n"
    )


def test_an_endless_stdin_is_refused_at_the_bound() -> None:
    result = limited("expand", "-f", "-", stdin=b"#" * (MAX_INPUT_BYTES + 10))
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"error: read STDIN: the input is larger than {MAX_INPUT_BYTES >> 20} MiB, more than -f reads\n"
    )


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("guest: .inf", "json: unsupported value: +Inf (document 2, at spec.cpu.guest)"),
        ("guest: -.Inf", "json: unsupported value: -Inf (document 2, at spec.cpu.guest)"),
        ("guest: .nan", "json: unsupported value: NaN (document 2, at spec.cpu.guest)"),
        (
            "guest: !!binary /w==",
            "!!binary data that is not UTF-8 text has no JSON form (document 2, at spec.cpu.guest)",
        ),
        ("guest: !!set {a, b}", "a !!set has no JSON form (write a list or a map) (document 2, at spec.cpu.guest)"),
    ],
)
def test_values_json_cannot_carry_are_named_with_document_and_path(value, words) -> None:
    text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: instancetype.kubevirt.io/v1beta1\n"
    text += f"kind: VirtualMachineInstancetype\nmetadata: {{name: b}}\nspec:\n  cpu:\n    {value}\n"
    result = run_cli(["convert", "-f", "-"], stdin=text)
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: error parsing STDIN: error converting YAML to JSON: {words}\n",
    )


def test_a_timestamp_stays_the_string_it_was_written_as() -> None:
    text = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: t\n"
    text += "  annotations:\n    when: 2001-12-14t21:59:43.10-05:00\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    result = run_cli(["convert", "-f", "-", "-o", "json"], stdin=text)
    assert result.exit_code == 0, result.stderr
    assert '"when": "2001-12-14t21:59:43.10-05:00"' in result.stdout


def test_an_oversized_password_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "password"
    path.write_bytes(b"x" * ((1 << 20) + 1))
    result = run_cli(
        ["create", "vm", "--dry-run=client", "--volume-containerdisk", "src:img", "--password-file", str(path)]
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].endswith(f"open {path}: file too large (more than 1 MiB)")


def test_a_fifo_as_registry_credentials_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "auth.json"
    os.mkfifo(fifo)
    result = run_cli(
        ["infer", "image", "127.0.0.1:1/r:t", "--insecure-registry"],
        environ={"HOME": str(tmp_path), "REGISTRY_AUTH_FILE": str(fifo)},
    )
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: reading the registry credentials in {fifo}: not a regular file\n",
    )


def test_oversized_registry_credentials_and_token_files_are_refused(tmp_path: Path) -> None:
    auth = tmp_path / "auth.json"
    auth.write_bytes(b" " * (5 << 20))
    result = run_cli(
        ["infer", "image", "127.0.0.1:1/r:t", "--insecure-registry"],
        environ={"HOME": str(tmp_path), "REGISTRY_AUTH_FILE": str(auth)},
    )
    assert result.stderr == f"error: reading the registry credentials in {auth}: larger than 4 MiB\n"
    auth.write_bytes(b'{"auths": \xff}')
    result = run_cli(
        ["infer", "image", "127.0.0.1:1/r:t", "--insecure-registry"],
        environ={"HOME": str(tmp_path), "REGISTRY_AUTH_FILE": str(auth)},
    )
    assert result.stderr == (
        f"error: reading the registry credentials in {auth}: the file is not UTF-8 text (byte 10), so not JSON\n"
    )


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (MemoryError(), "error: out of memory: the input is larger than this machine can hold; give a smaller input"),
        (RecursionError("maximum recursion depth exceeded"), "error: the input nests too deeply to process (more than about 1,000 levels)"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "error: the input is not valid UTF-8 text"),
        (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), "error: a number has more than 4300 digits, more than is read"),
        (OSError(28, "No space left on device"), "error: no space left on device"),
        (__import__("ssl").SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)"), "error: tls: wrong version number"),
        (KeyError("ftp"), "error: unexpected value 'ftp'"),
    ],
)  # fmt: skip
def test_python_internals_never_reach_users(exc, line) -> None:
    assert render(exc) == line


def test_an_oversized_template_file_keeps_the_unit_of_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "template"
    path.write_bytes(b"x" * ((1 << 20) + 1))
    result = run_cli(["catalog", "list", "-o", f"go-template-file={path}"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: error reading --template {path}, open {path}: file too large (more than 1 MiB)\n"
