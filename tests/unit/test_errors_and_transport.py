"""The one error map: Status objects, HTTP codes and socket failures become kubectl's messages."""

from __future__ import annotations

import json
import socket
import ssl

import pytest

from kubectl_instancetype import errors
from kubectl_instancetype.kube import errors as kube_errors
from kubectl_instancetype.kube.http import DeadlineExceeded, proxy_for
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import parse_server_url


def status(code: int, reason: str, message: str, **details) -> bytes:
    return json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "code": code,
            "reason": reason,
            "message": message,
            "details": details,
        }
    ).encode()


@pytest.mark.parametrize(
    "code,body,cls,rendered",
    [
        (
            404,
            status(404, "NotFound", 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.foo" not found'),
            errors.NotFoundError,
            'Error from server (NotFound): virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.foo" not found',
        ),
        (
            409,
            status(409, "AlreadyExists", 'virtualmachines.kubevirt.io "vm1" already exists'),
            errors.APIError,
            'Error from server (AlreadyExists): virtualmachines.kubevirt.io "vm1" already exists',
        ),
        (403, status(403, "Forbidden", "nope"), errors.ForbiddenError, "Error from server (Forbidden): nope"),
        (
            401,
            status(401, "Unauthorized", "Unauthorized"),
            errors.UnauthorizedError,
            "error: You must be logged in to the server (Unauthorized)",
        ),
        (401, b"", errors.UnauthorizedError, "error: You must be logged in to the server (Unauthorized)"),
        (
            422,
            status(
                422,
                "Invalid",
                "x",
                kind="VirtualMachine",
                name="vm1",
                causes=[{"field": "spec.running", "message": "Invalid value"}],
            ),
            errors.APIError,
            'The VirtualMachine "vm1" is invalid: spec.running: Invalid value',
        ),
        (
            422,
            status(
                422,
                "Invalid",
                "x",
                kind="VirtualMachine",
                name="vm1",
                causes=[{"field": "a", "message": "m1"}, {"field": "b", "message": "m2"}],
            ),
            errors.APIError,
            'The VirtualMachine "vm1" is invalid: \n* a: m1\n* b: m2',
        ),
        (
            500,
            status(500, "", "etcdserver: request timed out"),
            errors.APIError,
            "Error from server: etcdserver: request timed out",
        ),
        (
            503,
            b"<html>down</html>",
            errors.APIError,
            "Error from server (ServiceUnavailable): the server is currently unable to handle the request",
        ),
        (
            500,
            b"boom\n",
            errors.APIError,
            'Error from server (InternalError): an error on the server ("boom") has prevented the request '
            "from succeeding",
        ),
        (
            429,
            b"slow down",
            errors.APIError,
            "Error from server (TooManyRequests): the server has received too many requests and has asked us "
            "to try again later",
        ),
        (
            409,
            b"",
            errors.APIError,
            "Error from server (AlreadyExists): the server reported a conflict",
        ),
        (
            302,
            b"",
            errors.APIError,
            "Error from server: the server responded with the status code 302 but did not return more information",
        ),
        (
            404,
            b"404 page not found",
            errors.NotFoundError,
            "Error from server (NotFound): the server could not find the requested resource",
        ),
    ],
)
def test_api_errors(code: int, body: bytes, cls: type, rendered: str) -> None:
    """Messages of apimachinery's NewGenericServerResponse (checked against kubectl v1.36.3 for 429 and 503)."""
    error = kube_errors.api_error(code, body, "POST" if code == 409 else "GET", "/x")
    assert type(error) is cls
    assert error.render() == rendered


@pytest.mark.parametrize(
    "exc,rendered",
    [
        (
            ConnectionRefusedError(111, "Connection refused"),
            "error: The connection to the server 10.1.2.3:6443 was refused - did you specify the right host or port?",
        ),
        (
            TimeoutError("timed out"),
            "error: Unable to connect to the server: dial tcp 10.1.2.3:6443: i/o timeout",
        ),
        (
            socket.gaierror(-2, "Name or service not known"),
            "error: Unable to connect to the server: dial tcp: lookup 10.1.2.3: no such host",
        ),
        (
            OSError(113, "No route to host"),
            "error: Unable to connect to the server: dial tcp 10.1.2.3:6443: no route to host",
        ),
    ],
)
def test_transport_errors(exc: BaseException, rendered: str) -> None:
    assert kube_errors.transport_error(exc, "10.1.2.3", "10.1.2.3:6443").render() == rendered


def test_tls_verification_error() -> None:
    exc = ssl.SSLCertVerificationError(1, "x")
    exc.verify_message = "self-signed certificate in certificate chain"
    assert kube_errors.transport_error(exc, "10.1.2.3", "10.1.2.3:6443").render() == (
        "error: Unable to connect to the server: tls: failed to verify certificate: "
        "self-signed certificate in certificate chain"
    )


@pytest.mark.parametrize(
    "phase,rendered",
    [
        (
            "connect",
            "error: Unable to connect to the server: net/http: request canceled while waiting for connection "
            "(Client.Timeout exceeded while awaiting headers)",
        ),
        (
            "headers",
            "error: Unable to connect to the server: net/http: request canceled "
            "(Client.Timeout exceeded while awaiting headers)",
        ),
        (
            "body",
            "error: unexpected error when reading response body. Please retry. Original error: net/http: request "
            "canceled (Client.Timeout or context cancellation while reading body)",
        ),
    ],
)
def test_deadline_messages_are_kubectls(phase: str, rendered: str) -> None:
    """kubectl v1.36.3 --request-timeout 2s against a silent, a slow-header and a slow-body server."""
    assert kube_errors.timeout_error(phase).render() == rendered
    assert kube_errors.transport_error(DeadlineExceeded(phase), "h", "h:1").render() == rendered


def test_errors_module_does_not_import_the_transport() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(kube_errors.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not any(name and name.endswith("transport") for name in imported), imported


def test_generic_errors_get_one_prefix() -> None:
    assert errors.render(errors.UsageError("bad")) == "error: bad"
    assert errors.render(errors.UsageError("error: already prefixed")) == "error: already prefixed"
    assert errors.render(ValueError("boom")) == "error: boom"
    assert errors.exit_code(ValueError()) == errors.ExitStatus.ERROR == 1


@pytest.mark.parametrize(
    "server,environ,expected",
    [
        ("https://api.example:6443", {}, None),
        ("https://api.example:6443", {"HTTPS_PROXY": "http://p:3128"}, "http://p:3128"),
        ("https://api.example:6443", {"https_proxy": "http://p:3128", "NO_PROXY": ".example"}, None),
        ("https://api.example:6443", {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "other,api.example"}, None),
        ("https://api.example:6443", {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "*"}, None),
        ("https://127.0.0.1:6443", {"HTTPS_PROXY": "http://p:3128"}, None),
        ("https://localhost:6443", {"HTTPS_PROXY": "http://p:3128"}, None),
    ],
)
def test_environment_proxies_follow_go(server: str, environ: dict, expected: str | None) -> None:
    proxy = proxy_for(parse_server_url(server), None, environ)
    assert (None if proxy is None else proxy.without_userinfo()) == expected


def test_kubeconfig_proxy_url_wins() -> None:
    proxy = proxy_for(parse_server_url("https://127.0.0.1"), "http://cfg:1", {"HTTPS_PROXY": "http://env:2"})
    assert proxy is not None and proxy.without_userinfo() == "http://cfg:1"


def test_cluster_config_never_shows_credentials() -> None:
    config = ClusterConfig(server="https://x", token="secret-token-value")
    assert "secret-token-value" not in repr(config)
    assert config.authorization() == "Bearer secret-token-value"
