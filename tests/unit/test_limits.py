"""The rows of docs/errors.md's Limits table not shown elsewhere, each with the crafted input that crosses the
bound: a kubeconfig, a tokenFile and a CA file past their size, a label selector past its length, and a registry
that redirects without end. Each ends in the one line the table names, before any request to the cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_instancetype.instancetype.selectors import MAX_SELECTOR_LENGTH
from kubectl_instancetype.kube.kubeconfig.files import MAX_KUBECONFIG_BYTES
from kubectl_instancetype.kube.tls import MAX_PEM_FILE_BYTES
from kubectl_instancetype.oci.client import MAX_REDIRECTS
from tests.conftest import run_cli
from tests.doubles.hostile_registry import HostileRegistry, send


def kubeconfig(tmp_path: Path, user: dict, cluster: dict | None = None) -> Path:
    """A kubeconfig for a server nobody listens on: a request would fail as 'refused', not as the bound."""
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1", **(cluster or {})}}],
                "users": [{"name": "u", "user": user}],
            }
        )
    )
    return path


def listing(path: Path):
    return run_cli(["list", "--cluster", "--kubeconfig", str(path)])


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
        f"error: GET http://{registry.host}/v2/r/manifests/t: more than {MAX_REDIRECTS} redirects\n",
    )
    assert len(registry.requests) == MAX_REDIRECTS + 1
