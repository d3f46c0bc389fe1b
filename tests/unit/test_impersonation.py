"""Impersonation: the kubeconfig's ``as``/``as-uid``/``as-groups``/``as-user-extra`` and ``--as``/``--as-group``/
``--as-uid`` become client-go's ``Impersonate-*`` headers on every request, on the fast path and the official
loader's path alike (a loopback double records the requests; the RBAC outcome is tested on the real API server
in tests/integration/test_impersonation.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_instancetype.kube.impersonation import header_key_escape
from tests.conftest import run_cli, write_kubeconfig
from tests.doubles.http_server import ScriptedServer, respond, serve_each

EMPTY_LIST = json.dumps({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": []}).encode()


@pytest.fixture
def server():
    scripted = ScriptedServer(serve_each(lambda request, index: respond("200 OK", EMPTY_LIST)))
    yield scripted
    scripted.close()


def kubeconfig(tmp_path: Path, url: str, user: dict) -> Path:
    return write_kubeconfig(tmp_path, server=url, user=user, namespace="ns")


def header_lines(request: bytes) -> list[tuple[str, str]]:
    head = request.split(b"\r\n\r\n", 1)[0].decode("utf-8")
    pairs = [line.split(": ", 1) for line in head.split("\r\n")[1:]]
    return [(name, value) for name, value in pairs if name.lower().startswith("impersonate-")]


def run(path: Path, *args: str):
    return run_cli(["list", "instancetypes", "--kubeconfig", str(path), *args])


def test_kubeconfig_impersonation_is_sent_on_every_request(tmp_path: Path, server) -> None:
    user = {
        "token": "t",
        "as": "alice",
        "as-uid": "1234",
        "as-groups": ["devs", "ops"],
        "as-user-extra": {"scopes": ["view", "edit"], "reason/why": ["audit"]},
    }
    result = run(kubeconfig(tmp_path, server.url, user))
    assert result.exit_code == 0, result.stderr
    assert len(server.requests) == 2  # cluster scope and namespace scope
    for request in server.requests:
        assert header_lines(request) == [
            ("Impersonate-User", "alice"),
            ("Impersonate-Uid", "1234"),
            ("Impersonate-Group", "devs"),
            ("Impersonate-Group", "ops"),
            ("Impersonate-Extra-reason%2Fwhy", "audit"),
            ("Impersonate-Extra-scopes", "view"),
            ("Impersonate-Extra-scopes", "edit"),
        ]


def test_flags_override_the_kubeconfig(tmp_path: Path, server) -> None:
    user = {"token": "t", "as": "alice", "as-groups": ["devs"]}
    result = run(kubeconfig(tmp_path, server.url, user), "--as", "bob", "--as-group", "a", "--as-group=b", "--as-uid=7")
    assert result.exit_code == 0, result.stderr
    assert header_lines(server.requests[0]) == [
        ("Impersonate-User", "bob"),
        ("Impersonate-Uid", "7"),
        ("Impersonate-Group", "a"),
        ("Impersonate-Group", "b"),
    ]


def test_flags_alone(tmp_path: Path, server) -> None:
    result = run(kubeconfig(tmp_path, server.url, {"token": "t"}), "--as=system:serviceaccount:ns:sa")
    assert result.exit_code == 0, result.stderr
    assert header_lines(server.requests[0]) == [("Impersonate-User", "system:serviceaccount:ns:sa")]


def test_no_impersonation_no_headers(tmp_path: Path, server) -> None:
    result = run(kubeconfig(tmp_path, server.url, {"token": "t"}))
    assert result.exit_code == 0, result.stderr
    assert all(header_lines(request) == [] for request in server.requests)


@pytest.mark.parametrize(
    ("user", "flags"),
    [
        ({"token": "t", "as-groups": ["devs"]}, []),
        ({"token": "t", "as-uid": "1"}, []),
        ({"token": "t", "as-user-extra": {"k": ["v"]}}, []),
        ({"token": "t"}, ["--as-group", "devs"]),
        ({"token": "t"}, ["--as-uid", "1"]),
    ],
)
def test_groups_or_uid_without_a_user_are_refused_before_any_request(tmp_path: Path, server, user, flags) -> None:
    result = run(kubeconfig(tmp_path, server.url, user), *flags)
    assert result.exit_code == 1
    assert result.stderr == "error: requesting uid, groups or user-extra for u without impersonating a user\n"
    assert server.requests == []


def test_control_characters_in_an_impersonated_name_are_refused(tmp_path: Path, server) -> None:
    result = run(kubeconfig(tmp_path, server.url, {"token": "t", "as": "alice\r\nX-Injected: 1"}))
    assert result.exit_code == 1
    assert result.stderr == (
        'error: Unable to connect to the server: net/http: invalid header field value for "Impersonate-User"\n'
    )
    assert server.requests == []


def test_official_loader_path_carries_the_headers_too(tmp_path: Path, server) -> None:
    # basic auth is resolved by the official client's loader; the requests are still ours, impersonating
    user = {"username": "admin", "password": "secret-password", "as": "alice", "as-groups": ["g"]}
    result = run(kubeconfig(tmp_path, server.url, user), "--as-uid", "9")
    assert result.exit_code == 0, result.stderr
    assert header_lines(server.requests[0]) == [
        ("Impersonate-User", "alice"),
        ("Impersonate-Uid", "9"),
        ("Impersonate-Group", "g"),
    ]
    assert b"Authorization: Basic " in server.requests[0]


def test_in_cluster_path_takes_the_flags(tmp_path: Path, server, monkeypatch) -> None:
    from kubectl_instancetype.kube.kubeconfig import official
    from kubectl_instancetype.kube.kubeconfig.model import ClusterConfig

    def in_cluster(options):
        return ClusterConfig(server=server.url, namespace="ns", request_timeout=options.request_timeout)

    monkeypatch.setattr(official, "load_in_cluster", in_cluster)
    environ = {"HOME": "/nonexistent", "KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": "1"}
    result = run_cli(["list", "instancetypes", "--as", "sa", "--as-group", "g"], environ=environ)
    assert result.exit_code == 0, result.stderr
    assert header_lines(server.requests[0]) == [("Impersonate-User", "sa"), ("Impersonate-Group", "g")]


def test_header_key_escape_matches_client_go() -> None:
    # client-go's TestHeaderKeyEscape vectors (transport/round_trippers_test.go) and '%' always escaped
    assert header_key_escape("scopes") == "scopes"
    assert header_key_escape("example.com/foo") == "example.com%2Ffoo"
    assert header_key_escape("100%") == "100%25"
    assert header_key_escape("a b") == "a%20b"
    assert header_key_escape("ü") == "%C3%BC"


def test_help_lists_the_flags() -> None:
    result = run_cli(["list", "--help"])
    assert "--as string" in result.stdout
    assert "--as-group stringArray" in result.stdout
    assert "--as-uid string" in result.stdout


def test_completion_lists_names_as_the_impersonated_user(tmp_path: Path, server) -> None:
    path = kubeconfig(tmp_path, server.url, {"token": "t"})
    args = ["__complete", "list", "--kubeconfig", str(path), "--as", "bob", "--as-group", "a", "--as-group=b", "-n", ""]
    result = run_cli(args)
    assert result.exit_code == 0, result.stderr
    assert server.requests, "completion asked the server for namespaces"
    assert header_lines(server.requests[0]) == [
        ("Impersonate-User", "bob"),
        ("Impersonate-Group", "a"),
        ("Impersonate-Group", "b"),
    ]
