"""Failures against the real control plane: each ends in one ``error:`` line and exit 1, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hack.localcluster.controlplane import free_port
from tests.conftest import run_cli
from tests.doubles.proxy import TunnellingProxy

pytestmark = pytest.mark.controlplane

CORPUS = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs"


def kubeconfig(tmp_path: Path, server: str, ca: str | None, token: str, name: str = "kubeconfig") -> Path:
    """A one-context kubeconfig written as JSON (which YAML readers accept)."""
    cluster = {"server": server} | ({"certificate-authority": ca} if ca else {})
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": {"token": token}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )
    return path


def assert_one_error_line(result, expected: str) -> None:
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == expected + "\n"


def test_restricted_user_gets_what_it_may_list_and_one_warning(cli, without_instancetype_view) -> None:
    result = cli("list", "-n", "alice", user="alice")
    assert result.exit_code == 0
    assert result.stderr == (
        'Warning: virtualmachineclusterinstancetypes.instancetype.kubevirt.io is forbidden: User "alice" cannot '
        'list resource "virtualmachineclusterinstancetypes" in API group "instancetype.kubevirt.io" at the '
        "cluster scope; listing the other scopes only\nNo resources found\n"
    )


def test_cluster_only_user_sees_cluster_objects(cli) -> None:
    result = cli("list", "--cpu", "1", "--size", "nano", "--class", "general.purpose", user="carol")
    assert result.exit_code == 0
    assert [line.split()[:2] for line in result.stdout.splitlines()[1:]] == [["u1.nano", "cluster"]]
    assert result.stderr.startswith("Warning: virtualmachineinstancetypes.instancetype.kubevirt.io is forbidden")
    assert result.stderr.count("\n") == 1


def test_user_who_may_list_nothing_gets_an_error(cli, without_instancetype_view) -> None:
    result = cli("list", user="mallory")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        'error: virtualmachineclusterinstancetypes.instancetype.kubevirt.io is forbidden: User "mallory" cannot list '
        'resource "virtualmachineclusterinstancetypes" in API group "instancetype.kubevirt.io" at the cluster scope; '
        'virtualmachineinstancetypes.instancetype.kubevirt.io is forbidden: User "mallory" cannot list resource '
        '"virtualmachineinstancetypes" in API group "instancetype.kubevirt.io" in the namespace "mallory"\n',
    )


def test_forbidden_single_scope(cli, without_instancetype_view) -> None:
    result = cli("list", "--scope=cluster", user="alice")
    assert_one_error_line(
        result,
        "error: virtualmachineclusterinstancetypes.instancetype.kubevirt.io is "
        'forbidden: User "alice" cannot list resource "virtualmachineclusterinstancetypes"'
        ' in API group "instancetype.kubevirt.io" at the cluster scope',
    )


def test_wrong_token(control_plane, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane.server, str(control_plane.ca_file), "not-a-valid-token")
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert_one_error_line(result, "error: You must be logged in to the server (Unauthorized)")


def test_stopped_server(control_plane, tmp_path) -> None:
    port = free_port()  # nothing listens there: what a stopped apiserver looks like
    path = kubeconfig(tmp_path, f"https://127.0.0.1:{port}", str(control_plane.ca_file), "t")
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert_one_error_line(
        result,
        f"error: The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?",
    )


def test_tls_mismatch(control_plane, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane.server, str(CORPUS / "pki" / "ca.crt"), "t")
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert result.stderr.startswith("error: Unable to connect to the server: tls: failed to verify certificate: ")
    assert_one_error_line(result, result.stderr.rstrip("\n"))


def test_tls_name_mismatch_with_tls_server_name(control_plane, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane.server, str(control_plane.ca_file), "t")
    document = json.loads(path.read_text())
    document["clusters"][0]["cluster"]["tls-server-name"] = "not-the-apiserver.example"
    path.write_text(json.dumps(document))
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert "Hostname mismatch" in result.stderr or "doesn't match" in result.stderr
    assert_one_error_line(result, result.stderr.rstrip("\n"))


def test_tls_server_name_that_matches_is_accepted(control_plane, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane.server, str(control_plane.ca_file), control_plane.tokens["admin"])
    document = json.loads(path.read_text())
    document["clusters"][0]["cluster"]["tls-server-name"] = "kubernetes.default.svc"
    path.write_text(json.dumps(document))
    result = run_cli(["list", "--kubeconfig", str(path), "--cpu", "64", "-o", "name"])
    assert result.exit_code == 0, result.stderr
    # the request went through (the TLS name checked): the catalog's one 64-vCPU type is listed
    assert result.stdout == "virtualmachineclusterinstancetype.instancetype.kubevirt.io/n1.8xlarge\n"


def test_insecure_skip_tls_verify(control_plane, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane.server, None, control_plane.tokens["admin"])
    document = json.loads(path.read_text())
    document["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
    path.write_text(json.dumps(document))
    result = run_cli(["list", "--kubeconfig", str(path), "--cpu", "64", "-o", "name"])
    # the request went through unverified: the catalog's one 64-vCPU type is listed
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/n1.8xlarge\n",
        "",
    )


def test_unknown_context(control_plane) -> None:
    result = run_cli(["list", "--kubeconfig", str(control_plane.kubeconfig()), "--context", "nope"])
    assert_one_error_line(result, "error: context was not found for specified context: nope")


def test_no_kubeconfig(tmp_path) -> None:
    result = run_cli(["list"], environ={"HOME": str(tmp_path)})
    assert_one_error_line(
        result, "error: no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
    )


def test_missing_kubeconfig_file(tmp_path) -> None:
    result = run_cli(["list", "--kubeconfig", str(tmp_path / "absent")])
    assert_one_error_line(result, f"error: stat {tmp_path / 'absent'}: no such file or directory")


def test_unreadable_kubeconfig(tmp_path) -> None:
    path = tmp_path / "broken"
    path.write_text("clusters: [unclosed\n")
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert result.stderr.startswith(f'error: error loading config file "{path}": ')
    assert_one_error_line(result, result.stderr.rstrip("\n"))


def test_request_timeout(control_plane, tmp_path) -> None:
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the TCP connection, never answers the TLS handshake
    port = silent.getsockname()[1]
    path = kubeconfig(tmp_path, f"https://127.0.0.1:{port}", str(control_plane.ca_file), "t")
    try:
        result = run_cli(["list", "--kubeconfig", str(path), "--request-timeout", "1s"])
    finally:
        silent.close()
    # kubectl v1.36.3 against the same silent listener (the TLS handshake never completes)
    assert_one_error_line(
        result,
        "error: Unable to connect to the server: net/http: request canceled while waiting for connection "
        "(Client.Timeout exceeded while awaiting headers)",
    )
    del threading


def test_invalid_request_timeout() -> None:
    result = run_cli(["list", "--request-timeout", "soon"])
    assert_one_error_line(
        result,
        "error: Invalid timeout value. Timeout must be a single integer in seconds, "
        "or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)",
    )


def test_verbose_flag_shows_the_traceback(control_plane) -> None:
    result = run_cli(["list", "--kubeconfig", str(control_plane.kubeconfig()), "--context", "nope", "-v", "1"])
    assert result.exit_code == 1
    assert "Traceback" in result.stderr
    assert result.stderr.endswith("error: context was not found for specified context: nope\n")


def test_version_prints_both_versions(cli) -> None:
    from kubectl_instancetype import __version__

    result = cli("version")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[:3] == [
        f"Client Version: v{__version__}",
        "Server Version: v1.36.3",
        "KubeVirt Version: v1.9.0",
    ]
    assert result.stdout.splitlines()[3].startswith("CDI Version: ")


def test_version_when_the_server_is_down(tmp_path) -> None:
    port = free_port()
    path = kubeconfig(tmp_path, f"https://127.0.0.1:{port}", None, "t")
    result = run_cli(["version", "--kubeconfig", str(path)])
    assert result.exit_code == 1
    assert result.stdout.startswith("Client Version: v")
    assert result.stderr == (
        f"error: The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?\n"
    )


def test_in_cluster_service_account_through_the_official_loader(control_plane, tmp_path, monkeypatch) -> None:
    """No kubeconfig, KUBERNETES_SERVICE_HOST set: the official loader reads the pod's service account.

    The pod's files are the one thing that cannot be real here, so their paths point into tmp_path.
    """
    from kubernetes.config import incluster_config

    (tmp_path / "token").write_text(control_plane.tokens["admin"])
    (tmp_path / "ca.crt").write_text(control_plane.ca_file.read_text())
    (tmp_path / "namespace").write_text("catalog")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "token"))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(tmp_path / "ca.crt"))
    monkeypatch.setattr(
        "kubectl_instancetype.kube.kubeconfig.official.IN_CLUSTER_NAMESPACE_FILE", str(tmp_path / "namespace")
    )
    service = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(control_plane.port)}
    for key, value in service.items():
        monkeypatch.setenv(key, value)  # the official loader reads os.environ
    home = tmp_path / "home"
    home.mkdir()
    result = run_cli(["list", "--cpu", "4", "--class", "general.purpose"], environ={"HOME": str(home), **service})
    assert result.exit_code == 0, result.stderr
    # the service account's namespace is the default scope, next to the cluster scope (the catalog's namespaced
    # copies exist in "catalog" only: a namespaced row means that namespace was listed)
    assert [line.split()[:2] for line in result.stdout.splitlines()[1:]] == [
        ["u1.xlarge", "cluster"],
        ["u1.xlarge", "namespaced"],
    ]


def test_exec_credential_plugin_through_the_official_loader(control_plane, tmp_path) -> None:
    """An exec plugin's token (resolved by the official loader) authenticates our transport."""
    import yaml

    credential = json.dumps(
        {
            "apiVersion": "client.authentication.k8s.io/v1",
            "kind": "ExecCredential",
            "status": {"token": control_plane.tokens["admin"]},
        }
    )
    script = tmp_path / "credential-plugin"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{credential}\nEOF\n")
    script.chmod(0o755)
    path = tmp_path / "kubeconfig"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "exec",
                "clusters": [
                    {
                        "name": "c",
                        "cluster": {
                            "server": control_plane.server,
                            "certificate-authority": str(control_plane.ca_file),
                        },
                    }
                ],
                "users": [
                    {
                        "name": "u",
                        "user": {
                            "exec": {
                                "apiVersion": "client.authentication.k8s.io/v1",
                                "command": str(script),
                                "interactiveMode": "Never",
                            }
                        },
                    }
                ],
                "contexts": [{"name": "exec", "context": {"cluster": "c", "user": "u", "namespace": "catalog"}}],
            }
        )
    )
    result = run_cli(["list", "--kubeconfig", str(path), "--cpu", "64"])
    assert result.exit_code == 0, result.stderr
    # the context's namespace is listed (the catalog's namespaced copies exist in "catalog" only)
    assert [line.split()[:2] for line in result.stdout.splitlines()[1:]] == [
        ["n1.8xlarge", "cluster"],
        ["n1.8xlarge", "namespaced"],
    ]


def test_kubeconfig_proxy_url_through_the_official_loader(control_plane, tmp_path) -> None:
    """proxy-url is resolved by the official loader; our transport tunnels TLS through it with CONNECT."""
    import yaml

    proxy = TunnellingProxy()
    try:
        path = tmp_path / "kubeconfig"
        path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "p",
                    "clusters": [
                        {
                            "name": "c",
                            "cluster": {
                                "server": control_plane.server,
                                "certificate-authority": str(control_plane.ca_file),
                                "proxy-url": f"http://127.0.0.1:{proxy.port}",
                            },
                        }
                    ],
                    "users": [{"name": "u", "user": {"token": control_plane.tokens["admin"]}}],
                    "contexts": [{"name": "p", "context": {"cluster": "c", "user": "u"}}],
                }
            )
        )
        result = run_cli(["list", "--kubeconfig", str(path), "--cpu", "64", "--scope=cluster"])
    finally:
        proxy.close()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[:2] == ["n1.8xlarge", "cluster"]
    assert proxy.tunnels == [f"127.0.0.1:{control_plane.port}"]
