"""kubectl's kubeconfig loading rules on the fast path (files, merging, errors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_instancetype.errors import ConfigurationError
from kubectl_instancetype.kube import kubeconfig
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions


def write(path: Path, **document) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "Config"} | document))
    return path


def simple(path: Path, server: str = "https://s", **context) -> Path:
    return write(
        path,
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": {"server": server}}],
        users=[{"name": "u", "user": {"token": "t"}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"} | context}],
    )


def test_paths_follow_clientcmd(tmp_path: Path) -> None:
    a, b = simple(tmp_path / "a"), simple(tmp_path / "b")
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    default = simple(home / ".kube" / "config")
    environ = {"KUBECONFIG": f"{a}:{tmp_path / 'missing'}::{b}:{a}"}
    assert kubeconfig.kubeconfig_paths(None, environ, str(home)) == [str(a), str(b)]
    assert kubeconfig.kubeconfig_paths(str(b), environ, str(home)) == [str(b)]
    assert kubeconfig.kubeconfig_paths(None, {}, str(home)) == [str(default)]
    assert kubeconfig.kubeconfig_paths(None, {}, str(tmp_path / "nohome")) == []
    with pytest.raises(ConfigurationError, match="stat .*/absent: no such file or directory"):
        kubeconfig.kubeconfig_paths(str(tmp_path / "absent"), {}, str(home))


def test_namespace_defaults(tmp_path: Path) -> None:
    files = kubeconfig.read_kubeconfig([str(simple(tmp_path / "a"))])
    assert kubeconfig.resolve_static(files, ConnectionOptions()).namespace == "default"
    files = kubeconfig.read_kubeconfig([str(simple(tmp_path / "b", namespace="team"))])
    resolved = kubeconfig.resolve_static(files, ConnectionOptions())
    assert (resolved.namespace, resolved.namespace_explicit) == ("team", False)


@pytest.mark.parametrize(
    "document,options,message",
    [
        ({"current-context": "c"}, ConnectionOptions(), "context was not found for specified context: c"),
        ({}, ConnectionOptions(), "no context is selected: set current-context in the kubeconfig or pass --context"),
        (
            {"contexts": [{"name": "c", "context": {"cluster": "x", "user": "u"}}]},
            ConnectionOptions(context="c"),
            'context "c" refers to cluster "x", which is not in the kubeconfig',
        ),
        (
            {
                "contexts": [{"name": "c", "context": {"cluster": "x", "user": "nobody"}}],
                "clusters": [{"name": "x", "cluster": {"server": "https://s"}}],
            },
            ConnectionOptions(context="c"),
            'context "c" refers to user "nobody", which is not in the kubeconfig',
        ),
        (
            {"contexts": [{"name": "c", "context": {"cluster": "x"}}], "clusters": [{"name": "x", "cluster": {}}]},
            ConnectionOptions(context="c"),
            'no server found for cluster "x"',
        ),
    ],
)
def test_configuration_errors(tmp_path: Path, document: dict, options: ConnectionOptions, message: str) -> None:
    files = kubeconfig.read_kubeconfig([str(write(tmp_path / "k", **document))])
    with pytest.raises(ConfigurationError) as caught:
        kubeconfig.resolve_static(files, options)
    assert caught.value.message == message
    assert caught.value.render() == f"error: {message}"


def test_a_list_reads_as_an_empty_kubeconfig_as_in_kubectl(tmp_path: Path) -> None:
    path = tmp_path / "k"
    path.write_text("- just\n- a list\n")
    files = kubeconfig.read_kubeconfig([str(path)])
    assert (files.contexts, files.clusters, files.users, files.current_context) == ({}, {}, {}, "")


def test_token_file_is_read_at_request_time(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("first\n")
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": {"server": "https://s"}}],
        users=[{"name": "u", "user": {"tokenFile": "token"}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    )
    resolved = kubeconfig.resolve_static(kubeconfig.read_kubeconfig([str(path)]), ConnectionOptions())
    assert resolved.authorization() == "Bearer first"
    token.write_text("rotated")
    assert resolved.authorization() == "Bearer rotated"
    token.unlink()
    with pytest.raises(ConfigurationError, match=f"^open {token}: no such file or directory$"):
        resolved.authorization()


@pytest.mark.parametrize(
    "user,cluster,why",
    [
        ({"auth-provider": {"name": "oidc"}}, {}, "user auth-provider"),
        ({"username": "a", "password": "b"}, {}, "user username"),
    ],
)
def test_hand_over_to_the_official_loader(tmp_path: Path, user: dict, cluster: dict, why: str) -> None:
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": {"server": "https://s"} | cluster}],
        users=[{"name": "u", "user": user}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    )
    with pytest.raises(kubeconfig.NeedsOfficialLoader) as caught:
        kubeconfig.resolve_static(kubeconfig.read_kubeconfig([str(path)]), ConnectionOptions())
    assert caught.value.why == why


def test_no_configuration_at_all(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="^no configuration has been provided"):
        kubeconfig.load_cluster_config(ConnectionOptions(), {}, str(tmp_path))


def test_an_oidc_user_without_id_token_is_named_not_quoted(tmp_path: Path) -> None:
    """The official loader names the node by the repr of the whole user entry; we name it users[name=u]."""
    from tests.conftest import run_cli

    provider = {"name": "oidc", "config": {"client-id": "k", "client-secret": "hidden-client-secret"}}
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
        users=[{"name": "u", "user": {"auth-provider": provider}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    )
    result = run_cli(["list", "--kubeconfig", str(path)], environ={"HOME": str(tmp_path)})
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: Invalid kube-config file. Expected key id-token in {path}/users[name=u]/user/auth-provider/config\n",
    )


@pytest.mark.posix("a #!/bin/sh exec plugin")
def test_an_exec_plugin_may_return_a_client_key_pair(tmp_path: Path) -> None:
    pki = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs" / "pki"
    cert, key = (pki / "client.crt").read_text(), (pki / "client.key").read_text()
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"clientCertificateData": cert, "clientKeyData": key},
    }
    plugin = tmp_path / "plugin"
    plugin.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(credential)}\nEOF\n")
    plugin.chmod(0o755)
    exec_config = {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "./plugin"}  # IfAvailable
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": {"server": "https://s"}}],
        users=[{"name": "u", "user": {"exec": exec_config}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    )
    resolved = kubeconfig.load_cluster_config(ConnectionOptions(kubeconfig=str(path)), {}, str(tmp_path))
    assert (resolved.client_cert_data, resolved.client_key_data) == (cert.encode(), key.encode())
    assert resolved.authorization() is None
    from kubectl_instancetype.kube.tls import build_ssl_context

    build_ssl_context(resolved)  # the pair loads


@pytest.mark.posix("a #!/bin/sh exec plugin")
def test_an_exec_plugin_is_told_what_client_go_tells_it(tmp_path: Path) -> None:
    """KUBERNETES_EXEC_INFO: kind, apiVersion, spec.interactive, and spec.cluster when provideClusterInfo is set."""
    seen = tmp_path / "exec-info.json"
    credential = {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "x"}}
    plugin = tmp_path / "plugin"
    plugin.write_text(
        f'#!/bin/sh\nprintf \'%s\' "$KUBERNETES_EXEC_INFO" > {seen}\necho "$EXTRA" > {seen}.env\n'
        f"cat <<'EOF'\n{json.dumps(credential)}\nEOF\n"
    )
    plugin.chmod(0o755)
    exec_config = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": str(plugin),
        "interactiveMode": "Never",
        "provideClusterInfo": True,
        "env": [{"name": "EXTRA", "value": "from-the-kubeconfig"}],
    }
    cluster = {
        "server": "https://s:6443",
        "tls-server-name": "api.internal",
        "extensions": [{"name": "client.authentication.k8s.io/exec", "extension": {"audience": "a"}}],
    }
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[{"name": "c", "cluster": cluster}],
        users=[{"name": "u", "user": {"exec": exec_config}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    )
    resolved = kubeconfig.load_cluster_config(ConnectionOptions(kubeconfig=str(path)), {"PATH": "/usr/bin:/bin"}, "/x")
    assert resolved.authorization() == "Bearer x"
    assert json.loads(seen.read_text()) == {
        "kind": "ExecCredential",
        "apiVersion": "client.authentication.k8s.io/v1",
        "spec": {
            "cluster": {"server": "https://s:6443", "tls-server-name": "api.internal", "config": {"audience": "a"}},
            "interactive": False,
        },
    }
    assert (tmp_path / "exec-info.json.env").read_text() == "from-the-kubeconfig\n"


def test_cluster_flag_replaces_the_contexts_cluster(tmp_path: Path) -> None:
    """kubectl's --cluster (clientcmd's overrides.Context.Cluster): the context's user and namespace, another
    cluster; a name the kubeconfig lacks is clientcmd getCluster's error."""
    path = write(
        tmp_path / "k",
        **{"current-context": "c"},
        clusters=[
            {"name": "c", "cluster": {"server": "https://one"}},
            {"name": "d", "cluster": {"server": "https://two"}},
        ],
        users=[{"name": "u", "user": {"token": "t"}}],
        contexts=[{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "team"}}],
    )
    files = kubeconfig.read_kubeconfig([str(path)])
    assert kubeconfig.resolve_static(files, ConnectionOptions()).server == "https://one"
    other = kubeconfig.resolve_static(files, ConnectionOptions(cluster="d"))
    assert (other.server, other.namespace, other.token) == ("https://two", "team", "t")
    with pytest.raises(ConfigurationError) as caught:
        kubeconfig.resolve_static(files, ConnectionOptions(cluster="nope"))
    assert caught.value.render() == 'error: no server found for cluster "nope"'
