"""The one error map: Status objects, HTTP codes and socket failures become kubectl's messages."""

from __future__ import annotations

import json
import socket
import ssl

import pytest

from kubectl_instancetype import errors
from kubectl_instancetype.kube import errors as kube_errors
from kubectl_instancetype.kube.config import ClusterConfig
from kubectl_instancetype.kube.transport import Transport, _proxy_for


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
            "Error from server (ServiceUnavailable): the server is currently unable to handle the request "
            "(<html>down</html>)",
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
    error = kube_errors.api_error(code, body, "GET", "/x")
    assert type(error) is cls
    assert error.render() == rendered


def transport(server: str = "https://10.1.2.3:6443", timeout: float | None = None) -> Transport:
    return Transport(ClusterConfig(server=server, request_timeout=timeout), environ={})


@pytest.mark.parametrize(
    "exc,rendered",
    [
        (
            ConnectionRefusedError(111, "Connection refused"),
            "error: The connection to the server 10.1.2.3:6443 was refused - did you specify the right host or port?",
        ),
        (
            TimeoutError("timed out"),
            "error: Unable to connect to the server: the server 10.1.2.3:6443 did not answer (request timed out)",
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
    assert kube_errors.transport_error(exc, transport()).render() == rendered


def test_tls_verification_error() -> None:
    exc = ssl.SSLCertVerificationError(1, "x")
    exc.verify_message = "self-signed certificate in certificate chain"
    assert kube_errors.transport_error(exc, transport()).render() == (
        "error: Unable to connect to the server: tls: failed to verify certificate: "
        "self-signed certificate in certificate chain"
    )


def test_timeout_names_the_limit() -> None:
    rendered = kube_errors.transport_error(TimeoutError(), transport(timeout=2)).render()
    assert rendered.endswith("did not answer within 2s (request timed out)")


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
    assert _proxy_for(server, None, environ) == expected


def test_kubeconfig_proxy_url_wins() -> None:
    assert _proxy_for("https://127.0.0.1", "http://cfg:1", {"HTTPS_PROXY": "http://env:2"}) == "http://cfg:1"


def test_cluster_config_never_shows_credentials() -> None:
    config = ClusterConfig(server="https://x", token="secret-token-value")
    assert "secret-token-value" not in repr(config)
    assert config.authorization() == "Bearer secret-token-value"
