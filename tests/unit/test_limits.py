"""The rows of docs/errors.md's Limits table not shown elsewhere, each with the crafted input that crosses the
bound: a kubeconfig, a tokenFile and a CA file past their size, a label selector past its length, and a registry
that redirects without end. Each ends in the one line the table names, before any request to the cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_instancetype.golang.nethttp import MAX_REDIRECTS
from kubectl_instancetype.instancetype.selectors import MAX_SELECTOR_LENGTH
from kubectl_instancetype.kube.kubeconfig.files import MAX_KUBECONFIG_BYTES
from kubectl_instancetype.kube.tls import MAX_PEM_FILE_BYTES
from tests.conftest import run_cli, write_kubeconfig
from tests.doubles.hostile_registry import HostileRegistry, send


def kubeconfig(tmp_path: Path, user: dict, cluster: dict | None = None) -> Path:
    """A kubeconfig for a server nobody listens on: a request would fail as 'refused', not as the bound."""
    return write_kubeconfig(tmp_path, user=user, cluster=cluster)


def listing(path: Path):
    return run_cli(["list", "--scope=cluster", "--kubeconfig", str(path)])


def test_a_kubeconfig_past_16_mib(tmp_path: Path) -> None:
    path = tmp_path / "big-kubeconfig"
    path.write_bytes(b" " * (MAX_KUBECONFIG_BYTES + 1))
    result = listing(path)
    assert (result.exit_code, result.stderr) == (
        1,
        f'error: error loading config file "{path}": the file is larger than 16 MiB\n',
    )


def test_a_token_file_past_1_mib(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_bytes(b"a" * ((1 << 20) + 1))
    result = listing(kubeconfig(tmp_path, {"tokenFile": str(token)}))
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: the tokenFile {token} is larger than 1 MiB, more than a token holds\n",
    )


def test_a_certificate_authority_file_past_16_mib(tmp_path: Path) -> None:
    authority = tmp_path / "ca.pem"
    authority.write_bytes(b"-----BEGIN CERTIFICATE-----\n" + b"a" * MAX_PEM_FILE_BYTES)
    result = listing(kubeconfig(tmp_path, {"token": "t"}, {"certificate-authority": str(authority)}))
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {authority} is larger than 16 MiB, more than a PEM file holds\n",
    )


def test_a_label_selector_past_64_ki_characters() -> None:
    result = run_cli(["catalog", "list", "-l", "a" * (MAX_SELECTOR_LENGTH + 1)])
    assert (result.exit_code, result.stderr) == (1, "error: the selector is longer than 65536 characters\n")


@pytest.fixture
def registry():
    double = HostileRegistry()
    yield double
    double.close()


def test_a_registry_redirecting_without_end(registry) -> None:
    registry.routes["/v2/r/manifests/t"] = send("307 Temporary Redirect", b"", {"Location": "/v2/r/manifests/t"})
    result = run_cli(["infer", "image", f"{registry.host}/r:t", "--insecure-registry"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: GET http://{registry.host}/v2/r/manifests/t: stopped after {MAX_REDIRECTS} redirects\n",
    )
    # Go's defaultCheckRedirect refuses the 11th request: the first and 9 redirects were sent
    assert len(registry.requests) == MAX_REDIRECTS


HUGE_PORT = "9" * 5000  # more digits than Python's int() reads (4300): no "Exceeds the limit" may reach the user


def test_a_server_port_of_thousands_of_digits_is_go_dialers_invalid_port(tmp_path: Path) -> None:
    path = kubeconfig(tmp_path, {"token": "t"})
    path.write_text(path.read_text().replace("https://127.0.0.1:1", f"https://127.0.0.1:{HUGE_PORT}"))
    result = listing(path)
    # the real kubectl's words: "Unable to connect to the server: dial tcp: address 99...9: invalid port"
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: Unable to connect to the server: dial tcp: address {HUGE_PORT}: invalid port\n",
    )


@pytest.mark.parametrize("port", ["99999", HUGE_PORT])
def test_a_registry_port_out_of_range_names_the_registry_request(port: str) -> None:
    result = run_cli(["infer", "image", f"127.0.0.1:{port}/r:t"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: GET https://127.0.0.1:{port}/v2/r/manifests/t: dial tcp: address {port}: invalid port\n",
    )


@pytest.mark.parametrize("port", ["99999", HUGE_PORT])
def test_an_upload_proxy_port_out_of_range_is_refused_before_any_request(tmp_path: Path, port: str) -> None:
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 4096)
    result = run_cli(
        ["upload", "dv", "d", "--size", "1Gi", "--image-path", str(image), "--kubeconfig",
         str(kubeconfig(tmp_path, {"token": "t"})), "--uploadproxy-url", f"https://u:pw-secret@127.0.0.1:{port}"]
    )  # fmt: skip
    # nobody listens on the cluster's 127.0.0.1:1: a request would have been refused, so none was made
    assert (result.exit_code, result.stderr) == (
        1,
        f'error: Post "https://u:xxxxx@127.0.0.1:{port}/v1beta1/upload": dial tcp: address {port}: invalid port\n',
    )


@pytest.mark.parametrize("port", ["99999", HUGE_PORT])
def test_a_proxy_port_out_of_range_is_go_dialers_invalid_port(tmp_path: Path, port: str) -> None:
    path = kubeconfig(tmp_path, {"token": "t"}, {"proxy-url": f"http://127.0.0.1:{port}"})
    result = listing(path)
    # the real kubectl's words: "Unable to connect to the server: proxyconnect tcp: dial tcp: address P: invalid port"
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: Unable to connect to the server: proxyconnect tcp: dial tcp: address {port}: invalid port\n",
    )


MEMORY_LIMIT = 1 << 30  # 1 GiB of address space for the whole plugin process


@pytest.mark.posix("an address-space limit (setrlimit RLIMIT_AS, which macOS refuses)", linux_only=True)
def test_a_kubeconfig_alias_bomb_stays_small(tmp_path: Path) -> None:
    """A kubeconfig whose aliases would expand to a billion nodes is read in bounded memory: the plugin runs under
    an address-space limit, so a regression fails here, not the machine."""
    import os
    import subprocess
    import sys

    lines = ["apiVersion: v1", "kind: Config", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
    path = tmp_path / "kubeconfig"
    path.write_text("\n".join([*lines, "preferences: {x: *i}", ""]))
    code = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
        "from kubectl_instancetype.cli.main import main; sys.argv[0] = 'kubectl-instancetype'; sys.exit(main())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "list", "--kubeconfig", str(path)],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": "/nonexistent", "KUBECONFIG": ""},
    )
    stderr = result.stderr.decode()
    # kubectl's own line for this file (client-go's yaml refuses the expansion)
    assert (result.returncode, stderr) == (
        1,
        f'error: error loading config file "{path}": yaml: document contains excessive aliasing\n',
    )


def test_a_kubeconfig_nested_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text("apiVersion: v1\nkind: Config\npreferences: " + "[" * 20000 + "]" * 20000 + "\n")
    result = listing(path)
    assert (result.exit_code, result.stderr) == (
        1,
        f'error: error loading config file "{path}": yaml: line 3: exceeded maximum nesting depth\n',
    )
