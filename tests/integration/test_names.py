"""Names and namespaces are checked before any request, with the words the API server or client-go use."""

from __future__ import annotations

import io

import pytest

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.kube import resources
from kubectl_instancetype.kube.client import connect
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
from kubectl_instancetype.kube.names import invalid_object_messages
from kubectl_instancetype.kube.transport import Transport

pytestmark = pytest.mark.controlplane


@pytest.mark.parametrize(
    "namespace,message",
    [
        ("..", "error: invalid namespace \"..\": [may not be '..']\n"),
        ("a/b", "error: invalid namespace \"a/b\": [may not contain '/']\n"),
        ("%2e%2e", "error: invalid namespace \"%2e%2e\": [may not contain '%']\n"),
        ("Demo", 'error: invalid namespace "Demo": a lowercase RFC 1123 label must consist of lower case'),
        ("demo\n", 'error: invalid namespace "demo\\n": a lowercase RFC 1123 label must consist of lower case'),
        ("a.b", 'error: invalid namespace "a.b": must not contain dots\n'),
        ("a" * 64, f'error: invalid namespace "{"a" * 64}": must be no more than 63 characters\n'),
    ],
)
def test_bad_namespaces_send_nothing(cli, mocker, namespace: str, message: str) -> None:
    spy = mocker.spy(Transport, "request")
    for args in (
        ["list", "-n", namespace],
        ["create", "vm", "-n", namespace],
        ["create", "preference", "-n", namespace],
    ):
        result = cli(*args)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert spy.call_count == 0


@pytest.mark.parametrize("name", ["Bad_Name", "-leading", "a" * 254, "dots..twice"])
def test_a_bad_name_fails_locally_with_the_servers_message(cli, control_plane, mocker, name: str) -> None:
    # What the server says for this name (sent directly, past our check) ...
    manifest = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name}}
    manifest["spec"] = {"template": {"spec": {"domain": {"devices": {}}}}}
    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig("admin")))
    with connect(options, {}, "/nonexistent") as client, pytest.raises(APIError) as server:
        client.create(resources.VIRTUAL_MACHINES, manifest, "default", dry_run=True)
    assert server.value.render() == invalid_object_messages(manifest, resources.VIRTUAL_MACHINES)
    # ... is what the plugin says without sending anything.
    spy = mocker.spy(Transport, "request")
    result = cli("create", "vm", "--name", name, "--skip-checks")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {server.value.render()}\n"
    assert spy.call_count == 0


def test_created_then_stdout_closed_says_it_exists(control_plane) -> None:
    from kubectl_instancetype.cli.main import run
    from kubectl_instancetype.env import ClosedStream, Environment

    err = io.StringIO()
    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(control_plane.kubeconfig("admin"))}
    env = Environment(stdout=ClosedStream("stdout"), stderr=err, environ=environ)
    code = run(["create", "preference", "--name", "closed-stdout-pref"], env)
    assert code == 1
    assert err.getvalue() == (
        "error: virtualmachineclusterpreference.instancetype.kubevirt.io/closed-stdout-pref was created, "
        "but printing the result failed: write /dev/stdout: bad file descriptor\n"
    )
    assert control_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterPreference",
            "metadata": {"name": "closed-stdout-pref"},
        }
    )
