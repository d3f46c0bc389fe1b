"""Credentials that cannot be used stop the command before any request reaches the control plane.

Before, a failing exec credential plugin was logged by the official loader and every request went out
anonymously: ``version`` exited 0 and ``create vm --skip-checks`` POSTed as ``system:anonymous``. Now the
plugin fails as kubectl's does, and so do half client-certificate pairs and header-breaking tokens.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from kubectl_instancetype.kube.transport import Transport
from tests.conftest import run_cli

V1 = "client.authentication.k8s.io/v1"
NOT_INSTALLED = (
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n"
    "To learn more about this feature, consult the documentation available at:\n"
    "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins"
)


def _kubeconfig(tmp_path: Path, control_plane, user: dict) -> Path:
    path = tmp_path / "kubeconfig"
    cluster = {"server": control_plane.server, "certificate-authority": str(control_plane.ca_file)}
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "c",
        "clusters": [{"name": "cl", "cluster": cluster}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "c", "context": {"cluster": "cl", "user": "u", "namespace": "default"}}],
    }
    path.write_text(yaml.safe_dump(document))
    return path


def _plugin(tmp_path: Path, body: str) -> str:
    script = tmp_path / "plugin"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


def _credential(token: str, **status: object) -> str:
    return json.dumps({"apiVersion": V1, "kind": "ExecCredential", "status": {"token": token, **status}})


def _exec(command: str, **extra: object) -> dict:
    return {"exec": {"apiVersion": V1, "command": command, "interactiveMode": "Never", **extra}}


def _vm_exists(control_plane, name: str) -> bool:
    return (
        control_plane.get(
            {
                "apiVersion": "kubevirt.io/v1",
                "kind": "VirtualMachine",
                "metadata": {"name": name, "namespace": "default"},
            }
        )
        is not None
    )


FAILING_PLUGINS = {
    "not installed": (
        None,
        "error: Unable to connect to the server: getting credentials: exec: executable "
        "kubectl-instancetype-no-such-plugin not found" + NOT_INSTALLED,
    ),
    "exit code": (
        "exit 7\n",
        "error: Unable to connect to the server: getting credentials: exec: executable {plugin} failed with exit code 7",
    ),
    "not JSON": (
        "echo 'not json'\n",
        "error: Unable to connect to the server: getting credentials: decoding stdout: couldn't get version/kind; "
        "json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "
        '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    ),
    "wrong apiVersion": (
        "echo '"
        + json.dumps(
            {"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", "status": {"token": "x"}}
        )
        + "'\n",
        "error: Unable to connect to the server: getting credentials: exec plugin is configured to use API version "
        "client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1",
    ),
    "wrong kind": (
        "echo '" + json.dumps({"apiVersion": V1, "kind": "Credential", "status": {"token": "x"}}) + "'\n",
        'error: Unable to connect to the server: getting credentials: decoding stdout: no kind "Credential" is '
        'registered for version "client.authentication.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"',
    ),
}


@pytest.mark.parametrize(
    "command",
    [["version"], ["list"], ["create", "vm", "--name", "{vm}", "--skip-checks"]],
    ids=["version", "list", "create-vm-skip-checks"],
)
@pytest.mark.parametrize("failure", sorted(FAILING_PLUGINS))
def test_a_failing_exec_plugin_stops_the_command_before_any_request(
    failure: str, command: list[str], control_plane, tmp_path: Path, mocker
) -> None:
    body, message = FAILING_PLUGINS[failure]
    plugin = _plugin(tmp_path, body) if body is not None else "kubectl-instancetype-no-such-plugin"
    kubeconfig = _kubeconfig(tmp_path, control_plane, _exec(plugin))
    name = f"exec-{abs(hash((failure, tuple(command)))) % 10**8}"
    spy = mocker.spy(Transport, "request")
    args = [word.replace("{vm}", name) for word in command] + ["--kubeconfig", str(kubeconfig)]
    result = run_cli(args, environ={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.exit_code == 1
    assert result.stderr == message.replace("{plugin}", plugin) + "\n"
    assert spy.call_count == 0
    if command[0] == "create":
        assert not _vm_exists(control_plane, name)
        assert result.stdout == ""


def test_the_exec_plugin_token_authenticates_and_is_refreshed_when_it_expires(control_plane, tmp_path: Path) -> None:
    """An expired credential makes the next request run the plugin again (client-go's rule)."""
    counter = tmp_path / "runs"
    credential = _credential(control_plane.tokens["admin"], expirationTimestamp="2000-01-01T00:00:00Z")
    plugin = _plugin(tmp_path, f"echo run >> {counter}\ncat <<'EOF'\n{credential}\nEOF\n")
    kubeconfig = _kubeconfig(tmp_path, control_plane, _exec(plugin))
    result = run_cli(["list", "--kubeconfig", str(kubeconfig), "-A"], environ={"HOME": str(tmp_path)})
    assert result.exit_code == 0, result.stderr
    # once before the first request, then once per request (two scopes listed), each credential expired
    assert len(counter.read_text().splitlines()) >= 2


def test_an_unexpired_exec_credential_is_reused(control_plane, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    credential = _credential(control_plane.tokens["admin"], expirationTimestamp="2999-01-01T00:00:00Z")
    plugin = _plugin(tmp_path, f"echo run >> {counter}\ncat <<'EOF'\n{credential}\nEOF\n")
    kubeconfig = _kubeconfig(tmp_path, control_plane, _exec(plugin))
    result = run_cli(["list", "--kubeconfig", str(kubeconfig), "-A"], environ={"HOME": str(tmp_path)})
    assert result.exit_code == 0, result.stderr
    assert counter.read_text().splitlines() == ["run"]


@pytest.mark.parametrize(
    "files,message",
    [
        (
            {"client-key": "key"},
            "error: client-cert-data or client-cert must be specified for u to use the clientCert authentication method.",
        ),
        (
            {"client-certificate": "crt"},
            "error: client-key-data or client-key must be specified for u to use the clientCert authentication method.",
        ),
    ],
    ids=["key-without-certificate", "certificate-without-key"],
)
def test_half_a_client_certificate_pair_is_refused(
    files: dict, message: str, control_plane, tmp_path: Path, mocker
) -> None:
    pki = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs" / "pki"
    user = {"token": control_plane.tokens["admin"]}
    for field, kind in files.items():
        user[field] = str(pki / f"client.{kind}")
    spy = mocker.spy(Transport, "request")
    result = run_cli(["version", "--kubeconfig", str(_kubeconfig(tmp_path, control_plane, user))])
    assert (result.exit_code, result.stderr) == (1, message + "\n")
    assert spy.call_count == 0


@pytest.mark.parametrize("where", ["token", "tokenFile", "exec"])
@pytest.mark.parametrize("bad", ["\r\n", "\n", "\0", "\r"], ids=["CRLF", "LF", "NUL", "CR"])
def test_a_token_that_would_break_the_header_is_refused(
    where: str, bad: str, control_plane, tmp_path: Path, mocker
) -> None:
    token = control_plane.tokens["admin"] + bad + "X-Injected: 1"
    if where == "token":
        user = {"token": token}
    elif where == "tokenFile":
        (tmp_path / "token").write_bytes(token.encode())
        user = {"tokenFile": str(tmp_path / "token")}
    else:
        user = _exec(_plugin(tmp_path, f"cat <<'EOF'\n{_credential(token)}\nEOF\n"))
    spy = mocker.spy(Transport, "request")
    result = run_cli(["list", "--kubeconfig", str(_kubeconfig(tmp_path, control_plane, user))])
    assert (result.exit_code, result.stdout) == (1, "")
    assert (
        result.stderr
        == 'error: Unable to connect to the server: net/http: invalid header field value for "Authorization"\n'
    )
    assert spy.call_count == 0
    assert control_plane.tokens["admin"] not in result.stderr


@pytest.mark.parametrize("verbosity", ["1", "9"])
def test_verbose_output_never_shows_the_token(verbosity: str, control_plane, tmp_path: Path) -> None:
    """-v 9 logs every request: the Authorization header must not be among what it prints."""
    for user in ("admin", "alice"):
        kubeconfig = control_plane.kubeconfig(user)
        for args in (["list"], ["create", "vm", "--name", "v-token-check", "--skip-checks", "--dry-run=server"]):
            result = run_cli([*args, "--kubeconfig", str(kubeconfig), "-v", verbosity], environ={"HOME": str(tmp_path)})
            printed = result.stdout + result.stderr
            assert control_plane.tokens[user] not in printed, "a token was printed"
            if verbosity == "9":  # the request log, where a header would show, was printed
                logged = re.search(r"^I (GET|POST) https://127\.0\.0\.1:\d+/apis/\S+ \d{3} ", result.stderr, re.M)
                assert logged, printed
